/**
 * JSON equality as JSON Schema defines it (`1` equals `1.0`, key order does not matter), reading own properties
 * only and calling nothing on the data; and the `enum` and `const` keywords built on it, which replace ajv's: ajv's
 * deep equality calls `valueOf`/`toString` when an object has such keys, so `{"valueOf": null}` made it throw and a
 * caller could turn a refusal into "could not be validated".
 */
import type { KeywordDefinition, ErrorObject } from 'ajv';
import { hasOwn } from './json-object';

/** JSON equality; never throws on JSON values, whatever their keys. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!hasOwn(b, k) || !jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

type ReportingValidate = ((data: unknown) => boolean) & { errors?: Partial<ErrorObject>[] };

// The errors carry the params and messages ajv's own keywords did: the error mapper and the meta-schema check read them.
function compileEnum(allowed: unknown[]): ReportingValidate {
  if (allowed.length === 0) throw new Error('enum must have non-empty array'); // ajv's own words
  const validate: ReportingValidate = (data) => {
    if (allowed.some((value) => jsonEqual(value, data))) return true;
    validate.errors = [
      { keyword: 'enum', params: { allowedValues: allowed }, message: 'must be equal to one of the allowed values' },
    ];
    return false;
  };
  return validate;
}

function compileConst(allowed: unknown): ReportingValidate {
  const validate: ReportingValidate = (data) => {
    if (jsonEqual(allowed, data)) return true;
    validate.errors = [{ keyword: 'const', params: { allowedValue: allowed }, message: 'must be equal to constant' }];
    return false;
  };
  return validate;
}

/** Replaces ajv's `enum` (remove that one first). */
export const enumKeyword: KeywordDefinition = {
  keyword: 'enum',
  schemaType: 'array',
  errors: true,
  compile: compileEnum,
};
/** Replaces ajv's `const` (remove that one first). */
export const constKeyword: KeywordDefinition = { keyword: 'const', errors: true, compile: compileConst };
