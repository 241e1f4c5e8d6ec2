/**
 * A redact pattern that runs the linear-time engine only where a match can be. RE2 (the `re2js` port) spends tens
 * of nanoseconds per character, and a shaped response is mostly text no pattern can match: a card-number pattern
 * cannot match in `order number 12 of the month`, yet RE2 reads every character of it to find that out.
 *
 * The pattern's compiled program says which characters a match can consume (its alphabet) and how many at least
 * (its shortest match). A match is a run of alphabet characters, so it lies inside a maximal run of them at least
 * that long; V8 finds those runs natively (one character class, repeated, tried only where a run starts: linear,
 * see {@link runFinder}). RE2 then runs on each run with
 * one character of context either side — a character outside the alphabet, or the text's end — so that `\b`,
 * `\B`, `^` and `$` see exactly the neighbours they see in the whole text, and no match can consume the context.
 * Runs close together are searched as one span (a substring bounded the same way), so RE2 is not called per word.
 * A string short enough for V8 itself to answer (a short pattern of bounded backtracking, see
 * validation/bounded-pattern.ts) is handed to the pattern at once: narrowing one native search only adds work.
 * The result is the same text RE2 makes over the whole input. A pattern whose program the analysis does not know
 * (or one that can match the empty string) runs on the whole text.
 */
import { compileLinearPattern, re2, translate, type LinearRegExp } from '../regex/linear-regexp';

/** Runs closer than this (in UTF-16 units) are searched as one span: a call into RE2 costs about that much. */
const MERGE_GAP = 64;
/**
 * Runs are merged into one span only while it stays this short (in UTF-16 units). A test can then stop at the
 * first span holding a match, and a replacement searches a long run with no match in it (a megabyte of digits) by
 * itself, with RE2's test, instead of building RE2's matcher over it and the match next to it: finding where
 * matches lie costs RE2 about five times more per character than finding whether there is one.
 */
const SPAN_CHARS = 4096;
/**
 * A test stops looking for runs once it has found this many, closer than {@link DENSE_SPACING} characters apart
 * on average, and hands the rest of the text to the engine whole: in a text of runs a few characters apart (a
 * response of short strings such as `"1丁"` under `[0-9]{0,4}[0-9]{0,3}x`) the engine would read most of the text
 * anyway, and finding each run first only adds its cost.
 */
const DENSE_RUNS = 256;
const DENSE_SPACING = 32;
/**
 * The shortest run V8 looks for, at most (a longer shortest match still lies in such a run). Any length costs the
 * same per character (see {@link runFinder}); the cap keeps the expression V8 compiles small.
 */
const MAX_RUN_LENGTH = 1024;

/** What the analysis of a pattern's program found. */
export interface PatternAlphabet {
  /** Every code point a match can consume, as the body of a `u`-mode character class. */
  readonly classBody: string;
  /** The fewest code points a match consumes (at least 1). */
  readonly minLength: number;
}

/** A compiled redact pattern: the same answers as its {@link LinearRegExp}, searched only where a match can be. */
export interface RedactPattern extends LinearRegExp {
  /** The analysis, when the pattern has one (`undefined`: the pattern runs on the whole text). */
  readonly alphabet: PatternAlphabet | undefined;
}

/**
 * Compiles a redact pattern (one that passed the response settings' checks).
 * @example
 * compileRedactPattern('\\b[0-9]{13,16}\\b').replaceAll('card 4111111111111111 ok', '[redacted]'); // 'card [redacted] ok'
 */
export function compileRedactPattern(source: string): RedactPattern {
  const matcher = compileLinearPattern(source);
  const alphabet = patternAlphabet(source);
  return alphabet === undefined ? new WholeTextPattern(matcher) : new WindowedPattern(matcher, alphabet);
}

/** A pattern the analysis does not know: every search reads the whole text. */
class WholeTextPattern implements RedactPattern {
  public readonly alphabet = undefined;

  constructor(private readonly matcher: LinearRegExp) {}

  get nativeLength(): number {
    return this.matcher.nativeLength;
  }

  get source(): string {
    return this.matcher.source;
  }

  public test(input: string): boolean {
    return this.matcher.test(input);
  }

  public replaceAll(input: string, replacement: string): string {
    return this.matcher.replaceAll(input, replacement);
  }

  public toString(): string {
    return this.matcher.toString();
  }
}

class WindowedPattern implements RedactPattern {
  private readonly runs: RegExp;

  constructor(
    private readonly matcher: LinearRegExp,
    public readonly alphabet: PatternAlphabet,
  ) {
    this.runs = runFinder(alphabet);
  }

  get source(): string {
    return this.matcher.source;
  }

  get nativeLength(): number {
    return this.matcher.nativeLength;
  }

  public test(input: string): boolean {
    if (input.length < this.alphabet.minLength) return false;
    if (input.length <= this.matcher.nativeLength) return this.matcher.test(input);
    let found = false;
    this.forEachSpan(
      input,
      (start, end) => {
        found = this.matcher.test(start === 0 && end === input.length ? input : input.slice(start, end));
        return found;
      },
      true,
    );
    return found;
  }

  public replaceAll(input: string, replacement: string): string {
    if (input.length < this.alphabet.minLength) return input;
    if (input.length <= this.matcher.nativeLength) return this.matcher.replaceAll(input, replacement);
    let out = '';
    let copied = 0;
    this.forEachSpan(input, (start, end) => {
      const span = start === 0 && end === input.length ? input : input.slice(start, end);
      const replaced = this.matcher.replaceAll(span, replacement);
      if (replaced !== span) {
        // A span may start on the context character that ended the one before, already copied; no match consumes
        // a context character, so the replaced span starts with it unchanged.
        const shared = Math.max(0, copied - start);
        out += input.slice(copied, start) + (shared === 0 ? replaced : replaced.slice(shared));
        copied = end;
      }
      return false;
    });
    return copied === 0 ? input : out + input.slice(copied);
  }

  public toString(): string {
    return this.matcher.toString();
  }

  /**
   * Calls `visit` with each span [start, end) of `input` where a match may be, in order, until it returns true.
   * A span starts at the character before a run (or at 0) and ends after the character after one (or at the end);
   * two spans may share that context character, when runs one character apart were not merged.
   * @param wholeWhenDense once runs prove dense, visit the rest of the text as one last span (for a test only: a
   *   replacement in a long span costs the engine several times a test)
   */
  private forEachSpan(input: string, visit: (start: number, end: number) => boolean, wholeWhenDense = false): void {
    const runs = this.runs;
    runs.lastIndex = 0;
    let spanStart = -1;
    let spanEnd = -1;
    let found = 0;
    for (let run = runs.exec(input); run !== null; run = runs.exec(input)) {
      const start = contextStart(input, run.index);
      if (wholeWhenDense && ++found >= DENSE_RUNS && run.index < found * DENSE_SPACING) {
        visit(spanStart >= 0 ? spanStart : start, input.length);
        return;
      }
      const end = contextEnd(input, run.index + run[0].length);
      if (spanStart >= 0 && start - spanEnd <= MERGE_GAP && end - spanStart <= SPAN_CHARS) {
        spanEnd = end;
        continue;
      }
      if (spanStart >= 0 && visit(spanStart, spanEnd)) return;
      spanStart = start;
      spanEnd = end;
    }
    if (spanStart >= 0) visit(spanStart, spanEnd);
  }
}

/**
 * The expression that finds the maximal runs of alphabet characters at least the shortest match long. Tried only
 * where a run starts (the lookbehind), it reads each run once: `[A]{m,}` alone is tried again at every character
 * of a shorter run, m steps each, so a text of runs one short of m costs m²/2 steps per run.
 */
export function runFinder(alphabet: PatternAlphabet): RegExp {
  const atLeast = Math.min(alphabet.minLength, MAX_RUN_LENGTH);
  return new RegExp(`(?<![${alphabet.classBody}])[${alphabet.classBody}]{${atLeast},}`, 'gu');
}

/** The start of the code point before `index` (0 at the text's start). */
function contextStart(text: string, index: number): number {
  if (index === 0) return 0;
  const low = text.charCodeAt(index - 1);
  if (low >= 0xdc00 && low <= 0xdfff && index >= 2) {
    const high = text.charCodeAt(index - 2);
    if (high >= 0xd800 && high <= 0xdbff) return index - 2;
  }
  return index - 1;
}

/** The end of the code point at `index` (the text's length at its end). */
function contextEnd(text: string, index: number): number {
  if (index >= text.length) return text.length;
  const high = text.charCodeAt(index);
  if (high >= 0xd800 && high <= 0xdbff && index + 1 < text.length) {
    const low = text.charCodeAt(index + 1);
    if (low >= 0xdc00 && low <= 0xdfff) return index + 2;
  }
  return index + 1;
}

/** The parts of an `re2js` program the analysis reads (not part of its typed API: checked as they are read). */
interface ProgInst {
  readonly op: number;
  readonly out: number;
  readonly arg: number;
  readonly runes: ArrayLike<number>;
}

// re2js instruction codes (Inst.ALT … Inst.LB_CHECK) and the fold-case flag.
const ALT = 1;
const ALT_MATCH = 2;
const CAPTURE = 3;
const EMPTY_WIDTH = 4;
const FAIL = 5;
const MATCH = 6;
const NOP = 7;
const RUNE = 8;
const RUNE1 = 9;
const RUNE_ANY = 10;
const RUNE_ANY_NOT_NL = 11;
const FOLD_CASE = 1;
const MAX_RUNE = 0x10ffff;

/**
 * The alphabet and shortest match of a pattern, from RE2's compiled program for it; `undefined` when the program
 * holds anything the analysis does not know (then nothing is assumed) or can match without consuming a character.
 */
export function patternAlphabet(source: string): PatternAlphabet | undefined {
  const re2Program = (re2().compile(translate(source)) as unknown as { re2?: () => unknown }).re2?.();
  const prog = (re2Program as { prog?: { inst?: unknown; start?: unknown } } | undefined)?.prog;
  if (prog === undefined || !Array.isArray(prog.inst) || typeof prog.start !== 'number') return undefined;
  const inst = prog.inst as ProgInst[];
  const ranges: [number, number][] = [];
  // 0-1 breadth-first search: the fewest runes on a path from the start to a match.
  const distance = new Array<number>(inst.length).fill(Infinity);
  const queue: number[] = [prog.start];
  distance[prog.start] = 0;
  let minLength = Infinity;
  while (queue.length > 0) {
    const pc = queue.shift()!;
    const i = inst[pc];
    const d = distance[pc];
    if (i === undefined || typeof i.op !== 'number') return undefined;
    const relax = (next: number, weight: 0 | 1): void => {
      if (d + weight < distance[next]) {
        distance[next] = d + weight;
        if (weight === 0) queue.unshift(next);
        else queue.push(next);
      }
    };
    switch (i.op) {
      case ALT:
      case ALT_MATCH:
        relax(i.out, 0);
        relax(i.arg, 0);
        break;
      case CAPTURE:
      case EMPTY_WIDTH:
      case NOP:
        relax(i.out, 0);
        break;
      case FAIL:
        break;
      case MATCH:
        minLength = Math.min(minLength, d);
        break;
      case RUNE:
      case RUNE1: {
        if ((i.arg & FOLD_CASE) !== 0 || i.runes === undefined) return undefined;
        const runes = i.runes;
        if (runes.length === 1) ranges.push([runes[0], runes[0]]);
        else if (runes.length % 2 === 0)
          for (let k = 0; k < runes.length; k += 2) ranges.push([runes[k], runes[k + 1]]);
        else return undefined;
        relax(i.out, 1);
        break;
      }
      case RUNE_ANY:
        ranges.push([0, MAX_RUNE]);
        relax(i.out, 1);
        break;
      case RUNE_ANY_NOT_NL:
        ranges.push([0, 0x9], [0xb, MAX_RUNE]);
        relax(i.out, 1);
        break;
      default:
        return undefined; // lookbehinds, or an instruction this analysis does not know
    }
  }
  if (!(minLength >= 1 && minLength < Infinity) || ranges.length === 0) return undefined;
  return { classBody: classBody(ranges), minLength };
}

/** Sorted, merged ranges as the body of a `u`-mode character class. */
function classBody(ranges: [number, number][]): string {
  ranges.sort((a, b) => a[0] - b[0]);
  let body = '';
  let [lo, hi] = ranges[0];
  const flush = (): void => {
    body += lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`;
  };
  for (const [a, b] of ranges.slice(1)) {
    if (a <= hi + 1) hi = Math.max(hi, b);
    else {
      flush();
      [lo, hi] = [a, b];
    }
  }
  flush();
  return body;
}

function hex(cp: number): string {
  return `\\u{${cp.toString(16)}}`;
}
