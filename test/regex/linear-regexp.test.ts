/**
 * Declared patterns run on RE2 (linear time) with ECMAScript's meaning: the translation must agree with V8's
 * `RegExp(source, 'u')` on every pattern it accepts, and refuse, naming the construct, what RE2 cannot run.
 */
import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { generateInputSchema } from '../../src/schema';
import { compileToolSchema } from '../../src/validation';
import { compileLinearPattern, patternProblem } from '../../src/regex/linear-regexp';
import { runBounded } from '../validation/bounded';
import { ecmaTest } from '../validation/ecma-test';

const ATOMS = [
  'a',
  'b',
  '.',
  '\\d',
  '\\D',
  '\\w',
  '\\W',
  '\\s',
  '\\S',
  '[a-c]',
  '[^a]',
  '[]',
  '[^]',
  '\\u0061',
  '\\u{1F600}',
  '😀',
  'é',
  '\\x41',
  '\\cJ',
  '\\0',
  '\\.',
  '\\/',
  '[\\s\\d]',
  '[\\S]',
  '[^\\s]',
  '\\p{L}',
  '\\P{L}',
  '\\p{Lu}',
  '\\p{Letter}',
  '\\p{Script=Greek}',
  '[\\p{N}x]',
  '\\p{ASCII}',
  '\\p{Any}',
  '\\P{Any}',
  '[\\b]',
  '\\t',
  '\\n',
  '\\r',
  '\\v',
  '\\f',
  '[-a]',
  '[a-]',
  '\\ud83d\\ude00',
  '\\uD800',
  '$',
  '^',
  '\\b',
  '\\B',
  '-',
  ' ',
  '[\\^]',
  '\\u2028',
  '[\\u0000-\\u{10FFFF}]',
  '\\]',
  '\\{',
];
const QUANTIFIERS = ['', '', '*', '+', '?', '{2}', '{1,3}', '*?', '{0,}', '+?'];
const ANCHORS = new Set(['^', '$', '\\b', '\\B']);
const pattern: fc.Arbitrary<string> = fc.letrec((tie) => ({
  node: fc.oneof(
    { maxDepth: 3 },
    fc.tuple(fc.constantFrom(...ATOMS), fc.constantFrom(...QUANTIFIERS)).map(([a, q]) => (ANCHORS.has(a) ? a : a + q)),
    fc.tuple(tie('node'), tie('node')).map(([x, y]) => `${String(x)}${String(y)}`),
    fc.tuple(tie('node'), tie('node')).map(([x, y]) => `(${String(x)}|${String(y)})`),
    fc.tuple(tie('node'), fc.constantFrom(...QUANTIFIERS)).map(([x, q]) => `(?:${String(x)})${q}`),
    tie('node').map((x) => `(?<n>${String(x)})`),
  ),
})).node as fc.Arbitrary<string>;
const CHARS = [
  'a',
  'b',
  'c',
  'A',
  '\n',
  '\r',
  '\u2028',
  '\u2029',
  ' ',
  '\u00a0',
  '\ufeff',
  '\v',
  '\f',
  '1',
  '٣',
  'é',
  'α',
  '😀',
  '\ud83d',
  '\ude00',
  '.',
  '/',
  '-',
  '_',
  '^',
  '\0',
  '\b',
  'Ω',
  '\t',
  ']',
  '{',
];
const input = fc.array(fc.constantFrom(...CHARS), { maxLength: 8 }).map((a) => a.join(''));

describe('linear-time patterns', () => {
  it('agree with ECMAScript (unicode mode) on random patterns and inputs', () => {
    let compared = 0;
    fc.assert(
      fc.property(pattern, fc.array(input, { minLength: 4, maxLength: 4 }), (source, inputs) => {
        let sticky: RegExp;
        try {
          sticky = new RegExp(source, 'uy');
        } catch {
          return; // not a pattern at all: refused before the engine is asked
        }
        const linear = compileLinearPattern(source);
        for (const s of inputs) {
          assert.equal(linear.test(s), ecmaTest(sticky, s), `${JSON.stringify(source)} on ${JSON.stringify(s)}`);
          compared++;
        }
      }),
      { numRuns: 1500 },
    );
    assert.ok(compared > 1000);
  });

  it('follow the specification, not V8, for an empty match inside a surrogate pair', () => {
    assert.equal(new RegExp('\\B', 'u').exec('a😀a')?.index, 2, 'V8 tries the position inside the pair');
    assert.equal(ecmaTest(new RegExp('\\B', 'uy'), 'a😀a'), false);
    assert.equal(compileLinearPattern('(aa|(?<n>\\B))').test('a😀a'), false);
    assert.equal(compileLinearPattern('\\B').test('😀'), true);
  });

  it("keep ECMAScript's meaning where RE2's differs: dot, \\s, $ and empty classes", () => {
    const cases: [string, string, boolean][] = [
      ['^.$', '\r', false],
      ['^.$', '\u2028', false],
      ['^.$', '😀', true],
      ['^\\s$', '\u00a0', true],
      ['^\\s$', '\ufeff', true],
      ['^\\S$', '\v', false],
      ['^a$', 'a\n', false],
      ['[]', 'a', false],
      ['^[^]$', '\n', true],
      ['^\\d$', '٣', false],
      ['^\\w$', 'é', false],
      ['^\\p{Letter}+$', 'école', true],
      ['^\\u{1F600}$', '😀', true],
      ['^\\ud83d\\ude00$', '😀', true],
    ];
    for (const [source, s, expected] of cases)
      assert.equal(compileLinearPattern(source).test(s), expected, `${source} on ${JSON.stringify(s)}`);
  });

  it('refuse what RE2 cannot run, naming the construct', () => {
    const tail =
      ", which the gateway's linear-time regular expression engine does not support; rewrite the pattern without it";
    const cases: [string, string][] = [
      ['^(a)\\1$', 'uses a backreference \\1'],
      ['(?<x>a)\\k<x>', 'uses a backreference \\k<x>'],
      ['a(?=b)', 'uses a lookahead (?=…)'],
      ['a(?!b)', 'uses a negative lookahead (?!…)'],
      ['(?<=a)b', 'uses a lookbehind (?<=…)'],
      ['(?<!a)b', 'uses a negative lookbehind (?<!…)'],
      ['\\p{Alphabetic}', 'uses the Unicode property \\p{Alphabetic}'],
      ['\\p{scx=Greek}', 'uses the Unicode property \\p{scx=Greek}'],
      ['a{1001}', 'uses a repetition count above 1000 {1001}'],
      ['(a{100}){100}', 'uses a construct RE2 cannot compile (invalid repeat count: `{100}`)'],
    ];
    for (const [source, problem] of cases) assert.equal(patternProblem(source), `${problem}${tail}`, source);
    assert.equal(
      patternProblem('(['),
      'is not a valid ECMAScript (unicode mode) regular expression: Invalid regular expression: /([/u: Unterminated character class',
    );
    assert.equal(patternProblem('^[A-Z]{3}$'), undefined);
  });

  it('synthesis and raw schemas refuse such a pattern, naming the parameter or the schema location', () => {
    assert.throws(() => generateInputSchema({ code: { type: 'string', pattern: '^(a)\\1$' } }), {
      name: 'InputSpecError',
      message:
        'Invalid input spec at `code`: pattern "^(a)\\\\1$" uses a backreference \\1, which the gateway\'s linear-time regular expression engine does not support; rewrite the pattern without it',
    });
    assert.throws(
      () => generateInputSchema({ list: { type: 'array', items: { type: 'string', pattern: 'a(?=b)' } } }),
      /^InputSpecError: Invalid input spec at `list\[\]`: pattern "a\(\?=b\)" uses a lookahead/,
    );
    const raw = compileToolSchema({
      type: 'object',
      properties: { a: { type: 'object', properties: { 'b/c': { type: 'string', pattern: '(?<!x)y' } } } },
    });
    assert.deepEqual(raw, {
      ok: false,
      error:
        'input schema: pattern "(?<!x)y" at #/properties/a/properties/b~1c/pattern uses a negative lookbehind (?<!…), which the gateway\'s linear-time regular expression engine does not support; rewrite the pattern without it',
    });
    const keys = compileToolSchema({ type: 'object', additionalProperties: { patternProperties: { '(a)\\1': true } } });
    assert.equal(
      !keys.ok && keys.error,
      'input schema: pattern "(a)\\\\1" at #/additionalProperties/patternProperties uses a backreference \\1, which the gateway\'s linear-time regular expression engine does not support; rewrite the pattern without it',
    );
  });

  // Regression: `^(a+)+$` compiled and shipped; 29 characters blocked the loop 3.3 s. Run in a worker stopped after
  // a generous limit (bounded.ts), so that a return of the backtracking engine fails rather than hangs.
  it('refuse a 1 MiB near miss of ^(a+)+$ (generated and raw schema, pattern and patternProperties)', async function () {
    this.timeout(30_000);
    const messages = (await runBounded(`
      const { compileToolSchema } = require('./src/validation');
      const { generateInputSchema } = require('./src/schema');
      const evil = 'a'.repeat(${1 << 20}) + '!';
      const generated = compileToolSchema(generateInputSchema({ code: { type: 'string', pattern: '^(a+)+$' } }));
      const raw = compileToolSchema({ type: 'object', properties: { code: { anyOf: [{ type: 'string', pattern: '^(a+)+$' }] } },
        patternProperties: { '^(a+)+$': { type: 'integer' } } });
      return [generated.validator.validate({ code: evil }).message, raw.validator.validate({ code: evil }).message,
        raw.validator.validate({ [evil.slice(0, -1)]: 'x' }).message];`)) as string[];
    assert.deepEqual(messages, [
      'Invalid value for `code`: expected to match pattern ^(a+)+$',
      'Invalid value for `code`: expected to match one of the allowed schemas',
      `Invalid type for \`${'a'.repeat(64)}…\`: expected integer`,
    ]);
  });
});
