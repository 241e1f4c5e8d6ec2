/**
 * Where JSON Schema 2020-12 keeps subschemas, for the passes that walk a raw schema before ajv compiles it
 * (safe-integer marking, the pattern check). Values of other keywords (`const`, `enum`, `examples`, unknown
 * keywords) are data, never schemas.
 */
import { isJsonObject } from './json-object';

/** Keywords whose value is one schema. */
export const SCHEMA_VALUED: readonly string[] = [
  'additionalProperties',
  'items',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'additionalItems',
];
/** Keywords whose value is an array of schemas. */
export const SCHEMA_ARRAYS: readonly string[] = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** Keywords whose value maps names to schemas. */
export const SCHEMA_MAPS: readonly string[] = [
  'properties',
  'patternProperties',
  'dependentSchemas',
  '$defs',
  'definitions',
];

/** JSON Pointer escaping of one token. */
function token(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Calls `visit` with every schema object reachable from `schema` through the keywords above, and its location as a
 * JSON Pointer fragment (`#`, `#/properties/a`, …); stops at the first non-undefined result and returns it.
 */
export function findInSubschemas<T>(
  schema: unknown,
  visit: (s: Record<string, unknown>, at: string) => T | undefined,
  at = '#',
): T | undefined {
  if (!isJsonObject(schema)) return undefined;
  const found = visit(schema, at);
  if (found !== undefined) return found;
  for (const key of Object.keys(schema)) {
    const value = schema[key];
    let result: T | undefined;
    if (SCHEMA_VALUED.includes(key)) {
      result = findInSubschemas(value, visit, `${at}/${key}`);
    } else if (SCHEMA_ARRAYS.includes(key) && Array.isArray(value)) {
      for (let i = 0; i < value.length && result === undefined; i++)
        result = findInSubschemas(value[i], visit, `${at}/${key}/${i}`);
    } else if (SCHEMA_MAPS.includes(key) && isJsonObject(value)) {
      for (const name of Object.keys(value)) {
        result = findInSubschemas(value[name], visit, `${at}/${key}/${token(name)}`);
        if (result !== undefined) break;
      }
    }
    if (result !== undefined) return result;
  }
  return undefined;
}
