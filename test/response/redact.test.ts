import assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { FEW_STRINGS, hasFewStrings, matchesOutsideStrings, redactMatches } from '../../src/response/redact';
import { compileRedactPattern } from '../../src/response/redact-pattern';
import { compileLinearPattern } from '../../src/regex/linear-regexp';

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

/**
 * `value` with every match of `sources` replaced in each string value by the engine over that string alone, and how
 * many strings changed.
 */
function replacedOneByOne(value: unknown, sources: readonly string[]): { value: unknown; changed: number } {
  const engines = sources.map((source) => compileLinearPattern(source));
  let changed = 0;
  const visit = (node: unknown): unknown => {
    if (typeof node === 'string') {
      const replaced = engines.reduce((text, engine) => engine.replaceAll(text, '[redacted]'), node);
      if (replaced !== node) changed++;
      return replaced;
    }
    if (Array.isArray(node)) return node.map(visit);
    if (typeof node === 'object' && node !== null) {
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, visit(item)]));
    }
    return node;
  };
  return { value: visit(value), changed };
}

describe('redactMatches', () => {
  const SOURCES = ['\\b[0-9]{13,16}\\b', 'C-[0-9]{4}', '[a-z]+@[a-z]+\\.[a-z]{2,}', '^x', '\u{1F600}{2}', 'ab'];
  const piece = fc.constantFrom('4111111111111111', '41111', 'C-12', 'C-1234', 'a@b', 'a@b.io', 'x', ' ', '😀', 'ab');
  const strings = fc.array(piece, { maxLength: 6 }).map((parts) => parts.join(''));
  const response = fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      strings,
      fc.integer(),
      fc.array(tie('node'), { maxLength: 30 }),
      fc.dictionary(fc.constantFrom('a', 'b', 'note'), tie('node'), { maxKeys: 3 }),
    ),
  })).node;

  it('replaces exactly what a search of each string alone replaces, short strings and many strings included', () => {
    fc.assert(
      fc.property(response, fc.subarray(SOURCES, { minLength: 1 }), (value, sources) => {
        const expected = replacedOneByOne(value, sources);
        const patterns = sources.map((source) => compileRedactPattern(source));
        const { value: result, count } = redactMatches(structuredClone(value), patterns);
        assert.deepEqual(result, expected.value);
        assert.equal(count, expected.changed);
      }),
      { numRuns: 500 },
    );
  });

  it('counts each changed string once, whatever number of patterns match in it', () => {
    const value = { items: Array.from({ length: 5000 }, (_, i) => (i % 1000 === 7 ? 'C-1234 4111111111111111' : '1')) };
    const patterns = ['\\b[0-9]{13,16}\\b', 'C-[0-9]{4}'].map((source) => compileRedactPattern(source));
    const { count } = redactMatches(value, patterns);
    assert.equal(count, 5);
    assert.equal(value.items[7], '[redacted] [redacted]');
    assert.equal(value.items[8], '1');
  });

  it('reads only own members: an enumerable string on Object.prototype is neither redacted onto an object nor counted', () => {
    const card = '4111111111111111';
    Object.defineProperty(Object.prototype, 'inherited', {
      value: card,
      enumerable: true,
      configurable: true,
      writable: true,
    });
    try {
      const value = { a: { b: 'x' }, c: card };
      const { count } = redactMatches(value, [compileRedactPattern('\\b[0-9]{13,16}\\b')]);
      assert.equal(count, 1);
      assert.deepEqual(Object.keys(value.a), ['b']);
      assert.equal(value.c, '[redacted]');
    } finally {
      delete (Object.prototype as Record<string, unknown>).inherited;
    }
  });
});

/** `matchesOutsideStrings` with the value's own JSON text, which is short here unless the value is large. */
const outside = (value: unknown, patterns: Parameters<typeof matchesOutsideStrings>[1]) =>
  matchesOutsideStrings(value, patterns, JSON.stringify(value));

describe('matchesOutsideStrings', () => {
  const card = [compileRedactPattern('\\b[0-9]{13,16}\\b')];
  const items = Array.from({ length: 2000 }, (_, i) => `4111111111111111 ${i}`);

  it('finds a key or a number that matches, among many string values that match too', () => {
    for (const extra of [
      { n: 4111111111111111 },
      { '5500000000000004': '1' },
      { deep: [[{ x: [4111111111111111] }]] },
    ]) {
      assert.equal(outside({ items, ...extra }, card), true, JSON.stringify(extra));
    }
  });

  it('is false when only string values match', () => {
    assert.equal(outside({ items, n: 12, m: [1.5, -3e-7] }, card), false);
    assert.equal(outside({ s: '4111111111111111', n: 12 }, card), false); // short: the text matches, no key does
  });

  it('finds a key or a number in a short value, whose text it searches first', () => {
    assert.equal(outside({ s: 'x', n: 4111111111111111 }, card), true);
    assert.equal(outside({ s: 'x', n: 41111 }, card), false);
  });

  it('confirms a hit item by item: a match across two items of the searched list is none', () => {
    // the numbers are searched as [1234567,891011121314], where "7,8" spans two items: neither number holds it
    const spanning = [compileRedactPattern('7,8')];
    assert.equal(outside({ a: 1234567, b: 891011121314 }, spanning), false);
    assert.equal(outside({ 'k7,8': 1 }, spanning), true);
  });

  it('searches a key that JSON escapes as it is, in a short or a long value', () => {
    const spaced = [compileRedactPattern('4111\\s1111')];
    assert.equal(outside({ '4111\t1111': 1 }, spaced), true);
    assert.equal(outside({ items, '4111\t1111': 1 }, spaced), true);
    assert.equal(outside({ items, '4111\t1112': 1 }, spaced), false);
  });

  it('searches item by item for a pattern anchored to the ends', () => {
    const anchored = [compileRedactPattern('^[0-9]{16}$')];
    assert.equal(outside({ items, n: 4111111111111111 }, anchored), true);
    assert.equal(outside({ items, n: 41111111111111112 }, anchored), false);
    // a key is searched as it is, not as JSON writes it (quoted): its own ends anchor the pattern
    assert.equal(outside({ '4111111111111111': 1 }, anchored), true);
    assert.equal(outside({ '41111111111111112': 1 }, anchored), false);
  });
});
