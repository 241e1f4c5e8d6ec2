/**
 * A redact pattern that runs the linear-time engine only where a match can be. RE2 (the `re2js` port) spends tens
 * of nanoseconds per character, and a shaped response is mostly text no pattern can match: a card-number pattern
 * cannot match in `order number 12 of the month`, yet RE2 reads every character of it to find that out.
 *
 * The pattern's compiled program says which characters a match can consume (its alphabet) and how many at least
 * (its shortest match). A match is a run of alphabet characters, so it lies inside a maximal run of them at least
 * that long; a loop over the character codes finds those runs in a short text ({@link RunScanner}), V8 in a long
 * one (one character class, repeated, tried only where a run starts: linear, see {@link runFinder}).
 * RE2 then runs on each run with
 * one character of context either side — a character outside the alphabet, or the text's end — so that `\b`,
 * `\B`, `^` and `$` see exactly the neighbours they see in the whole text, and no match can consume the context.
 * Runs close together are searched as one span (a substring bounded the same way), so RE2 is not called per word.
 * A string short enough for V8 itself to answer (a short pattern of bounded backtracking, see
 * validation/bounded-pattern.ts) is handed to the pattern at once: narrowing one native search only adds work.
 * The result is the same text RE2 makes over the whole input. A pattern whose program the analysis does not know
 * (or one that can match the empty string) runs on the whole text.
 */
import { classRanges, compileLinearPattern, re2, translate, type LinearRegExp } from '../regex/linear-regexp';

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
/** Texts up to this many UTF-16 units have their runs found by {@link RunScanner}, longer ones by V8. */
const SCANNED_CHARS = 4096;
/**
 * The shortest run V8 looks for, at most (a longer shortest match still lies in such a run). Any length costs the
 * same per character; the cap keeps the expression V8 compiles small.
 */
const MAX_RUN_LENGTH = 1024;

/** What the analysis of a pattern's program found. */
export interface PatternAlphabet {
  /** Every code point a match can consume: inclusive ranges, sorted, neither overlapping nor adjacent. */
  readonly ranges: readonly (readonly [number, number])[];
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
  private readonly scanner: RunScanner;
  private readonly runFinder: RegExp;

  constructor(
    private readonly matcher: LinearRegExp,
    public readonly alphabet: PatternAlphabet,
  ) {
    this.scanner = new RunScanner(alphabet);
    this.runFinder = runFinder(alphabet);
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
    let spanStart = -1;
    let spanEnd = -1;
    let found = 0;
    const stopped = this.forEachRun(input, (runStart, runEnd) => {
      const start = contextStart(input, runStart);
      if (wholeWhenDense && ++found >= DENSE_RUNS && runStart < found * DENSE_SPACING) {
        visit(spanStart >= 0 ? spanStart : start, input.length);
        return true;
      }
      const end = contextEnd(input, runEnd);
      if (spanStart >= 0 && start - spanEnd <= MERGE_GAP && end - spanStart <= SPAN_CHARS) {
        spanEnd = end;
        return false;
      }
      if (spanStart >= 0 && visit(spanStart, spanEnd)) return true;
      spanStart = start;
      spanEnd = end;
      return false;
    });
    if (!stopped && spanStart >= 0) visit(spanStart, spanEnd);
  }

  /**
   * Calls `visit` with each maximal run of the alphabet at least the shortest match long, until it returns true;
   * returns whether it did.
   * A short text is read by the loop over character codes, which passes over characters outside the alphabet
   * several times faster than V8's expression; a long one by the expression, which reads a run of the alphabet
   * faster than the loop (a hostile body is mostly runs).
   */
  private forEachRun(input: string, visit: (start: number, end: number) => boolean): boolean {
    if (input.length <= SCANNED_CHARS) return this.scanner.forEachRun(input, visit);
    const runs = this.runFinder;
    runs.lastIndex = 0;
    for (let run = runs.exec(input); run !== null; run = runs.exec(input)) {
      if (visit(run.index, run.index + run[0].length)) return true;
    }
    return false;
  }
}

/**
 * The expression that finds the maximal runs of alphabet characters at least the shortest match long. Tried only
 * where a run starts (the lookbehind), it reads each run once: `[A]{m,}` alone is tried again at every character
 * of a shorter run, m steps each, so a text of runs one short of m costs m²/2 steps per run.
 */
export function runFinder(alphabet: PatternAlphabet): RegExp {
  const body = classRanges(alphabet.ranges, unicodeEscape);
  const atLeast = Math.min(alphabet.minLength, MAX_RUN_LENGTH);
  return new RegExp(`(?<![${body}])[${body}]{${atLeast},}`, 'gu');
}

/** A code point as a `u`-mode expression writes it. */
function unicodeEscape(cp: number): string {
  return `\\u{${cp.toString(16)}}`;
}

/**
 * Finds the maximal runs of alphabet code points at least the shortest match long, in one pass over the text's
 * character codes: a table answers for ASCII, the ranges for the rest. A surrogate pair is one code point and a
 * lone surrogate one of its own, as in a `u`-mode expression.
 */
export class RunScanner {
  private readonly ascii = new Uint8Array(128);
  /** The alphabet's ranges above ASCII, as [lo, hi, lo, hi, …] in order. */
  private readonly wide: number[] = [];
  private readonly minLength: number;

  constructor(alphabet: PatternAlphabet) {
    this.minLength = alphabet.minLength;
    for (const [lo, hi] of alphabet.ranges) {
      for (let c = lo; c <= Math.min(hi, 127); c++) this.ascii[c] = 1;
      if (hi >= 128) this.wide.push(Math.max(lo, 128), hi);
    }
  }

  /** Calls `visit` with each run's [start, end) in UTF-16 units, in order, until it returns true; returns whether it did. */
  forEachRun(text: string, visit: (start: number, end: number) => boolean): boolean {
    const ascii = this.ascii;
    const minLength = this.minLength;
    const n = text.length;
    let start = -1;
    let count = 0;
    for (let i = 0; i < n;) {
      const unit = text.charCodeAt(i);
      let width = 1;
      let member: boolean;
      if (unit < 128) member = ascii[unit] !== 0;
      else {
        let cp = unit;
        if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < n) {
          const low = text.charCodeAt(i + 1);
          if (low >= 0xdc00 && low <= 0xdfff) {
            cp = (unit - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
            width = 2;
          }
        }
        member = this.inWide(cp);
      }
      if (member) {
        if (start < 0) {
          start = i;
          count = 0;
        }
        count++;
      } else if (start >= 0) {
        if (count >= minLength && visit(start, i)) return true;
        start = -1;
      }
      i += width;
    }
    return start >= 0 && count >= minLength && visit(start, n);
  }

  /** Whether a code point above ASCII is in the alphabet: a binary search of the ranges (a script has hundreds). */
  private inWide(cp: number): boolean {
    const wide = this.wide;
    let lo = 0;
    let hi = (wide.length >> 1) - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (cp < wide[mid << 1]) hi = mid - 1;
      else if (cp > wide[(mid << 1) + 1]) lo = mid + 1;
      else return true;
    }
    return false;
  }
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
  return { ranges: mergedRanges(ranges), minLength };
}

/** The ranges sorted, overlapping and adjacent ones merged. */
function mergedRanges(ranges: [number, number][]): [number, number][] {
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [[ranges[0][0], ranges[0][1]]];
  for (const [a, b] of ranges.slice(1)) {
    const last = merged[merged.length - 1];
    if (a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  return merged;
}
