/**
 * Patterns of bounded backtracking are tested and replaced by V8 in short strings and by RE2 in long ones: whichever
 * engine answers, `test` and `replaceAll` must answer as ECMAScript (unicode mode) does. Random patterns of the
 * bounded shape (single-character atoms, bounded repetitions, assertions) meet random inputs on both sides of each
 * length where the engines change over.
 */
import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import {
  boundedPattern,
  MAX_STEPS_PER_POSITION,
  NATIVE_TEST_STEPS,
  NativeShortcut,
} from '../../src/regex/bounded-pattern';
import { RE2JS } from 're2js';
import { compileLinearPattern, translate } from '../../src/regex/linear-regexp';
import { ecmaTest } from '../validation/ecma-test';

const ATOMS = [
  'a',
  'b',
  '0',
  '-',
  '\\d',
  '\\w',
  '\\s',
  '[a-c]',
  '[0-9]',
  '[\\d-]',
  '[\\s_]',
  '[\\b]',
  '\\.',
  '\\u0061',
  '\\u00e9',
  'é',
  '\\x41',
  '\\t',
  '\\n',
  '\\/',
  '\\cJ',
];
const QUANTIFIERS = ['', '', '?', '{2}', '{1,3}', '{0,2}', '{3,4}'];
const ASSERTIONS = ['^', '$', '\\b', '\\B'];
const item = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(fc.constantFrom(...ATOMS), fc.constantFrom(...QUANTIFIERS)).map(([a, q]) => a + q) },
  { weight: 1, arbitrary: fc.constantFrom(...ASSERTIONS) },
);
const boundedSource = fc.array(item, { minLength: 1, maxLength: 5 }).map((items) => items.join(''));

const CHARS = [
  'a',
  'b',
  'c',
  'A',
  '0',
  '1',
  '-',
  '.',
  ' ',
  '\n',
  '\t',
  '\u00a0',
  '\ufeff',
  'é',
  '😀',
  '\ud83d',
  '\ude00',
  '_',
  '/',
  '\b',
];
const shortInput = fc.array(fc.constantFrom(...CHARS), { maxLength: 12 }).map((a) => a.join(''));

describe('bounded patterns', () => {
  it('knows the usual redact and declared patterns and their cost in steps per position', () => {
    const cases: [string, number][] = [
      ['C-[0-9]{4}', 7],
      ['\\b[0-9]{13,16}\\b', 25],
      ['\\b\\d{3}-\\d{2}-\\d{4}\\b', 14],
      ['AKIA[0-9A-Z]{16}', 21],
      ['^[A-Z]{2}-\\d{4}$', 10],
      ['\\d{3}[-. ]?\\d{3}[-. ]?\\d{4}', 32],
      ['[0-9]{0,4}[0-9]{0,3}x', 59],
    ];
    for (const [source, steps] of cases) assert.equal(boundedPattern(source)?.stepsPerPosition, steps, source);
  });

  it('leaves every other pattern to RE2', () => {
    const others = [
      'a+', // unbounded repetitions: the steps per position grow with the input
      'a*b',
      'a{2,}',
      'a{1,3}?', // lazy
      '(ab){2}', // groups and alternation
      'a|b',
      '\\p{L}{3}', // what may match an astral character: a step over a surrogate pair costs V8 far more
      '[\\p{L}]',
      '.{3}',
      '[^a]{2}',
      '\\D{2}',
      '\\W',
      '\\S',
      '[\\S]',
      '😀{2}',
      'a😀',
      '[😀]',
      '\\u{1F600}',
      '\\ud83d',
      '[\\ud83d]',
      '\\uD83D\\uDE00?\\B', // one atom in unicode mode, so it can match empty (inside a pair, to V8)
      '[abcdefghijklmnopq]', // 17 members: a large class costs V8 more per step
      'a?', // can match the empty string
      '\\b',
      '^$',
      '[0-9]{0,5}[0-9]{0,3}x', // 71 steps per position
      '(?:a)',
      'a\\1',
      '\\0',
    ];
    for (const source of others) assert.equal(boundedPattern(source), undefined, source);
    assert.ok(MAX_STEPS_PER_POSITION < NATIVE_TEST_STEPS);
  });

  it('accepts only patterns whose RE2 program compiles, so compiling it on first need cannot fail', () => {
    // The highest repetitions a bounded pattern may have, beside the usual ones.
    const wide = fc
      .array(
        fc.oneof(
          fc.tuple(fc.constantFrom(...ATOMS), fc.constantFrom(...QUANTIFIERS, '{64}', '{0,64}', '{1,63}', '{32,33}')),
          fc.tuple(fc.constantFrom(...ASSERTIONS), fc.constant('')),
        ),
        { minLength: 1, maxLength: 6 },
      )
      .map((items) => items.map(([a, q]) => a + q).join(''));
    let qualified = 0;
    fc.assert(
      fc.property(wide, (source) => {
        try {
          new RegExp(source, 'u');
        } catch {
          return;
        }
        if (NativeShortcut.of(source) === undefined) return;
        qualified++;
        assert.doesNotThrow(() => RE2JS.compile(translate(source)), source);
      }),
      { numRuns: 3000 },
    );
    assert.ok(qualified > 500, `${qualified} bounded patterns`);
  });

  it('tests and replaces as ECMAScript does in short strings (V8) and long ones (RE2 tests, V8 replaces)', () => {
    // Which engine answered: V8 tests and replaces, or RE2 tests and V8 replaces.
    const seen = { v8: 0, mixed: 0, replaced: 0 };
    fc.assert(
      fc.property(boundedSource, fc.array(shortInput, { minLength: 3, maxLength: 3 }), (source, inputs) => {
        try {
          new RegExp(source, 'u');
        } catch {
          return; // not a pattern: refused before any engine runs
        }
        const native = NativeShortcut.of(source);
        if (native === undefined) return;
        const linear = compileLinearPattern(source);
        // The same texts padded past each length where the engines change over, the interesting parts at both ends.
        const unit = inputs[1] === '' ? 'a' : inputs[1];
        const padded = (length: number): string =>
          inputs[0] + unit.repeat(Math.ceil((length + 1) / unit.length)) + inputs[2];
        const texts = [...inputs, padded(native.testLength), padded(4 * native.testLength)];
        // Tests one after another (no state may carry over from one to the next), then replacements.
        for (const s of texts)
          assert.equal(linear.test(s), ecmaTest(new RegExp(source, 'uy'), s), `${source} on ${JSON.stringify(s)}`);
        for (const s of texts) {
          const label = `${JSON.stringify(source)} on ${JSON.stringify(s)}`;
          const replaced = linear.replaceAll(s, '[$&]');
          assert.equal(replaced, s.replace(new RegExp(source, 'gu'), '[$$&]'), label);
          if (s.length <= native.testLength) seen.v8++;
          else seen.mixed++;
          if (replaced !== s) seen.replaced++;
        }
      }),
      { numRuns: 1500 },
    );
    assert.ok(seen.v8 > 1000 && seen.mixed > 200 && seen.replaced > 300, JSON.stringify(seen));
  });

  it('takes a replacement literally on either engine', () => {
    // C-[0-9]{4} replaces on V8 at any length; C-[0-9]+ (unbounded) on RE2.
    for (const source of ['C-[0-9]{4}', 'C-[0-9]+']) {
      const pattern = compileLinearPattern(source);
      for (const s of ['id C-1234', `${'x'.repeat(100_000)} C-1234`]) {
        assert.ok(pattern.replaceAll(s, '$& $1 $$').endsWith(' $& $1 $$'), `${source} on ${s.slice(-12)}`);
      }
    }
  });

  it('replaces chunk by chunk in a long text exactly as ECMAScript does, matches at chunk edges included', () => {
    // Texts past four chunks of 4,096: near misses, with matches placed anywhere, often across a chunk's edge.
    const cases = [
      ['\\b[0-9]{13,16}\\b', '0123456789 ', ['4111111111111111', '41111111111111112', '5500 0000']],
      ['C-[0-9]{4}', 'C-123 ', ['C-1234', 'C-12345', 'xC-1234']],
      ['\\d{1,20}x', '0', ['x', '1x', '123456789012345678901x']],
      ['\\Bab\\b', 'a b ', ['zab', 'ab', 'zabc', 'zab.']],
      ['\\b\\d{3}-\\d{2}-\\d{4}\\b', '123-45-678 ', ['123-45-6789', '123-45-67890']],
    ] as const;
    fc.assert(
      fc.property(
        fc.nat(cases.length - 1),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: -24, max: 24 }), fc.nat(2)), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.integer({ min: 17_000, max: 30_000 }),
        (which, placements, length) => {
          const [source, unit, inserts] = cases[which];
          let text = unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
          for (const [chunk, shift, pick] of placements) {
            const at = Math.max(0, Math.min(text.length, chunk * 4096 + shift));
            text = text.slice(0, at) + inserts[pick % inserts.length] + text.slice(at);
          }
          const expected = text.replace(new RegExp(source, 'gu'), '#');
          assert.equal(compileLinearPattern(source).replaceAll(text, '#'), expected, source);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('replaces the match at the end of a megabyte of near misses, a bounded pattern at its highest cost', () => {
    // V8 replaces (it backtracks at most 63 steps a position; RE2's matcher carried 21 threads along every
    // character, about a second). The times are in the response benchmark; this holds the answer.
    assert.equal(boundedPattern('\\d{1,21}x')?.stepsPerPosition, 63);
    const pattern = compileLinearPattern('\\d{1,21}x');
    const text = `${'0'.repeat(1 << 20)}x`;
    assert.equal(pattern.replaceAll(text, '#'), `${'0'.repeat((1 << 20) - 21)}#`);
  });
});
