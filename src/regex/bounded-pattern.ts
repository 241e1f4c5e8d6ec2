/**
 * V8 answers for short patterns on short strings, where RE2 (the `re2js` port) pays a fixed cost per call (and more
 * to build its matcher and replace) that dwarfs the string (bench/worst-case.ts has the figures). Only patterns
 * whose every match is short and found with a small, fixed amount of backtracking qualify: a sequence of
 * single-character atoms, each repeated a bounded number of times, and the assertions `^`, `$`, `\b` and `\B`.
 * `C-[0-9]{4}`, `\b[0-9]{13,16}\b`, `\b\d{3}-\d{2}-\d{4}\b` and `AKIA[0-9A-Z]{16}` have that shape, as do most
 * redact patterns.
 *
 * - A backtracking engine tries the pattern at each start position. With no group, no alternation and no unbounded
 *   repetition, what it does at one position is a walk of a tree fixed by the pattern: an atom repeated `{min,max}`
 *   takes up to `max` characters greedily, then gives them back one at a time, trying the rest of the pattern after
 *   each of its `max - min + 1` counts. So the steps at one position are at most
 *   `cost(atom{min,max} rest) = max + (max - min + 1) * cost(rest)`, an assertion costs one step more than the rest,
 *   and the end costs 1. That bound does not depend on the input: V8 runs such a pattern over `n` characters in at
 *   most `n * cost` steps. Patterns of cost above {@link MAX_STEPS_PER_POSITION} do not qualify.
 * - The atoms match one BMP code point each, never half of a surrogate pair: literal characters, `\d`, `\w`, `\s`,
 *   hexadecimal escapes and bracket classes of at most 16 of those. `.`, negated classes, `\D`, `\W`, `\S`, astral
 *   characters and property escapes do not qualify: a step over a surrogate pair, or through a class of thousands
 *   of members, costs V8 several times a step of a qualifying pattern.
 * - Linear is not cheap: over a hostile megabyte a pattern of moderate cost takes V8 several times RE2's test. So
 *   V8 tests a string only while `n * cost` stays within {@link NATIVE_TEST_STEPS}, about RE2's fixed cost of a
 *   test; RE2 tests longer ones.
 * - A replacement, in a string a test found to match, is V8's at any length. RE2 must then find where each match
 *   lies, and its matcher carries every thread of the pattern along each character: over a megabyte holding a match,
 *   the costliest qualifying patterns (`\d{1,21}x`, `\w{1,21}@`, `[ab]{1,21}c`) take RE2 about ten times V8's worst
 *   case, and ordinary ones (card numbers) far more than that ratio. Whatever a response or an argument holds, no
 *   call's worst case is above what RE2 spends on that call anyway, and a short string costs a fraction of it.
 * - A pattern that can match the empty string does not qualify (V8 tries empty matches inside surrogate pairs,
 *   where ECMAScript does not).
 *
 * V8 runs the pattern as written, so its answers have ECMAScript's meaning by construction, the meaning RE2's
 * translation keeps (`linear-regexp.ts`, which also decides whether a pattern is accepted at all).
 */

/** The most backtracking steps a pattern may take at one start position to qualify (see the module comment). */
export const MAX_STEPS_PER_POSITION = 64;

/** The most steps (string length times the pattern's cost) of a test on V8: about RE2's fixed cost of a test. */
export const NATIVE_TEST_STEPS = 128;

/**
 * A long text is replaced in chunk by chunk: V8 runs only on the chunks where RE2's (linear, cheap per character)
 * test finds that a match may start, so a megabyte of near misses before one match costs a test, not V8's worst
 * case over the whole megabyte (`\d{1,20}x` over a megabyte of digits).
 */
const CHUNK_CHARS = 4096;
/** After this many chunks in a row holding a match, the rest of the text is replaced on V8 in one go: dense. */
const DENSE_CHUNKS = 4;

/** A pattern of bounded backtracking: its expression and its worst case in steps per character of input. */
export interface BoundedPattern {
  /** The pattern as a V8 expression, unicode mode. */
  readonly regexp: RegExp;
  /** The most steps at one start position ({@link MAX_STEPS_PER_POSITION} at most). */
  readonly stepsPerPosition: number;
  /** The most UTF-16 units a match spans (every atom is one BMP code point). */
  readonly maxLength: number;
  /** Whether the pattern has `^` or `$`, which see the text's own ends. */
  readonly anchored: boolean;
}

/** V8's answers for a bounded pattern: tests where its worst case is within RE2's fixed cost, and replacements. */
export class NativeShortcut {
  /** Strings up to this many UTF-16 units are tested on V8. */
  public readonly testLength: number;
  private readonly one: RegExp;
  private readonly all: RegExp;
  private lastReplacement: string | undefined;
  private quotedReplacement = '';

  private constructor(private readonly pattern: BoundedPattern) {
    this.testLength = Math.floor(NATIVE_TEST_STEPS / pattern.stepsPerPosition);
    this.one = pattern.regexp;
    this.all = new RegExp(pattern.regexp.source, 'gu');
  }

  /** The shortcut for `source` when it has the bounded shape, `undefined` otherwise. */
  public static of(source: string): NativeShortcut | undefined {
    const pattern = boundedPattern(source);
    return pattern === undefined ? undefined : new NativeShortcut(pattern);
  }

  /** Whether the pattern matches in `input` (of at most {@link testLength} units). */
  public test(input: string): boolean {
    return this.one.test(input);
  }

  /** `input` (of any length) with every match replaced by `replacement`, taken literally. */
  public replaceAll(input: string, replacement: string): string {
    // A replacement string, not a function (which costs V8 twice as much), with `$` doubled to be taken literally.
    if (replacement !== this.lastReplacement) {
      this.lastReplacement = replacement;
      this.quotedReplacement = replacement.replaceAll('$', '$$$$');
    }
    return input.replace(this.all, this.quotedReplacement);
  }

  /** Whether `input` is replaced in chunk by chunk ({@link replaceInChunks}): long, and the pattern unanchored. */
  public replacesInChunks(input: string): boolean {
    return input.length > DENSE_CHUNKS * CHUNK_CHARS && !this.pattern.anchored;
  }

  /**
   * {@link replaceAll} chunk by chunk, for a text {@link replacesInChunks} accepts; `mayMatch` is a linear test of
   * a piece of it (RE2's). A match starting in a chunk lies within the chunk, one character before it (what
   * `\b` and `\B` look at) and {@link BoundedPattern.maxLength} plus one after it: RE2 tests that piece, and V8 scans
   * it only when RE2 finds a match there, from where the last match ended, keeping the matches that start in the
   * chunk. That is the whole-text scan, leftmost first: no match starts in a chunk RE2 passed over, and each match
   * is decided by the characters of its piece. (`^` and `$` would see the piece's ends, so such a pattern is
   * replaced in whole.) After {@link DENSE_CHUNKS} chunks in a row holding a match, V8 scans the rest at once.
   */
  public replaceInChunks(input: string, replacement: string, mayMatch: (piece: string) => boolean): string {
    const all = this.all;
    let out = '';
    let copied = 0;
    let resume = 0; // where the scan may look for the next match: the end of the last one
    let inARow = 0;
    const scan = (text: string, offset: number, from: number, before: number): void => {
      all.lastIndex = from - offset;
      for (let match = all.exec(text); match !== null; match = all.exec(text)) {
        const at = offset + match.index;
        if (at >= before) break;
        out += input.slice(copied, at) + replacement;
        copied = resume = at + match[0].length;
      }
    };
    for (let start = 0; start < input.length; start += CHUNK_CHARS) {
      if (inARow >= DENSE_CHUNKS) {
        scan(input, 0, Math.max(start, resume), input.length);
        break;
      }
      const end = Math.min(start + CHUNK_CHARS, input.length);
      const pieceStart = Math.max(0, start - 1);
      const piece = input.slice(pieceStart, Math.min(input.length, end + this.pattern.maxLength + 1));
      if (!mayMatch(piece)) {
        inARow = 0;
        continue;
      }
      inARow++;
      if (resume < end) scan(piece, pieceStart, Math.max(start, resume), end);
    }
    return copied === 0 ? input : out + input.slice(copied);
  }
}

// Read code unit by code unit (no `u` flag): a surrogate, half of an astral character, is no atom.
const CLASS_ESCAPE = String.raw`\\[dws]`;
/** An escaped syntax character, a control escape, or a BMP code point other than a surrogate in hexadecimal. */
const CHARACTER_ESCAPE = String.raw`\\[\\^$.*+?()[\]{}|/]|\\[tnrfv]|\\x[0-9a-fA-F]{2}|\\u(?![dD][89a-fA-F])[0-9a-fA-F]{4}|\\c[A-Za-z]`;
/** A literal BMP character that is not a surrogate. */
const LITERAL = String.raw`[^\\^$.*+?()[\]{}|\ud800-\udfff]`;
/**
 * A bracket class, not negated, of at most 16 of the above (`[\b]` is a backspace, `\-` a dash): V8 tests a class of
 * thousands of members in several nanoseconds a step.
 */
const BRACKET = String.raw`\[(?!\^)(?:[^\\\][\ud800-\udfff]|${CLASS_ESCAPE}|${CHARACTER_ESCAPE}|\\[b-]){0,16}\]`;
/** One single-character atom. */
const ATOM = new RegExp(`${BRACKET}|${CLASS_ESCAPE}|${CHARACTER_ESCAPE}|${LITERAL}`, 'y');
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
  let maxLength = 0;
  let anchored = false;
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item === '^' || item === '$' || item === 'boundary') {
      cost += 1;
      anchored ||= item !== 'boundary';
    } else {
      cost = item.max + (item.max - item.min + 1) * cost;
      minLength += item.min;
      maxLength += item.max;
    }
    if (cost > MAX_STEPS_PER_POSITION) return undefined;
  }
  if (minLength === 0) return undefined;
  try {
    return { regexp: new RegExp(source, 'u'), stepsPerPosition: cost, maxLength, anchored };
  } catch {
    return undefined;
  }
}

type Item = '^' | '$' | 'boundary' | { readonly min: number; readonly max: number };

/** The pattern as a sequence of assertions and quantified single-character atoms; `undefined` if it is not one. */
function boundedItems(source: string): Item[] | undefined {
  const items: Item[] = [];
  let i = 0;
  while (i < source.length) {
    ASSERTION.lastIndex = i;
    const assertion = ASSERTION.exec(source);
    if (assertion !== null) {
      items.push(assertion[0] === '^' || assertion[0] === '$' ? assertion[0] : 'boundary');
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
