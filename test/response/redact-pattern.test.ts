/**
 * The windowed redact pattern gives exactly the answers of the linear-time engine over the whole text: random
 * patterns of the shapes users write (word boundaries, anchors, classes, alternations, repetitions) against random
 * text built from the characters those patterns care about, surrogate pairs and lone surrogates included.
 */
import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { compileRedactPattern, patternAlphabet, RunScanner, runFinder } from '../../src/response';
import { compileLinearPattern } from '../../src/regex/linear-regexp';

const PATTERNS = [
  '\\b[0-9]{13,16}\\b',
  '\\b\\d{3}-\\d{2}-\\d{4}\\b',
  '[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}',
  'sk_live_[A-Za-z0-9]{4}',
  '^secret',
  'token$',
  '^[a-z]+$',
  '\\Bab',
  'ab\\B',
  'x(?:y|zz)+',
  '[^ ]{5}',
  '(?:\\d[ -]?){4,6}\\d',
  'é+',
  '\u{1F600}{2}',
  '[\\u{1F600}-\\u{1F64F}]a',
  'a.b',
  '\\s{2,}',
  '[\\s\\S]{3}z',
];

const ALPHABET = [
  'a',
  'b',
  'x',
  'y',
  'z',
  '0',
  '1',
  '9',
  '-',
  ' ',
  '.',
  '@',
  'é',
  '\u{1F600}',
  '\ud800',
  '\udc00',
  '\n',
  '_',
  'A',
];
const text = fc
  .array(
    fc.oneof(fc.constantFrom(...ALPHABET), fc.constantFrom('secret', 'token', 'sk_live_', '4111111111111111', 'ab')),
    {
      maxLength: 120,
    },
  )
  .map((parts) => parts.join(''));

describe('windowed redact patterns', () => {
  it('knows the alphabet and the shortest match of the usual patterns', () => {
    assert.deepEqual(patternAlphabet('\\b[0-9]{13,16}\\b'), { ranges: [[0x30, 0x39]], minLength: 13 });
    assert.equal(patternAlphabet('sk_live_[A-Za-z0-9]{4}')?.minLength, 12);
    assert.equal(patternAlphabet('[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}')?.minLength, 6);
    // Every pattern of this file is windowed: none falls back to reading whole texts.
    for (const source of PATTERNS) assert.notEqual(compileRedactPattern(source).alphabet, undefined, source);
  });

  it('finds in a short text the runs V8 finds in a long one, surrogates included', () => {
    for (const source of PATTERNS) {
      const alphabet = patternAlphabet(source)!;
      const expression = runFinder(alphabet);
      const scanner = new RunScanner(alphabet);
      fc.assert(
        fc.property(text, (input) => {
          const found: number[] = [];
          scanner.forEachRun(input, (start, end) => {
            found.push(start, end);
            return false;
          });
          const expected = [...input.matchAll(expression)].flatMap((m) => [m.index, m.index + m[0].length]);
          assert.deepEqual(found, expected, `${source} on ${JSON.stringify(input)}`);
        }),
        { numRuns: 300 },
      );
    }
  });

  it('test and replaceAll answer as the engine does over the whole text', () => {
    const compiled = PATTERNS.map((source) => [compileRedactPattern(source), compileLinearPattern(source)] as const);
    fc.assert(
      fc.property(text, fc.nat(compiled.length - 1), (input, which) => {
        const [windowed, whole] = compiled[which];
        assert.equal(windowed.test(input), whole.test(input), `${windowed.source} on ${JSON.stringify(input)}`);
        assert.equal(
          windowed.replaceAll(input, '[redacted]'),
          whole.replaceAll(input, '[redacted]'),
          `${windowed.source} on ${JSON.stringify(input)}`,
        );
      }),
      { numRuns: 3000 },
    );
  });

  it('searches long texts with matches far apart, as the engine does', () => {
    const card = compileRedactPattern('\\b[0-9]{13,16}\\b');
    const plain = compileLinearPattern('\\b[0-9]{13,16}\\b');
    const long = `${'a1 '.repeat(50_000)}4111111111111111 ${'b'.repeat(100_000)}x4111111111111111 5500000000000004`;
    assert.equal(card.replaceAll(long, '[redacted]'), plain.replaceAll(long, '[redacted]'));
    assert.ok(card.replaceAll(long, '[redacted]').endsWith('x4111111111111111 [redacted]'));
    assert.equal(card.replaceAll(long, '[redacted]').split('[redacted]').length, 3);
  });

  it('finds runs one short of the shortest match, and the match among them, as the engine does', () => {
    // A text of runs one shorter than the shortest match is where a search for runs works hardest.
    for (const [source, unit] of [
      ['\\b[0-9]{13,16}\\b', '0'],
      ['C-[0-9]{4}', 'C-123'],
      ['[a-z]+@[a-z]+\\.[a-z]{2,}', 'a@b.'],
      ['\u{1F600}{3}', '\u{1F600}'],
    ] as const) {
      const windowed = compileRedactPattern(source);
      const whole = compileLinearPattern(source);
      const shortest = windowed.alphabet?.minLength ?? 0;
      assert.ok(shortest > 1, source);
      const nearMiss = Array.from({ length: 2000 }, () => [...unit.repeat(shortest)].slice(0, shortest - 1).join(''));
      for (const input of [nearMiss.join(' '), [...nearMiss, unit.repeat(20)].join(' '), nearMiss.join('')]) {
        assert.equal(windowed.test(input), whole.test(input), `${source} on ${input.length} characters`);
        assert.equal(windowed.replaceAll(input, '[redacted]'), whole.replaceAll(input, '[redacted]'), source);
      }
    }
  });

  it('tests a text of dense runs whole past the first few hundred, with a match on either side of the switch', () => {
    // Runs a few characters apart: the test hands the rest of the text to the engine after 256 of them, from the
    // start of the span it was building, so a match in that span, in the run that tips it or after must be found.
    for (const source of ['\\bo-42\\b', 'o-42', '\\Bo-42']) {
      const windowed = compileRedactPattern(source);
      const whole = compileLinearPattern(source);
      for (let at = 200; at < 320; at++) {
        const filler = ['o-44', 'o-22', 'o-24', 'o-444'];
        const input = Array.from({ length: 400 }, (_, i) => (i === at ? 'o-42' : filler[i % 4])).join(' x ');
        assert.equal(windowed.test(input), whole.test(input), `${source} with the match in run ${at}`);
        assert.equal(windowed.test(input), source !== '\\Bo-42', `${source} with the match in run ${at}`);
      }
    }
  });

  it('tests a long text of close runs span by span, as the engine does, wherever the match is', () => {
    // runs of the alphabet every few characters: one span without a bound on its length
    const close = (n: number) => Array.from({ length: n }, (_, i) => `o-${i} x`).join(' ');
    for (const source of ['o-[0-9]+\\b', '\\bo-9{5}\\b', '^o-0 ', ' x$', 'o-12 x o-13']) {
      const windowed = compileRedactPattern(source);
      const whole = compileLinearPattern(source);
      for (const input of [close(5000), `${close(5000)} o-99999`, `o-99999 ${close(5000)}`, `${close(3000)}!`]) {
        assert.equal(windowed.test(input), whole.test(input), `${source} on ${input.length} characters`);
        assert.equal(windowed.replaceAll(input, '[redacted]'), whole.replaceAll(input, '[redacted]'), source);
      }
    }
  });
});
