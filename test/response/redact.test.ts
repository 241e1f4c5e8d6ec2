import assert from 'node:assert/strict';
import { FEW_STRINGS, hasFewStrings } from '../../src/response/redact';

describe('hasFewStrings', () => {
  it('is true for a small value of up to FEW_STRINGS strings, however long they are', () => {
    assert.equal(hasFewStrings({ id: 'C-1', note: 'a'.repeat(1 << 20) }), true);
    assert.equal(hasFewStrings({ items: Array.from({ length: FEW_STRINGS }, (_, i) => `s${i}`), n: 1 }), true);
    assert.equal(hasFewStrings('one string'), true);
  });

  it('is false past FEW_STRINGS strings, at any depth', () => {
    assert.equal(hasFewStrings({ a: { b: [Array.from({ length: FEW_STRINGS + 1 }, () => 'x')] } }), false);
  });

  it('is false for a value of many members that holds no string (not walked whole)', () => {
    const manyKeys = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, i]));
    assert.equal(hasFewStrings(manyKeys), false);
    assert.equal(hasFewStrings({ numbers: Array.from({ length: 10_000 }, (_, i) => i) }), false);
  });
});
