import assert from 'node:assert/strict';
import { compileLinearPattern } from '../../src/validation/linear-regexp';
import { singleClassPattern } from '../../src/validation/single-class-pattern';

describe('single-class patterns (the V8 fast path of declared patterns)', () => {
  it('rewrites one repeated character set, an alternation of single characters included, to one class', () => {
    assert.equal(singleClassPattern('^(\\p{L}|\\d)*$')?.source, '^[\\p{L}\\d]*$');
    assert.equal(singleClassPattern('^[A-Za-z0-9_]+$')?.source, '^[A-Za-z0-9_]+$');
    assert.equal(singleClassPattern('^(?:a|[b-d]|\\.){2,5}$')?.source, '^[ab-d\\.]{2,5}$');
    assert.equal(singleClassPattern('^(x|-|y)+$')?.source, '^[x\\-y]+$', 'a lone - never becomes a range');
  });

  it('leaves every other shape to RE2', () => {
    for (const p of ['^A-[0-9]{4}$', '^(a+)+$', '(a|aa)*c', '^(a|[^b])*$', '[a-z]+', '^[a-z]+', '^(ab|c)*$', '^.*$']) {
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
});
