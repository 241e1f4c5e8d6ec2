/**
 * Explains a rejection: walks the schema beside the arguments and collects violations in the documented order —
 * at each object its missing required properties (schema order), then its declared properties (schema order,
 * each property's own violation before those inside it), then its unknown properties (input order).
 *
 * Runs only after ajv has rejected the arguments, so it never decides validity; it stops as soon as it holds
 * {@link MAX_VIOLATIONS} or has taken {@link MAX_WALK_STEPS} steps, which bounds the work on adversarial payloads. It understands the keywords a generated
 * schema uses plus their close relatives (`const`, type lists, `patternProperties`, `prefixItems`, `allOf`, boolean
 * schemas); anything else (`anyOf`, `$ref`, …) is left to the ajv error mapper.
 */
import { formatAccepts } from './ajv-instances';
import { jsonEqual } from './json-equal';
import { hasOwn } from './json-object';
import { compileLinearPattern, LinearRegExp } from '../regex/linear-regexp';
import { indexPath, keyPath } from './path';
import { isUnsafeInteger, typeIsInteger } from './safe-integer';
import { hasDuplicates } from './unique-items';
import { Violation } from './violation';
import * as v from './violation-messages';

/** The most violations collected for one call. */
export const MAX_VIOLATIONS = 20;

type Schema = Record<string, unknown>;

/**
 * The most schema-beside-value steps one explanation takes. A refusal whose violations are few and far apart, or
 * hidden under keywords the walker does not follow (`anyOf`, `not`, …), could otherwise make it visit every value
 * of a 1 MiB payload once per subschema; past the budget the caller explains with ajv's first error instead.
 */
export const MAX_WALK_STEPS = 100_000;

// Steps left in the current walk (the walk is synchronous: one at a time).
let stepsLeft = 0;

/** Collects up to {@link MAX_VIOLATIONS} violations of `value` against `schema`, in at most `maxSteps` steps. */
export function collectViolations(schema: unknown, value: unknown, maxSteps = MAX_WALK_STEPS): Violation[] {
  const out: Violation[] = [];
  stepsLeft = maxSteps;
  walk(schema, value, '', out);
  return out;
}

function isSchemaObject(s: unknown): s is Schema {
  return typeof s === 'object' && s !== null && !Array.isArray(s);
}

function isNumber(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x);
}

// Mirrors ajv's type checks: finite numbers only, `1.0` is an integer, `null` only matches "null".
function hasType(type: string, x: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof x === 'string';
    case 'number':
      return isNumber(x);
    case 'integer':
      return isNumber(x) && Number.isInteger(x);
    case 'boolean':
      return typeof x === 'boolean';
    case 'null':
      return x === null;
    case 'array':
      return Array.isArray(x);
    case 'object':
      return typeof x === 'object' && x !== null && !Array.isArray(x);
    default:
      return false;
  }
}

function typeMatches(type: unknown, x: unknown): boolean {
  if (typeof type === 'string') return hasType(type, x);
  if (Array.isArray(type)) return type.some((t) => typeof t === 'string' && hasType(t, x));
  return true;
}

/** Code points, as JSON Schema counts string length. */
function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

const regexCache = new Map<string, LinearRegExp | null>();

/** The pattern as ajv runs it (linear-time engine); `null` when it does not compile (ajv refused the schema then). */
export function patternRegExp(source: string): LinearRegExp | null {
  let re = regexCache.get(source);
  if (re === undefined) {
    try {
      re = compileLinearPattern(source);
    } catch {
      re = null;
    }
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(source, re);
  }
  return re;
}

/**
 * Like ajv: when the items declare only scalar types, elements of another type are left out (they are refused
 * by their type anyway), so that the refusal names those elements rather than their duplication.
 */
function hasDuplicateItems(items: readonly unknown[], itemSchema: unknown): boolean {
  const declared = isSchemaObject(itemSchema) ? itemSchema.type : undefined;
  const types = typeof declared === 'string' ? [declared] : Array.isArray(declared) ? declared : [];
  const scalarOnly = types.length > 0 && !types.some((t) => t === 'object' || t === 'array');
  return hasDuplicates(items, scalarOnly ? (item) => !typeMatches(declared, item) : undefined);
}

function full(out: Violation[]): boolean {
  return out.length >= MAX_VIOLATIONS || stepsLeft <= 0;
}

function push(out: Violation[], violation: Violation): void {
  if (!full(out)) out.push(violation);
}

function walk(schema: unknown, x: unknown, path: string, out: Violation[]): void {
  stepsLeft--;
  if (full(out) || schema === true) return;
  if (schema === false) {
    push(out, v.noValue(path));
    return;
  }
  if (!isSchemaObject(schema)) return;
  if (schema.type !== undefined && !typeMatches(schema.type, x)) {
    // A wrong type says it all: the value's other constraints are about a value of the declared type.
    push(out, v.invalidType(path, schema.type));
    return;
  }
  if (typeIsInteger(schema.type) && isUnsafeInteger(x)) {
    push(out, v.unsafeInteger(path));
    return;
  }
  if (hasOwn(schema, 'const') && !jsonEqual(x, schema.const)) push(out, v.constValue(path, schema.const));
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => jsonEqual(e, x)))
    push(out, v.enumValue(path, schema.enum));

  if (isNumber(x)) walkNumber(schema, x, path, out);
  else if (typeof x === 'string') walkString(schema, x, path, out);
  else if (Array.isArray(x)) walkArray(schema, x, path, out);
  else if (typeof x === 'object' && x !== null) walkObject(schema, x as Schema, path, out);

  if (Array.isArray(schema.allOf)) {
    for (const sub of schema.allOf) walk(sub, x, path, out);
  }
}

function walkNumber(schema: Schema, x: number, path: string, out: Violation[]): void {
  if (isNumber(schema.minimum) && x < schema.minimum) push(out, v.bound(path, 'minimum', schema.minimum));
  if (isNumber(schema.maximum) && x > schema.maximum) push(out, v.bound(path, 'maximum', schema.maximum));
  if (isNumber(schema.exclusiveMinimum) && x <= schema.exclusiveMinimum) {
    push(out, v.bound(path, 'exclusiveMinimum', schema.exclusiveMinimum));
  }
  if (isNumber(schema.exclusiveMaximum) && x >= schema.exclusiveMaximum) {
    push(out, v.bound(path, 'exclusiveMaximum', schema.exclusiveMaximum));
  }
}

function walkString(schema: Schema, x: string, path: string, out: Violation[]): void {
  if (isNumber(schema.minLength) && codePointLength(x) < schema.minLength)
    push(out, v.length(path, 'minLength', schema.minLength));
  if (isNumber(schema.maxLength) && codePointLength(x) > schema.maxLength)
    push(out, v.length(path, 'maxLength', schema.maxLength));
  if (typeof schema.pattern === 'string') {
    const re = patternRegExp(schema.pattern);
    if (re !== null && !re.test(x)) push(out, v.pattern(path, schema.pattern));
  }
  if (typeof schema.format === 'string' && !formatAccepts(schema.format, x)) push(out, v.format(path, schema.format));
}

function walkArray(schema: Schema, x: readonly unknown[], path: string, out: Violation[]): void {
  if (isNumber(schema.minItems) && x.length < schema.minItems)
    push(out, v.itemCount(path, 'minItems', schema.minItems));
  if (isNumber(schema.maxItems) && x.length > schema.maxItems)
    push(out, v.itemCount(path, 'maxItems', schema.maxItems));
  // Uniqueness of an array that is too long anyway is left for later: the check costs time on large payloads.
  const tooLong = isNumber(schema.maxItems) && x.length > schema.maxItems;
  if (schema.uniqueItems === true && !tooLong && hasDuplicateItems(x, schema.items)) push(out, v.uniqueItems(path));
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
  for (let i = 0; i < prefix.length && i < x.length && !full(out); i++) walk(prefix[i], x[i], indexPath(path, i), out);
  if (schema.items === false) {
    if (x.length > prefix.length) push(out, v.itemCount(path, 'items', prefix.length));
  } else if (schema.items !== undefined) {
    for (let i = prefix.length; i < x.length && !full(out); i++) walk(schema.items, x[i], indexPath(path, i), out);
  }
}

function walkObject(schema: Schema, x: Schema, path: string, out: Violation[]): void {
  const present = (key: string): boolean => hasOwn(x, key) && x[key] !== undefined;
  if (Array.isArray(schema.required)) {
    for (const key of schema.required) {
      if (full(out)) return;
      if (typeof key === 'string' && !present(key)) push(out, v.missingRequired(keyPath(path, key)));
    }
  }
  const properties = isSchemaObject(schema.properties) ? schema.properties : undefined;
  if (properties !== undefined) {
    for (const key of Object.keys(properties)) {
      if (full(out)) return;
      if (present(key)) walk(properties[key], x[key], keyPath(path, key), out);
    }
  }
  const patterns: [LinearRegExp, unknown][] = [];
  if (isSchemaObject(schema.patternProperties)) {
    for (const [source, sub] of Object.entries(schema.patternProperties)) {
      const re = patternRegExp(source);
      if (re !== null) patterns.push([re, sub]);
    }
  }
  const additional = schema.additionalProperties;
  if (patterns.length === 0 && (additional === undefined || additional === true)) return;
  for (const key of Object.keys(x)) {
    if (full(out)) return;
    let matched = properties !== undefined && hasOwn(properties, key);
    for (const [re, sub] of patterns) {
      if (re.test(key)) {
        matched = true;
        if (x[key] !== undefined) walk(sub, x[key], keyPath(path, key), out);
      }
    }
    if (matched) continue;
    if (additional === false) push(out, v.unknownParameter(keyPath(path, key)));
    else if (additional !== undefined && additional !== true) walk(additional, x[key], keyPath(path, key), out);
  }
}
