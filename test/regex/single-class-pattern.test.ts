import assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { compileLinearPattern } from '../../src/regex/linear-regexp';
import { singleClassPattern } from '../../src/regex/single-class-pattern';

describe('single-class patterns (the V8 fast path of declared patterns)', () => {
  it('rewrites one repeated character set, an alternation of single characters included, to one class', () => {
    assert.equal(singleClassPattern('^(\\p{L}|\\d)*$')?.source, '^[\\p{L}\\d]*$');
    assert.equal(singleClassPattern('^[A-Za-z0-9_]+$')?.source, '^[A-Za-z0-9_]+$');
    assert.equal(singleClassPattern('^(?:a|[b-d]|\\.){2,5}$')?.source, '^[ab-d\\.]{2,5}$');
    assert.equal(singleClassPattern('^(x|-|y)+$')?.source, '^[x\\-y]+$', 'a lone - never becomes a range');
    assert.equal(singleClassPattern('^([0-9_-]|😀)*$')?.source, '^[0-9_\\-😀]*$', "a class's last - neither");
    assert.equal(singleClassPattern('^(a|[-b])*$')?.source, '^[a\\-b]*$', 'nor its first');
    // a set repeated inside a repeated group is the set repeated: the nesting only adds ways to split a text
    assert.equal(singleClassPattern('^(a+)+$')?.source, '^[a]+$');
    assert.equal(singleClassPattern('^(?:[a-z]+)*$')?.source, '^[a-z]*$');
    assert.equal(singleClassPattern('^((?:x|y)*)+$')?.source, '^[xy]*$');
  });

  it('leaves every other shape to RE2', () => {
    for (const p of [
      '^A-[0-9]{4}$',
      '^(a+)$',
      '^(a{2})+$',
      '^(ab+)+$',
      '^(a+)?$',
      '(a|aa)*c',
      '^(a|[^b])*$',
      '[a-z]+',
      '^[a-z]+',
      '^(ab|c)*$',
      '^.*$',
    ]) {
      assert.equal(singleClassPattern(p), undefined, p);
    }
  });

  it('means what the declared pattern means, on every sample', () => {
    const samples = ['', 'a', 'aé1', 'x-y', '-', 'abc!', 'Ü', '😀', '12345', '1234567890', 'a\n', '.', 'b'];
    for (const p of [
      '^(\\p{L}|\\d)*$',
      '^(x|-|y)+$',
      '^(?:a|[b-d]|\\.){2,5}$',
      '^\\d{4,8}$',
      '^[^@]+$',
      '^\\p{Lu}?$',
    ]) {
      const fast = compileLinearPattern(p);
      const reference = new RegExp(p, 'u');
      for (const s of samples) assert.equal(fast.test(s), reference.test(s), `${p} on ${JSON.stringify(s)}`);
    }
  });

  it('agree with ECMAScript (unicode mode) on random single-class patterns and hostile inputs', () => {
    const atoms = [
      '\\p{L}',
      '\\P{L}',
      '\\d',
      '\\D',
      '\\w',
      '\\s',
      '\\S',
      '\\p{Lu}',
      '\\p{Nd}',
      'a',
      '-',
      '\\.',
      'é',
      '😀',
    ];
    const brackets = ['[a-z]', '[^a-z]', '[\\p{L}\\d]', '[^\\s]', '[0-9_-]', '[\\u2028]', '[😀-😂]', '[^\\p{Lu}]'];
    const quantifiers = ['*', '+', '?', '{3}', '{0,2}', '{2,}', '{1,5}'];
    const set = fc.oneof(
      fc.constantFrom(...brackets),
      fc.constantFrom(...atoms),
      fc
        .array(fc.constantFrom(...atoms, ...brackets.filter((b) => !b.startsWith('[^'))), {
          minLength: 2,
          maxLength: 4,
        })
        .map((parts) => `(${parts.join('|')})`),
    );
    const single = fc.tuple(set, fc.constantFrom(...quantifiers)).map(([s, q]) => `^${s}${q}$`);
    // nested repetitions of one set, `^(S+)+$` and the like, some of which are not the single-class shape
    const nested = fc
      .tuple(
        set,
        fc.constantFrom('*', '+', '?', '{2}'),
        fc.constantFrom('', '?:'),
        fc.constantFrom('*', '+', '?', '{1,3}'),
      )
      .map(([s, inner, capture, outer]) => `^(${capture}${s}${inner})${outer}$`);
    const source = fc.oneof(single, nested);
    const chars = [
      '1',
      'a',
      'Z',
      'é',
      'ā',
      'Ω',
      '\u2028',
      ' ',
      '\n',
      '-',
      '_',
      '.',
      '😀',
      '😁',
      '𝐀',
      '\ud83d',
      '\ude00',
      '\0',
    ];
    const input = fc.array(fc.constantFrom(...chars), { maxLength: 9 }).map((a) => a.join(''));
    let fast = 0;
    fc.assert(
      fc.property(source, fc.array(input, { minLength: 6, maxLength: 6 }), (p, inputs) => {
        if (singleClassPattern(p) !== undefined) fast++;
        const linear = compileLinearPattern(p);
        const reference = new RegExp(p, 'u');
        for (const s of inputs) {
          assert.equal(linear.test(s), reference.test(s), `${p} on ${JSON.stringify(s)}`);
          assert.equal(
            linear.replaceAll(s, '<x>'),
            s.replace(new RegExp(p, 'gu'), () => '<x>'),
            `${p} replacing`,
          );
        }
      }),
      { numRuns: 2000 },
    );
    assert.ok(fast > 1000, `${fast} patterns took the fast path`);
  });

  it('answer a 1 MiB near miss of ^(\\p{L}|\\d)*$ in two-byte, astral and every-code-unit strings', () => {
    const re = compileLinearPattern('^(\\p{L}|\\d)*$');
    const MIB = 1 << 20;
    const everyUnit = Array.from({ length: 0x10000 }, (_, c) => String.fromCharCode(c)).join('');
    for (const [input, expected] of [
      ['1'.repeat(MIB - 1) + '\u2028', false],
      ['1'.repeat(MIB - 1) + 'ā', true],
      ['𝐀'.repeat(MIB / 2 - 1) + '1', true],
      ['𝐀'.repeat(MIB / 2 - 1) + '😀', false],
      [everyUnit.repeat(16), false],
      // 512 Ki distinct astral code points, through every astral block in planes 1 to 8
      [Array.from({ length: MIB / 2 }, (_, k) => String.fromCodePoint(0x10000 + k)).join(''), false],
    ] as const) {
      assert.equal(re.test(input), expected);
      assert.equal(re.test(input), new RegExp(re.source, 'u').test(input));
    }
  });
});
