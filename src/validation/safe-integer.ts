/**
 * An `integer` is a JSON number in ±(2^53−1). Beyond that JavaScript (and most backends' JSON parsers)
 * cannot hold it exactly, so the gateway would forward a different number than the caller sent. ajv has no
 * option for that bound, so the schema ajv compiles carries a private keyword on every subschema whose `type`
 * admits integers but not other numbers; the subset compiler and the schema walker check the bound directly.
 */
import type { KeywordDefinition } from 'ajv';
import { isJsonObject } from './json-object';
import { SCHEMA_ARRAYS, SCHEMA_MAPS, SCHEMA_VALUED } from './subschemas';

/** The private keyword; never part of an advertised schema, only of the copy ajv compiles. */
export const SAFE_INTEGER_KEYWORD = 'x-cdktf-mcp-gateway-safe-integer';

/** Whether a number that is an integer lies outside ±(2^53−1); `false` for other values. */
export function isUnsafeInteger(x: unknown): boolean {
  return typeof x === 'number' && Number.isInteger(x) && !Number.isSafeInteger(x);
}

/** Whether a `type` value admits integers but no other numbers, so that the bound applies. */
export function typeIsInteger(type: unknown): boolean {
  if (type === 'integer') return true;
  return Array.isArray(type) && type.includes('integer') && !type.includes('number');
}

/** The ajv keyword: refuses an integer outside ±(2^53−1) where the schema's type asks for an integer. */
export const safeIntegerKeyword: KeywordDefinition = {
  keyword: SAFE_INTEGER_KEYWORD,
  type: 'number',
  schemaType: 'boolean',
  errors: false,
  validate: (on: boolean, data: number) => !on || !isUnsafeInteger(data),
};

/**
 * A copy of `schema` (JSON) with {@link SAFE_INTEGER_KEYWORD} on every subschema reached through an applicator
 * whose `type` asks for an integer. Values of other keywords (`const`, `enum`, `examples`, unknown keywords) are
 * data and stay as they are.
 */
export function markSafeIntegers(schema: unknown): unknown {
  if (!isJsonObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(schema)) {
    const value = schema[key];
    let copy: unknown = value;
    if (SCHEMA_VALUED.includes(key)) copy = markSafeIntegers(value);
    else if (SCHEMA_ARRAYS.includes(key) && Array.isArray(value)) copy = value.map(markSafeIntegers);
    else if (SCHEMA_MAPS.includes(key) && isJsonObject(value)) {
      const map: Record<string, unknown> = {};
      for (const name of Object.keys(value)) {
        Object.defineProperty(map, name, {
          value: markSafeIntegers(value[name]),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      copy = map;
    }
    Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
  }
  if (typeIsInteger(schema.type)) out[SAFE_INTEGER_KEYWORD] = true;
  return out;
}
