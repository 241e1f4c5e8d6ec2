/**
 * A fast path for short inputs and patterns whose every match is short and found with a small, fixed amount of
 * backtracking: a sequence of single-character atoms, each repeated a bounded number of times, and the assertions
 * `^`, `$`, `\b` and `\B`. `C-[0-9]{4}`, `\b[0-9]{13,16}\b`, `\b\d{3}-\d{2}-\d{4}\b`, `AKIA[0-9A-Z]{16}` and
 * `^[A-Z]{2}-\d{4}$` have that shape, as do most redact patterns and many declared ones.
 *
 * - A backtracking engine tries the pattern at each start position. With no group, no alternation and no unbounded
 *   repetition, what it does at one position is a walk of a tree fixed by the pattern: an atom repeated `{min,max}`
 *   takes up to `max` characters greedily, then gives them back one at a time, trying the rest of the pattern after
 *   each of its `max - min + 1` counts. So the steps at one position are at most
 *   `cost(atom{min,max} rest) = max + (max - min + 1) * cost(rest)`, an assertion costs one step more than the rest,
 *   and the end costs 1. That bound does not depend on the input: V8's own engine runs such a pattern over `n`
 *   characters in at most `n * cost` steps, linear time.
 * - Linear is not cheap: a step of V8's engine costs a few nanoseconds, so a pattern of cost 24 can take 100 ms
 *   over a hostile megabyte where RE2 (`re2js`) takes 15. But RE2 pays a fixed cost per call (a microsecond to a
 *   test, several to a replacement) that dwarfs a short string. So V8 runs an input only while `n * cost` stays
 *   within {@link NATIVE_STEP_BUDGET} (a few microseconds at worst); longer inputs go to RE2.
 * - The atoms are literal characters, `.`, `\d`, `\D`, `\w`, `\W`, `\s`, `\S` and bracket classes of those (each
 *   matches exactly one code point in unicode mode). Unicode property escapes are left to RE2: V8 tests them slowly
 *   in two-byte strings (see single-class-pattern.ts).
 * - A pattern that can match the empty string is left to RE2 too (V8 tries empty matches inside surrogate pairs,
 *   where ECMAScript does not).
 *
 * V8 runs the pattern as written, so the meaning is ECMAScript's by construction, the meaning RE2's translation
 * keeps (`linear-regexp.ts`, which also decides whether a pattern is accepted at all).
 */

/** The most backtracking steps a pattern may take at one start position to run on V8 (see the module comment). */
export const MAX_STEPS_PER_POSITION = 64;

/** The most steps (input length times the pattern's cost) one call may take on V8; past it RE2 runs the input. */
export const NATIVE_STEP_BUDGET = 4096;

/** A pattern V8 may run: its expression and its worst case in steps per character of input. */
export interface BoundedPattern {
  /** The pattern as a V8 expression, unicode mode. */
  readonly regexp: RegExp;
  /** The most steps at one start position ({@link MAX_STEPS_PER_POSITION} at most). */
  readonly stepsPerPosition: number;
}

const CLASS_ESCAPE = String.raw`\\[dDwWsS]`;
/** An escaped syntax character, a control escape, or a code point written in hexadecimal. */
const CHARACTER_ESCAPE = String.raw`\\[\\^$.*+?()[\]{}|/]|\\[tnrfv]|\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\u\{[0-9a-fA-F]{1,6}\}|\\c[A-Za-z]`;
/** A bracket class without nested brackets or property escapes (`[\b]` is a backspace, `\-` a dash). */
const BRACKET = String.raw`\[\^?(?:[^\\\][]|${CLASS_ESCAPE}|${CHARACTER_ESCAPE}|\\[b-])*\]`;
/** One single-character atom: a bracket class, an escape, `.` or a literal code point. */
const ATOM = new RegExp(String.raw`${BRACKET}|${CLASS_ESCAPE}|${CHARACTER_ESCAPE}|\.|[^\\^$*+?()[\]{}|]`, 'uy');
const ASSERTION = /\^|\$|\\b|\\B/y;
/** `?`, `{n}` or `{n,m}`, greedy (a lazy or unbounded one is not this shape). */
const QUANTIFIER = /(?:\?|\{(\d{1,3})(?:,(\d{1,3}))?\})(?![?])/y;

/**
 * The V8 expression for `source` and its cost, when it has the bounded shape; `undefined` otherwise.
 * @example
 * boundedPattern('\\b[0-9]{13,16}\\b')?.stepsPerPosition; // 25
 */
export function boundedPattern(source: string): BoundedPattern | undefined {
  const items = boundedItems(source);
  if (items === undefined) return undefined;
  let cost = 1;
  let minLength = 0;
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item === 'assertion') cost += 1;
    else {
      cost = item.max + (item.max - item.min + 1) * cost;
      minLength += item.min;
    }
    if (cost > MAX_STEPS_PER_POSITION) return undefined;
  }
  if (minLength === 0) return undefined;
  try {
    return { regexp: new RegExp(source, 'u'), stepsPerPosition: cost };
  } catch {
    return undefined;
  }
}

type Item = 'assertion' | { readonly min: number; readonly max: number };

/** The pattern as a sequence of assertions and quantified single-character atoms; `undefined` if it is not one. */
function boundedItems(source: string): Item[] | undefined {
  const items: Item[] = [];
  let i = 0;
  while (i < source.length) {
    ASSERTION.lastIndex = i;
    const assertion = ASSERTION.exec(source);
    if (assertion !== null) {
      items.push('assertion');
      i += assertion[0].length;
      continue;
    }
    ATOM.lastIndex = i;
    const atom = ATOM.exec(source);
    if (atom === null) return undefined;
    i += atom[0].length;
    QUANTIFIER.lastIndex = i;
    const quantifier = QUANTIFIER.exec(source);
    if (quantifier === null) {
      items.push({ min: 1, max: 1 });
      continue;
    }
    i += quantifier[0].length;
    if (quantifier[0] === '?') items.push({ min: 0, max: 1 });
    else {
      const min = Number(quantifier[1]);
      const max = quantifier[2] === undefined ? min : Number(quantifier[2]);
      if (max < min) return undefined;
      items.push({ min, max });
    }
  }
  return items;
}
