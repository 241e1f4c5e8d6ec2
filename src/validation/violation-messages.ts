/**
 * Builders for the per-violation texts documented in docs/input-and-validation.md, shared by the schema walker and the ajv error mapper so both
 * speak with one voice. Paths are already in the dotted form; values are never quoted, only schema-declared
 * names and limits.
 */
import { Violation } from './violation';

/** Schema-declared enum lists longer than this are shortened (`…, (+N more)`), so a message stays bounded. */
const MAX_LISTED_VALUES = 25;

function violation(path: string, rule: string, message: string): Violation {
  return Object.freeze({ path, rule, message });
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function literal(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text;
  } catch {
    return String(value);
  }
}

/** `Invalid value for \`path\`: <expectation>`, or `Invalid arguments: <expectation>` at the root. */
export function invalidValue(path: string, rule: string, expectation: string): Violation {
  const message = path === '' ? `Invalid arguments: ${expectation}` : `Invalid value for \`${path}\`: ${expectation}`;
  return violation(path, rule, message);
}

/** `Invalid type for \`path\`: expected integer` (`string or null` for a type list). */
export function invalidType(path: string, types: unknown): Violation {
  const list = Array.isArray(types) ? types.map(String) : String(types).split(',');
  const expected = list.join(' or ');
  const message =
    path === '' ? `Invalid arguments: expected ${expected}` : `Invalid type for \`${path}\`: expected ${expected}`;
  return violation(path, 'type', message);
}

/** `Missing required parameter: \`path\`` (rule `required`, or `dependentRequired`). */
export function missingRequired(path: string, rule = 'required'): Violation {
  return violation(path, rule, `Missing required parameter: \`${path}\``);
}

/** `Unknown parameter: \`path\`` (rule `additionalProperties`, or `unevaluatedProperties`). */
export function unknownParameter(path: string, rule = 'additionalProperties'): Violation {
  return violation(path, rule, `Unknown parameter: \`${path}\``);
}

/** `Invalid parameter name: \`path\`` — a key refused by `propertyNames`. */
export function invalidParameterName(path: string): Violation {
  return violation(path, 'propertyNames', `Invalid parameter name: \`${path}\``);
}

export function enumValue(path: string, allowed: readonly unknown[]): Violation {
  const shown = allowed.slice(0, MAX_LISTED_VALUES).map(literal).join(', ');
  const more = allowed.length > MAX_LISTED_VALUES ? `, … (+${allowed.length - MAX_LISTED_VALUES} more)` : '';
  return invalidValue(path, 'enum', `expected one of ${shown}${more}`);
}

export function constValue(path: string, allowed: unknown): Violation {
  return invalidValue(path, 'const', `expected exactly ${literal(allowed)}`);
}

const COMPARISON: Record<string, string> = {
  minimum: '>=',
  maximum: '<=',
  exclusiveMinimum: '>',
  exclusiveMaximum: '<',
};

export function bound(
  path: string,
  rule: 'minimum' | 'maximum' | 'exclusiveMinimum' | 'exclusiveMaximum',
  limit: unknown,
): Violation {
  return invalidValue(path, rule, `expected ${COMPARISON[rule]} ${limit}`);
}

export function length(path: string, rule: 'minLength' | 'maxLength', limit: number): Violation {
  return invalidValue(
    path,
    rule,
    `expected ${rule === 'minLength' ? 'at least' : 'at most'} ${plural(limit, 'character', 'characters')}`,
  );
}

/** The largest integer that JSON numbers carry exactly through the gateway: 2^53−1. */
const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * An integer outside ±(2^53−1): it cannot be forwarded exactly (see docs/input-and-validation.md). Rule `type`: the gateway's `integer`
 * is the exactly representable one.
 */
export function unsafeInteger(path: string): Violation {
  return invalidValue(path, 'type', `expected an integer between ${-SAFE} and ${SAFE}`);
}

export function pattern(path: string, source: string): Violation {
  return invalidValue(path, 'pattern', `expected to match pattern ${source}`);
}

export function format(path: string, name: string): Violation {
  return invalidValue(path, 'format', `expected format ${name}`);
}

export function itemCount(
  path: string,
  rule: 'minItems' | 'maxItems' | 'items' | 'unevaluatedItems',
  limit: number,
): Violation {
  return invalidValue(
    path,
    rule,
    `expected ${rule === 'minItems' ? 'at least' : 'at most'} ${plural(limit, 'item', 'items')}`,
  );
}

export function uniqueItems(path: string): Violation {
  return invalidValue(path, 'uniqueItems', 'expected unique items');
}

export function propertyCount(path: string, rule: 'minProperties' | 'maxProperties', limit: number): Violation {
  return invalidValue(
    path,
    rule,
    `expected ${rule === 'minProperties' ? 'at least' : 'at most'} ${plural(limit, 'property', 'properties')}`,
  );
}

export function multipleOf(path: string, factor: unknown): Violation {
  return invalidValue(path, 'multipleOf', `expected a multiple of ${factor}`);
}

export function containsCount(path: string, atLeast: boolean, limit: number): Violation {
  return invalidValue(
    path,
    'contains',
    `expected ${atLeast ? 'at least' : 'at most'} ${plural(limit, 'matching item', 'matching items')}`,
  );
}

/** A `false` schema: no value is accepted at this place. */
export function noValue(path: string): Violation {
  return invalidValue(path, 'false', 'expected no value');
}

/** The last resort when a rejection cannot be explained any better; never empty, never raw validator text. */
export function schemaMismatch(path: string, rule = 'schema'): Violation {
  return invalidValue(path, rule, 'expected to match the input schema');
}

/** Joins violations as documented: one → its text; several → the first 5 joined by `; ` and ` (+N more)`. */
export function joinMessages(violations: readonly Violation[]): string {
  if (violations.length === 1) return violations[0].message;
  const head = violations
    .slice(0, 5)
    .map((v) => v.message)
    .join('; ');
  return violations.length > 5 ? `${head} (+${violations.length - 5} more)` : head;
}
