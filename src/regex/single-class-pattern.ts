/**
 * A fast path for the commonest shape of declared pattern: one character set repeated over the whole input,
 * `^[A-Za-z0-9_]+$`, `^\d{4,8}$`, `^(\p{L}|\d)*$`, and the same under a repeated group (`^(a+)+$` is `^a+$`). Such a pattern means "every code point is in SET and there
 * are between min and max of them", so it is run as one loop over the input's code points against a table of
 * SET's members, learnt from V8 one code point at a time and remembered (2 bits per BMP code unit, shared by every
 * pattern with the same set). Linear, and far cheaper than a regular expression engine on large Unicode classes: on
 * a megabyte near-miss of `^(\p{L}|\d)*$` both RE2 and V8 itself (a two-byte string pays V8's slow path for `\p{…}`
 * classes) take tens of times longer (bench/worst-case.ts). An alternation of single-character atoms is the
 * class of their union, so `(\p{L}|\d)*` becomes `[\p{L}\d]*` with the same meaning. Anything else goes to RE2
 * (`linear-regexp.ts`).
 */

/** One atom that matches exactly one character, as text usable inside `[…]` (in unicode mode). */
const CLASS_ESCAPE = String.raw`\\[dDwWsS]|\\[pP]\{[A-Za-z_=]+\}`;
/** A literal: a character with no special meaning, or an escaped syntax character. */
const LITERAL = String.raw`[^\\^$.*+?()[\]{}|/]|\\[\\^$.*+?()[\]{}|/-]`;
/** A bracket class without nested brackets, escapes limited to the ones above and syntax characters. */
const BRACKET = String.raw`\[\^?(?:[^\\\]\[]|\\[dDwWsS]|\\[pP]\{[A-Za-z_=]+\}|\\[\\^$.*+?()[\]{}|/-])+\]`;
const ATOM = `(?:${CLASS_ESCAPE}|${LITERAL})`;
const QUANTIFIER = String.raw`(?:[*+?]|\{\d{1,4}(?:,\d{0,4})?\})`;

// ^ (a bracket class | an atom | a group of atoms or non-negated bracket classes joined by |) quantifier $
const SHAPE = new RegExp(
  String.raw`^\^(?:(${BRACKET})|(${ATOM})|\((?:\?:)?((?:${ATOM}|${BRACKET})(?:\|(?:${ATOM}|${BRACKET}))*)\))(${QUANTIFIER})\$$`,
  'u',
);
const ALTERNATIVE = new RegExp(`${ATOM}|${BRACKET}`, 'gu');
/** The same set under an unbounded repetition inside a group under another one: `^(a+)+$`, `^((?:x|y)*)+$`. */
const NESTED = new RegExp(
  String.raw`^\^\((?:\?:)?(?:(${BRACKET})|(${ATOM})|\((?:\?:)?((?:${ATOM}|${BRACKET})(?:\|(?:${ATOM}|${BRACKET}))*)\))([*+])\)([*+])\$$`,
  'u',
);

/**
 * The V8 expression equivalent to `source` when it has the single-set shape above, `undefined` otherwise.
 * @example
 * singleClassPattern('^(\\p{L}|\\d)*$')?.source; // '^[\\p{L}\\d]*$'
 */
export function singleClassPattern(source: string): RegExp | undefined {
  return singleClassShape(source)?.regexp;
}

/** The parts of a single-class pattern: its set as a bracket class, the repetition bounds, the V8 expression. */
interface SingleClassShape {
  readonly set: string;
  readonly min: number;
  readonly max: number;
  readonly regexp: RegExp;
}

function singleClassShape(source: string): SingleClassShape | undefined {
  let match = SHAPE.exec(source);
  let quantifier: string;
  if (match !== null) quantifier = match[4];
  else {
    // `(S+)+` is `S+`, and `(S*)+`, `(S+)*`, `(S*)*` are `S*`: the nesting adds only ways to split the same text
    // (what makes a backtracking engine exponential), never another text.
    match = NESTED.exec(source);
    if (match === null) return undefined;
    quantifier = match[4] === '+' && match[5] === '+' ? '+' : '*';
  }
  const set = setOf(match[1], match[2], match[3]);
  if (set === undefined) return undefined;
  try {
    const regexp = new RegExp(`^${set}${quantifier}$`, 'u');
    return { set, ...bounds(quantifier), regexp };
  } catch {
    return undefined;
  }
}

/** The one bracket class a bracket class, an atom or a group of alternatives stands for; `undefined` if none. */
function setOf(bracket: string | undefined, atom: string | undefined, group: string | undefined): string | undefined {
  if (bracket !== undefined) return bracket;
  if (atom !== undefined) return `[${atom}]`;
  const parts = group?.match(ALTERNATIVE) ?? [];
  // A negated class cannot be merged into a union by concatenation.
  if (parts.some((p) => p.startsWith('[^'))) return undefined;
  // A `-` at either end of a part would make a range once the parts are side by side (`[_-]|😀` is not
  // `[_-😀]`): it is escaped.
  return `[${parts.map((p) => (p.startsWith('[') ? literalDashes(p.slice(1, -1)) : p === '-' ? '\\-' : p)).join('')}]`;
}

const CLASS_TOKEN = /\\[pP]\{[^}]*\}|\\.|./gsu;

/** A class's contents with a literal `-` at its start or end escaped, so that it stays literal beside others. */
function literalDashes(contents: string): string {
  const tokens = contents.match(CLASS_TOKEN) ?? [];
  if (tokens[0] === '-') tokens[0] = '\\-';
  if (tokens.length > 1 && tokens[tokens.length - 1] === '-') tokens[tokens.length - 1] = '\\-';
  return tokens.join('');
}

function bounds(quantifier: string): { min: number; max: number } {
  if (quantifier === '*') return { min: 0, max: Infinity };
  if (quantifier === '+') return { min: 1, max: Infinity };
  if (quantifier === '?') return { min: 0, max: 1 };
  const [low, high] = quantifier.slice(1, -1).split(',');
  const min = Number(low);
  return { min, max: high === undefined ? min : high === '' ? Infinity : Number(high) };
}

/**
 * Which code points are in a set: 2 bits each, 0 for not yet asked, 1 in, 2 out. The BMP (lone surrogates
 * included, as unicode mode reads them) is 16 KiB per distinct set, filled as inputs bring code units (at most
 * 65,536 questions); each astral plane another 16 KiB once an input reaches it, filled 256 code points at a time
 * by one run of V8 over them (a 1 MiB input of distinct astral code points costs 4,096 such runs once).
 */
interface SetTables {
  readonly bmp: Uint8Array;
  readonly astral: (Uint8Array | undefined)[];
}
const BMP_TABLES = new Map<string, SetTables>();
/** Beyond this many distinct sets, a new one gets its own table rather than one kept for every later pattern. */
const MAX_SHARED_TABLES = 1024;

/** A single-class pattern run by a loop over code points (see the module comment). */
export class SingleClassMatcher {
  private readonly tables: SetTables;
  /** `[SET]`, matching one code point. */
  private readonly one: RegExp;
  /** `[SET]` global, run over a block of 256 astral code points to learn which are members. */
  private readonly each: RegExp;

  private constructor(
    /** `^[SET]Q$`, as V8 would run it. */
    public readonly regexp: RegExp,
    set: string,
    private readonly min: number,
    private readonly max: number,
  ) {
    this.one = new RegExp(`^${set}$`, 'u');
    this.each = new RegExp(set, 'gu');
    let tables = BMP_TABLES.get(set);
    if (tables === undefined) {
      tables = { bmp: new Uint8Array(0x10000 / 4), astral: [] };
      if (BMP_TABLES.size < MAX_SHARED_TABLES) BMP_TABLES.set(set, tables);
    }
    this.tables = tables;
  }

  /** 1 when the astral code point `cp` is in the set, 2 when not (its block learnt on first use). */
  private astralState(cp: number): number {
    const plane = (cp >> 16) - 1;
    let table = this.tables.astral[plane];
    if (table === undefined) {
      table = new Uint8Array(0x10000 / 4);
      this.tables.astral[plane] = table;
    }
    const low = cp & 0xffff;
    const shift = (low & 3) << 1;
    const state = (table[low >> 2] >> shift) & 3;
    if (state !== 0) return state;
    const start = cp & ~0xff;
    let text = '';
    for (let k = 0; k < 256; k++) text += String.fromCodePoint(start + k);
    const members = new Uint8Array(256);
    this.each.lastIndex = 0;
    // every code point of the block is a surrogate pair: the match at index 2k is code point start + k
    for (let m = this.each.exec(text); m !== null; m = this.each.exec(text)) members[m.index >> 1] = 1;
    for (let k = 0; k < 256; k++) {
      const l = (start + k) & 0xffff;
      table[l >> 2] |= (members[k] === 1 ? 1 : 2) << ((l & 3) << 1);
    }
    return members[cp - start] === 1 ? 1 : 2;
  }

  /** The matcher for `source` when it has the single-class shape, `undefined` otherwise. */
  public static of(source: string): SingleClassMatcher | undefined {
    const shape = singleClassShape(source);
    return shape === undefined ? undefined : new SingleClassMatcher(shape.regexp, shape.set, shape.min, shape.max);
  }

  /** Whether the whole of `input` matches, as `regexp.test(input)` answers. */
  public test(input: string): boolean {
    const n = input.length;
    // Fewer code units than `min` cannot hold `min` code points; more than `max` × 2 cannot fit in `max`.
    if (n < this.min || n > this.max * 2) return false;
    const table = this.tables.bmp;
    let count = 0;
    for (let i = 0; i < n; i++) {
      const c = input.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
        const d = input.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          if (this.astralState(((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000) === 2) return false;
          i++;
          if (++count > this.max) return false;
          continue;
        }
      }
      const shift = (c & 3) << 1;
      let state = (table[c >> 2] >> shift) & 3;
      if (state === 0) {
        state = this.one.test(String.fromCharCode(c)) ? 1 : 2;
        table[c >> 2] |= state << shift;
      }
      if (state === 2 || ++count > this.max) return false;
    }
    return count >= this.min;
  }
}
