/**
 * Declared patterns (JSON Schema `pattern`, `patternProperties`: ECMAScript regular expressions, unicode mode) run
 * on RE2 (the `re2js` port), whose matching time is linear in the input's length: a pattern such as `^(a+)+$` can
 * no longer block the event loop (see docs/input-and-validation.md). ECMAScript syntax is translated to RE2's with the same meaning; what
 * RE2 cannot run (backreferences, lookaround) is refused with the construct named, so that synthesis and config
 * loading refuse the pattern rather than ship it.
 *
 * Where the two dialects differ the translation keeps ECMAScript's meaning: `.` excludes `\r`, U+2028 and U+2029
 * as well as `\n`; `\s` is ECMAScript's white space (Unicode spaces, U+FEFF, line terminators); `\u…` and `\c…`
 * become `\x{…}`; `[]` and `[^]` become explicit ranges; groups become non-capturing (a test needs no captures).
 * `\d`, `\w`, `\b` are ASCII in both. Unicode property tables are RE2's, which may lag V8's by a Unicode version.
 */
import type { RE2JS } from 're2js';
import { NativeShortcut } from './bounded-pattern';
import { SingleClassMatcher } from './single-class-pattern';

let engine: typeof RE2JS | undefined;

/** The RE2 engine, loaded on first use: a config whose patterns V8 answers never needs it. */
export function re2(): typeof RE2JS {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (engine ??= (require('re2js') as typeof import('re2js')).RE2JS);
}

/** A compiled pattern: `test` searches the whole input, as `RegExp.prototype.test` does. */
export interface LinearRegExp {
  /** Whether the pattern matches somewhere in `input`. */
  test(input: string): boolean;
  /** `input` with every match replaced by `replacement` (taken literally); `input` itself when nothing matches. */
  replaceAll(input: string, replacement: string): string;
  /** The ECMAScript source, as declared. */
  readonly source: string;
  /** `/source/u`, as ajv keys its patterns. */
  toString(): string;
  /**
   * Inputs up to this many UTF-16 units are answered by V8 itself (see bounded-pattern.ts), at about the cost of
   * one native search: narrowing such a search first only adds work. 0 for none.
   */
  readonly nativeLength: number;
}

/** A valid ECMAScript pattern that the linear-time engine cannot run; `construct` names what it does not support. */
export class UnsupportedPatternError extends Error {
  constructor(public readonly construct: string) {
    super(
      `uses ${construct}, which the gateway's linear-time regular expression engine does not support; rewrite the pattern without it`,
    );
    this.name = 'UnsupportedPatternError';
  }
}

// ECMAScript's \s: WhiteSpace and LineTerminator code points.
const WHITE_SPACE: readonly (readonly [number, number])[] = [
  [0x9, 0xd],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const MAX_CODE_POINT = 0x10ffff;

function hex(cp: number): string {
  return `\\x{${cp.toString(16)}}`;
}

/** Code point ranges as the inside of a character class, each code point written by `escape` (RE2's by default). */
export function classRanges(
  ranges: readonly (readonly [number, number])[],
  escape: (cp: number) => string = hex,
): string {
  return ranges.map(([a, b]) => (a === b ? escape(a) : `${escape(a)}-${escape(b)}`)).join('');
}

function complement(ranges: readonly (readonly [number, number])[]): [number, number][] {
  const out: [number, number][] = [];
  let next = 0;
  for (const [a, b] of ranges) {
    if (a > next) out.push([next, a - 1]);
    next = b + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

const SPACE_RANGES = classRanges(WHITE_SPACE);
const NON_SPACE_RANGES = classRanges(complement(WHITE_SPACE));
const ALL = `${hex(0)}-${hex(MAX_CODE_POINT)}`;
// `.` without the `s` flag: anything but a line terminator.
const DOT = `[^${hex(0xa)}${hex(0xd)}${hex(0x2028)}${hex(0x2029)}]`;

// ECMAScript's long General_Category names, for RE2, which knows the short ones.
const CATEGORY_NAMES: Readonly<Record<string, string>> = {
  Letter: 'L',
  Cased_Letter: 'LC',
  Uppercase_Letter: 'Lu',
  Lowercase_Letter: 'Ll',
  Titlecase_Letter: 'Lt',
  Modifier_Letter: 'Lm',
  Other_Letter: 'Lo',
  Mark: 'M',
  Combining_Mark: 'M',
  Nonspacing_Mark: 'Mn',
  Spacing_Mark: 'Mc',
  Enclosing_Mark: 'Me',
  Number: 'N',
  Decimal_Number: 'Nd',
  digit: 'Nd',
  Letter_Number: 'Nl',
  Other_Number: 'No',
  Punctuation: 'P',
  punct: 'P',
  Connector_Punctuation: 'Pc',
  Dash_Punctuation: 'Pd',
  Open_Punctuation: 'Ps',
  Close_Punctuation: 'Pe',
  Initial_Punctuation: 'Pi',
  Final_Punctuation: 'Pf',
  Other_Punctuation: 'Po',
  Symbol: 'S',
  Math_Symbol: 'Sm',
  Currency_Symbol: 'Sc',
  Modifier_Symbol: 'Sk',
  Other_Symbol: 'So',
  Separator: 'Z',
  Space_Separator: 'Zs',
  Line_Separator: 'Zl',
  Paragraph_Separator: 'Zp',
  Other: 'C',
  Control: 'Cc',
  cntrl: 'Cc',
  Format: 'Cf',
  Surrogate: 'Cs',
  Private_Use: 'Co',
  Unassigned: 'Cn',
};
const SHORT_CATEGORIES = new Set(Object.values(CATEGORY_NAMES));

/**
 * The class body (without brackets; `''` for the empty set) for `\p{…}` or `\P{…}`; refuses properties RE2 does
 * not have (binary properties other than `Any` and `ASCII`, `Script_Extensions`).
 */
function property(body: string, negated: boolean): string {
  const [name, value] = body.includes('=') ? body.split('=') : [undefined, body];
  let re2: string | undefined;
  if (name === undefined || name === 'General_Category' || name === 'gc') {
    if (SHORT_CATEGORIES.has(value)) re2 = value;
    else if (Object.prototype.hasOwnProperty.call(CATEGORY_NAMES, value)) re2 = CATEGORY_NAMES[value];
    else if (name === undefined && value === 'Any') return negated ? '' : ALL;
    else if (name === undefined && value === 'ASCII')
      return negated ? `${hex(0x80)}-${hex(MAX_CODE_POINT)}` : `${hex(0)}-${hex(0x7f)}`;
  } else if (name === 'Script' || name === 'sc') {
    re2 = value;
  }
  if (re2 === undefined) throw new UnsupportedPatternError(`the Unicode property \\p{${body}}`);
  return `\\${negated ? 'P' : 'p'}{${re2}}`;
}

/** Reads one code point of `source` at `i`: [code point, next index]. */
function codePointAt(source: string, i: number): [number, number] {
  const cp = source.codePointAt(i) as number;
  return [cp, i + (cp > 0xffff ? 2 : 1)];
}

const SYNTAX = new Set('^$\\.*+?()[]{}|/-'.split(''));

/** Translates one escape (at `i`, the backslash) to RE2, in or outside a class: [text, next index]. */
function escape(source: string, i: number, inClass: boolean): [string, number] {
  const c = source[i + 1];
  switch (c) {
    case 'd':
    case 'D':
    case 'w':
    case 'W':
      return [`\\${c}`, i + 2];
    case 'b':
      return [inClass ? hex(8) : '\\b', i + 2];
    case 'B':
      return ['\\B', i + 2];
    case 's':
      return [inClass ? SPACE_RANGES : `[${SPACE_RANGES}]`, i + 2];
    case 'S':
      return [inClass ? NON_SPACE_RANGES : `[${NON_SPACE_RANGES}]`, i + 2];
    case 't':
      return [hex(9), i + 2];
    case 'n':
      return [hex(0xa), i + 2];
    case 'v':
      return [hex(0xb), i + 2];
    case 'f':
      return [hex(0xc), i + 2];
    case 'r':
      return [hex(0xd), i + 2];
    case '0':
      return [hex(0), i + 2];
    case 'c':
      return [hex(source.charCodeAt(i + 2) % 32), i + 3];
    case 'x':
      return [hex(parseInt(source.slice(i + 2, i + 4), 16)), i + 4];
    case 'u': {
      if (source[i + 2] === '{') {
        const end = source.indexOf('}', i);
        return [hex(parseInt(source.slice(i + 3, end), 16)), end + 1];
      }
      const unit = parseInt(source.slice(i + 2, i + 6), 16);
      // A surrogate pair written as two escapes is one code point in unicode mode.
      if (unit >= 0xd800 && unit <= 0xdbff && /^\\u[dD][c-fC-F][0-9a-fA-F]{2}/.test(source.slice(i + 6, i + 12))) {
        const low = parseInt(source.slice(i + 8, i + 12), 16);
        return [hex((unit - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000), i + 12];
      }
      return [hex(unit), i + 6];
    }
    case 'p':
    case 'P': {
      const end = source.indexOf('}', i);
      const body = property(source.slice(i + 3, end), c === 'P');
      if (inClass || /^\\[pP]\{/.test(body)) return [body, end + 1];
      return [body === '' ? `[^${ALL}]` : `[${body}]`, end + 1];
    }
    case 'k':
      throw new UnsupportedPatternError(`a backreference ${source.slice(i, source.indexOf('>', i) + 1)}`);
    default:
      if (c >= '1' && c <= '9')
        throw new UnsupportedPatternError(`a backreference \\${/^[0-9]+/.exec(source.slice(i + 1))?.[0]}`);
      // An identity escape of a syntax character (the only ones unicode mode allows).
      if (SYNTAX.has(c)) return [hex(c.charCodeAt(0)), i + 2];
      throw new UnsupportedPatternError(`the escape \\${c}`);
  }
}

/** The RE2 text for `source`, a valid ECMAScript unicode-mode pattern. */
export function translate(source: string): string {
  let out = '';
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (c === '\\') {
      const [text, next] = escape(source, i, false);
      out += text;
      i = next;
    } else if (c === '[') {
      const [text, next] = characterClass(source, i);
      out += text;
      i = next;
    } else if (c === '(') {
      if (source[i + 1] !== '?') {
        out += '(?:';
        i += 1;
      } else if (source[i + 2] === ':') {
        out += '(?:';
        i += 3;
      } else if (source[i + 2] === '=' || source[i + 2] === '!') {
        throw new UnsupportedPatternError(
          `a ${source[i + 2] === '!' ? 'negative ' : ''}lookahead ${source.slice(i, i + 3)}…)`,
        );
      } else if (source[i + 2] === '<' && (source[i + 3] === '=' || source[i + 3] === '!')) {
        throw new UnsupportedPatternError(
          `a ${source[i + 3] === '!' ? 'negative ' : ''}lookbehind ${source.slice(i, i + 4)}…)`,
        );
      } else if (source[i + 2] === '<') {
        out += '(?:'; // a named group: its name only matters for captures
        i = source.indexOf('>', i) + 1;
      } else {
        throw new UnsupportedPatternError(`the group syntax ${source.slice(i, i + 3)}…`);
      }
    } else if (c === '{') {
      const end = source.indexOf('}', i);
      const counts = source.slice(i + 1, end);
      // RE2 caps repetition counts at 1000; ECMAScript has no cap.
      if (counts.split(',').some((n) => n !== '' && Number(n) > 1000)) {
        throw new UnsupportedPatternError(`a repetition count above 1000 {${counts}}`);
      }
      out += `{${counts}}`;
      i = end + 1;
    } else if (c === '.') {
      out += DOT;
      i += 1;
    } else if ('^$|)*+?'.includes(c)) {
      out += c;
      i += 1;
    } else {
      const [cp, next] = codePointAt(source, i);
      out += /[A-Za-z0-9_ ]/.test(c) ? c : hex(cp);
      i = next;
    }
  }
  return out;
}

/** Translates the class starting at `i` (`[`): [text, next index]. */
function characterClass(source: string, start: number): [string, number] {
  let i = start + 1;
  const negated = source[i] === '^';
  if (negated) i++;
  let body = '';
  while (source[i] !== ']') {
    if (source[i] === '\\') {
      const [text, next] = escape(source, i, true);
      body += text;
      i = next;
    } else if (source[i] === '-') {
      body += '-';
      i += 1;
    } else {
      const [cp, next] = codePointAt(source, i);
      body += /[A-Za-z0-9_ ]/.test(source[i]) ? source[i] : hex(cp);
      i = next;
    }
  }
  // `[]` matches nothing, `[^]` anything; RE2 has no empty class.
  if (body === '') return [negated ? `[${ALL}]` : `[^${ALL}]`, i + 1];
  // A `-` that is not between two atoms is a literal in ECMAScript; RE2 reads the same text alike.
  return [`[${negated ? '^' : ''}${body}]`, i + 1];
}

/** A pattern of one repeated character set, run by a loop over code points (see single-class-pattern.ts). */
class CachedPattern implements LinearRegExp {
  public readonly nativeLength = 0;
  private lastInput: string | undefined;
  private lastResult = false;

  constructor(
    public readonly source: string,
    private readonly matcher: SingleClassMatcher,
  ) {}

  public test(input: string): boolean {
    if (input !== this.lastInput) {
      this.lastResult = this.matcher.test(input);
      this.lastInput = input;
    }
    return this.lastResult;
  }

  public replaceAll(input: string, replacement: string): string {
    // Anchored at both ends without the `m` flag, the pattern's only possible match is the whole input.
    return this.test(input) ? replacement : input;
  }

  public toString(): string {
    return `/${this.source}/u`;
  }
}

class Re2Pattern implements LinearRegExp {
  // The last input and its verdict: a refusal runs the pattern twice on the same string (the verdict, then the
  // walker's explanation), and a long input costs RE2 tens of nanoseconds per character.
  private lastInput: string | undefined;
  private lastResult = false;
  private lastReplacement: string | undefined;
  private quotedReplacement = '';
  private program: RE2JS | undefined;

  /**
   * @param translated the pattern in RE2's syntax
   * @param native V8's answers on short strings, for a pattern of bounded backtracking (see bounded-pattern.ts)
   * @param program RE2's compiled program, or `undefined` to compile it on the first input V8 does not answer
   */
  constructor(
    public readonly source: string,
    private readonly translated: string,
    private readonly native: NativeShortcut | undefined,
    program: RE2JS | undefined,
  ) {
    this.program = program;
  }

  private get re(): RE2JS {
    return (this.program ??= re2().compile(this.translated));
  }

  get nativeLength(): number {
    return this.native?.testLength ?? 0;
  }

  public test(input: string): boolean {
    if (input !== this.lastInput) {
      this.lastResult =
        this.native !== undefined && input.length <= this.native.testLength
          ? this.native.test(input)
          : this.re.test(input);
      this.lastInput = input;
    }
    return this.lastResult;
  }

  public replaceAll(input: string, replacement: string): string {
    const native = this.native;
    // A long text replaced in chunk by chunk is tested chunk by chunk: a test of the whole first would read it twice.
    if (native?.replacesInChunks(input))
      return native.replaceInChunks(input, replacement, (piece) => this.re.test(piece));
    // Within the length V8 tests, its replacement costs what its test does: one pass, not a test and a replacement.
    if (native !== undefined && input.length <= native.testLength) return native.replaceAll(input, replacement);
    // The verdict first: most strings hold no match, and a test is cheaper than a matcher.
    if (!this.test(input)) return input;
    if (native !== undefined) return native.replaceAll(input, replacement);
    // A quoted replacement string, not a replacer function: RE2JS's function path costs about five times more.
    if (replacement !== this.lastReplacement) {
      this.lastReplacement = replacement;
      this.quotedReplacement = re2().quoteReplacement(replacement);
    }
    return this.re.matcher(input).replaceAll(this.quotedReplacement);
  }

  public toString(): string {
    return `/${this.source}/u`;
  }
}

/**
 * Compiles an ECMAScript (unicode mode) pattern for the linear-time engine.
 *
 * @throws SyntaxError when `source` is not a valid ECMAScript pattern in unicode mode
 * @throws UnsupportedPatternError when it is valid but uses something RE2 cannot run (names the construct)
 * @example
 * compileLinearPattern('^[A-Z]{3}$').test('ABC'); // true
 * compileLinearPattern('(a)\\1'); // throws: uses a backreference \1, which …
 */
export function compileLinearPattern(source: string): LinearRegExp {
  new RegExp(source, 'u');
  const single = SingleClassMatcher.of(source);
  if (single !== undefined) return new CachedPattern(source, single);
  const translated = translate(source);
  const native = NativeShortcut.of(source);
  // A bounded pattern repeats single characters a few times, without groups: within every limit RE2's parser
  // enforces, so its program can wait for an input long enough to need it (most never get one).
  if (native !== undefined) return new Re2Pattern(source, translated, native, undefined);
  try {
    return new Re2Pattern(source, translated, undefined, re2().compile(translated));
  } catch (err) {
    // E.g. nested repetitions whose product passes RE2's limit.
    const reason = err instanceof Error ? err.message.replace(/^error parsing regexp: /, '') : String(err);
    throw new UnsupportedPatternError(`a construct RE2 cannot compile (${reason})`);
  }
}

/**
 * Why `source` cannot be a declared pattern, as the end of a sentence starting with the pattern (`is not a valid …`,
 * `uses a backreference (\1), which …`); `undefined` when it can.
 */
export function patternProblem(source: string): string | undefined {
  try {
    compileLinearPattern(source);
    return undefined;
  } catch (err) {
    if (err instanceof UnsupportedPatternError) return err.message;
    return `is not a valid ECMAScript (unicode mode) regular expression: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** ajv's `code.regExp` option: every `pattern` and `patternProperties` of a raw schema runs on the linear engine. */
export function ajvRegExp(pattern: string): LinearRegExp {
  return compileLinearPattern(pattern);
}
// ajv names the engine in standalone code, which the gateway never generates.
ajvRegExp.code = 'ajvRegExp';
