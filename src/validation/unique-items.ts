/**
 * `uniqueItems` in linear time, for every path that checks it (ajv, the subset compiler, the schema walker): each
 * element gets a structural hash (object members combined order-independently, so key order does not matter) and
 * goes into a bucket; only elements with equal hashes are compared, by JSON equality. ajv's own keyword compares
 * elements pairwise (about 7 s for a hostile 224 KiB array), and its scalar shortcut never finds two strings
 * `"__proto__"` equal; this one replaces it. Hashing allocates nothing per element, unlike a canonical text.
 *
 * The hash is seeded per process, so a caller cannot choose elements that collide; a collision only costs one
 * equality check.
 */
import type { KeywordDefinition } from 'ajv';
import { jsonEqual } from './json-equal';

const SEED = Math.floor(Math.random() * 0x40000000);
const FLOATS = new Float64Array(1);
const WORDS = new Uint32Array(FLOATS.buffer);

/** The murmur3 finalizer over `h` mixed with `k`: a non-linear combination of two 32-bit words. */
function mix(h: number, k: number): number {
  let x = (h ^ Math.imul(k, 0xcc9e2d51)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) & 0x3fffffff;
}

/** A 30-bit hash of a JSON value; equal values (in JSON Schema's sense: `1` and `1.0`, any key order) hash alike. */
export function jsonHash(x: unknown): number {
  switch (typeof x) {
    case 'string': {
      let h = mix(SEED, 1);
      for (let i = 0; i < x.length; i++) h = Math.imul(h ^ x.charCodeAt(i), 0x01000193);
      return mix(h, x.length);
    }
    case 'number':
      FLOATS[0] = x === 0 ? 0 : x; // -0 equals 0
      return mix(mix(SEED, 2 ^ WORDS[0]), WORDS[1]);
    case 'boolean':
      return mix(SEED, x ? 3 : 4);
    case 'object': {
      if (x === null) return mix(SEED, 5);
      if (Array.isArray(x)) {
        let h = mix(SEED, 6);
        for (const item of x) h = mix(h, jsonHash(item));
        return mix(h, x.length);
      }
      // A sum of member hashes: the same for every key order.
      let sum = 0;
      let count = 0;
      for (const key of Object.keys(x)) {
        sum = (sum + mix(jsonHash(key), jsonHash((x as Record<string, unknown>)[key]))) & 0x3fffffff;
        count++;
      }
      return mix(mix(SEED, 7 ^ sum), count);
    }
    default:
      return mix(SEED, 8);
  }
}

/**
 * Whether two elements of `items` are equal (`1` and `1.0` are; key order does not matter). Elements for which
 * `skip` holds are left out (the walker leaves out elements already refused by their type).
 */
export function hasDuplicates(items: readonly unknown[], skip?: (item: unknown) => boolean): boolean {
  const n = items.length;
  if (n < 2) return false;
  // An open-addressing table of element indices (a Map costs several times more per element).
  let size = 4;
  while (size < 2 * n) size *= 2;
  const mask = size - 1;
  const slots = new Int32Array(size).fill(-1);
  const hashes = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const item = items[i];
    if (skip?.(item) === true) continue;
    const h = jsonHash(item);
    let at = h & mask;
    for (let j = slots[at]; j !== -1; j = slots[at]) {
      if (hashes[j] === h && jsonEqual(items[j], item)) return true;
      at = (at + 1) & mask;
    }
    slots[at] = i;
    hashes[i] = h;
  }
  return false;
}

/** Replaces ajv's `uniqueItems` (remove that one first); its errors map as ajv's did. */
export const uniqueItemsKeyword: KeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  errors: false,
  validate: (on: boolean, data: unknown[]) => !on || !hasDuplicates(data),
};
