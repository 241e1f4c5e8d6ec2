/**
 * Turns ajv's all-errors output into violations of the documented shape, for rejections the schema walker cannot explain
 * (raw schemas using `anyOf`, `oneOf`, `not`, `$ref`, `if`/`then`, `dependentRequired`, …). Never passes ajv's
 * own text through: every keyword maps to a message in the documented style, unknown ones to a generic one.
 */
import type { ErrorObject } from 'ajv';
import { hasOwn } from './json-object';
import { indexPath, keyPath } from './path';
import { SAFE_INTEGER_KEYWORD } from './safe-integer';
import { MAX_VIOLATIONS } from './schema-walker';
import { Violation } from './violation';
import * as v from './violation-messages';

// Keywords whose subschema errors are noise once the keyword's own error is reported: the branches of a failed
// `anyOf` say why each branch failed, which is not what the caller must fix.
const SUMMARIZING = new Set(['anyOf', 'oneOf', 'not', 'contains', 'propertyNames']);

/** Decodes a JSON Pointer into the dotted path, using the data to tell array indices from keys. */
export function pointerToPath(pointer: string, data: unknown): string {
  if (pointer === '') return '';
  let path = '';
  let node: unknown = data;
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node) && /^(0|[1-9][0-9]*)$/.test(segment)) {
      path = indexPath(path, Number(segment));
      node = node[Number(segment)];
    } else {
      path = keyPath(path, segment);
      node =
        typeof node === 'object' && node !== null && hasOwn(node, segment)
          ? (node as Record<string, unknown>)[segment]
          : undefined;
    }
  }
  return path;
}

function num(x: unknown): number {
  return typeof x === 'number' ? x : Number(x);
}

function mapOne(e: ErrorObject, path: string): Violation | undefined {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'type':
      return v.invalidType(path, p.type);
    case 'required':
      return v.missingRequired(keyPath(path, String(p.missingProperty)));
    case 'dependentRequired':
    case 'dependencies':
      return v.missingRequired(keyPath(path, String(p.missingProperty)), e.keyword);
    case 'additionalProperties':
      return v.unknownParameter(keyPath(path, String(p.additionalProperty)));
    case 'unevaluatedProperties':
      return v.unknownParameter(keyPath(path, String(p.unevaluatedProperty)), 'unevaluatedProperties');
    case 'propertyNames':
      return v.invalidParameterName(keyPath(path, String(p.propertyName)));
    case 'enum':
      return v.enumValue(path, Array.isArray(p.allowedValues) ? p.allowedValues : []);
    case 'const':
      return v.constValue(path, p.allowedValue);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return v.bound(path, e.keyword, p.limit);
    case 'minLength':
    case 'maxLength':
      return v.length(path, e.keyword, num(p.limit));
    case 'pattern':
      return v.pattern(path, String(p.pattern));
    case 'format':
      return v.format(path, String(p.format));
    case 'minItems':
    case 'maxItems':
      return v.itemCount(path, e.keyword, num(p.limit));
    case 'items':
    case 'additionalItems':
      return v.itemCount(path, 'items', num(p.limit));
    case 'unevaluatedItems':
      return v.itemCount(path, 'unevaluatedItems', num(p.len));
    case 'uniqueItems':
      return v.uniqueItems(path);
    case 'minProperties':
    case 'maxProperties':
      return v.propertyCount(path, e.keyword, num(p.limit));
    case 'multipleOf':
      return v.multipleOf(path, p.multipleOf);
    case 'contains':
      return p.maxContains !== undefined && p.minContains === undefined
        ? v.containsCount(path, false, num(p.maxContains))
        : v.containsCount(path, true, p.minContains === undefined ? 1 : num(p.minContains));
    case 'anyOf':
      return v.invalidValue(path, 'anyOf', 'expected to match one of the allowed schemas');
    case 'oneOf':
      return Array.isArray(p.passingSchemas)
        ? v.invalidValue(path, 'oneOf', 'expected to match exactly one of the allowed schemas')
        : v.invalidValue(path, 'oneOf', 'expected to match one of the allowed schemas');
    case 'not':
      return v.invalidValue(path, 'not', 'expected not to match the disallowed schema');
    case 'false schema':
      return v.noValue(path);
    case SAFE_INTEGER_KEYWORD:
      return v.unsafeInteger(path);
    case 'if':
      return v.invalidValue(
        path,
        'if',
        `expected to match the "${p.failingKeyword === 'else' ? 'else' : 'then'}" schema`,
      );
    default:
      return v.schemaMismatch(path, /^[A-Za-z$][A-Za-z0-9_$-]{0,63}$/.test(e.keyword) ? e.keyword : 'schema');
  }
}

/** Every proper prefix of `schemaPath` that ends at a `/` (`#/`, `#/properties/`, …), shortest first. */
function* ancestors(schemaPath: string): Generator<string> {
  for (let i = schemaPath.indexOf('/'); i >= 0; i = schemaPath.indexOf('/', i + 1)) yield schemaPath.slice(0, i + 1);
}

/**
 * Maps ajv errors for `data` to at most {@link MAX_VIOLATIONS} violations, in ajv's order, without duplicates.
 *
 * Linear in the number of errors (each costs its schema path's length, which the schema bounds): the summarizing
 * keywords and the `if` keywords with inner errors are indexed by schema path first, rather than every error
 * scanning every other one; and an error is mapped (its instance path decoded) only when it may be reported.
 */
export function mapAjvErrors(errors: readonly ErrorObject[] | null | undefined, data: unknown): Violation[] {
  const all = errors ?? [];
  // Schema paths (with a trailing `/`) under which errors only repeat a summarizing keyword's own error.
  const summaries = new Set<string>();
  // Schema paths of the `if` keywords whose `then` or `else` reported errors of their own.
  const ifsWithInner = new Set<string>();
  for (const e of all) {
    if (SUMMARIZING.has(e.keyword)) summaries.add(`${e.schemaPath}/`);
    for (const prefix of ancestors(e.schemaPath)) {
      if (prefix.endsWith('/then/') || prefix.endsWith('/else/'))
        ifsWithInner.add(`${prefix.slice(0, -'then/'.length)}if`);
    }
  }
  const out: Violation[] = [];
  const seen = new Set<string>();
  for (const e of all) {
    if (out.length >= MAX_VIOLATIONS) break;
    if (summaries.size > 0 && isSummarized(e.schemaPath, summaries)) continue;
    // An `if` error only repeats that its `then`/`else` failed; the inner errors already say how.
    if (e.keyword === 'if' && ifsWithInner.has(e.schemaPath)) continue;
    const mapped = mapOne(e, pointerToPath(e.instancePath, data));
    if (mapped === undefined) continue;
    const key = `${mapped.path}\u0000${mapped.rule}\u0000${mapped.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(mapped);
  }
  return out;
}

function isSummarized(schemaPath: string, summaries: ReadonlySet<string>): boolean {
  for (const prefix of ancestors(schemaPath)) if (summaries.has(prefix)) return true;
  return false;
}
