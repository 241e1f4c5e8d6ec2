import Ajv, { type ErrorObject } from 'ajv';
import MANIFEST_SCHEMA from '../manifest.schema.json';
import { closest } from './known-props';
import type { ManifestProblem } from './manifest-yaml';

export { MANIFEST_SCHEMA };

/**
 * The manifest's own annotations, beside the JSON Schema keywords (editors ignore them):
 * - `x-message`: the reason reported for a failure of any keyword of that schema node (as the gateway config
 *   schema does), so a refusal reads `expected a boolean or { path }` rather than an ajv keyword dump; after a
 *   missing required key, what the node takes instead or why the key is needed;
 * - `x-keys`: the keys an `unknown key` message lists, when not all of `properties` (other spellings);
 * - `x-at`: the child key a failure of that node is reported at.
 */
const ANNOTATIONS = ['x-message', 'x-keys', 'x-at'];

const ajv = new Ajv({ allErrors: true, verbose: true, strictTypes: false });
for (const keyword of ANNOTATIONS) ajv.addKeyword({ keyword });
const validateManifest = ajv.compile(MANIFEST_SCHEMA);

/** Every place where `value` breaks the manifest schema, with a reason a user reads. */
export function schemaProblems(value: unknown): ManifestProblem[] {
  if (validateManifest(value)) return [];
  return validateManifest.errors!.filter(reported).map(problemOf);
}

/**
 * Whether an error is the one to report: a branch of an `anyOf`/`oneOf` failing is not a mistake by itself
 * (the `anyOf`/`oneOf` node reports it), nor is an `if` (its `then`/`else` does).
 */
function reported(error: ErrorObject): boolean {
  return error.keyword !== 'if' && !/\/(anyOf|oneOf)\/\d+(\/|$)/.test(error.schemaPath);
}

function problemOf(error: ErrorObject): ManifestProblem {
  const at = pointerSegments(error.instancePath);
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
  if (error.keyword === 'required') {
    const key = (error.params as { missingProperty: string }).missingProperty;
    const missing = `missing required key \`${key}\``;
    // the node's own message says what else it takes (`{ url } or { limit_store }`) or why the key is needed;
    // else the missing key's own schema says what it takes
    const hint = schema['x-message'] ?? takes((schema.properties as Record<string, unknown> | undefined)?.[key]);
    const reason = typeof hint === 'string' ? `${missing}: ${hint}` : missing;
    // said at the key that makes it required (`replicas` for `session_key`) when the node names one
    const child = schema['x-at'];
    return typeof child === 'string' ? { at: [...at, child], reason, named: at } : { at, reason };
  }
  if (error.keyword === 'additionalProperties') {
    const key = (error.params as { additionalProperty: string }).additionalProperty;
    const known = (schema['x-keys'] as string[] | undefined) ?? Object.keys(schema.properties ?? {});
    // the nearest known key (`validate_inputs`, `requried`, `baseUrl`): the list alone can be long to scan
    const near = closest(key, known);
    const hint = near === undefined ? '' : `, did you mean \`${near}\`?`;
    const reason = `unknown key \`${key}\`${hint} (expected one of: ${known.join(', ')})`;
    return { at: [...at, key], reason, atKey: true, ...(near === undefined ? {} : { near }) };
  }
  const reason = typeof schema['x-message'] === 'string' ? schema['x-message'] : defaultReason(error, schema);
  const child = schema['x-at'];
  return {
    at: typeof child === 'string' ? [...at, child] : at,
    reason: reason + quoteHint(error) + unquoteHint(error),
  };
}

/** What a key takes, from its schema: its `x-message`, its enum, or its description. */
function takes(keySchema: unknown): string | undefined {
  if (typeof keySchema !== 'object' || keySchema === null) return undefined;
  const { 'x-message': message, enum: values, description } = keySchema as Record<string, unknown>;
  if (typeof message === 'string') return message;
  if (Array.isArray(values)) return `expected one of ${values.join(', ')}`;
  // a description is a sentence for an editor's hover: here it follows a colon
  if (typeof description !== 'string') return undefined;
  return description.replace(/\.$/, '').replace(/^[A-Z](?=[a-z])/, (c) => c.toLowerCase());
}

/**
 * For a number or boolean where text goes (`services: [2024]`, `version: 1.10`), how YAML read it. The value is not
 * repeated: YAML's reading of it may differ from what was written (`1.1`), and it may be a secret's hash.
 */
function quoteHint(error: ErrorObject): string {
  if (error.keyword !== 'type') return '';
  const types = ([] as string[]).concat((error.params as { type: string | string[] }).type);
  const data: unknown = error.data;
  if (!types.includes('string') || (typeof data !== 'number' && typeof data !== 'boolean')) return '';
  return ` (YAML reads this as a ${typeof data}: put it in quotes)`;
}

/**
 * For text where a number or boolean goes (`port: "8081"`, `audit_log: "true"`), that the quotes made it text, when
 * without them YAML reads what the key takes: a decimal within the key's range (an integer where one is expected),
 * `true` or `false`, or one of the key's fixed values. The value is repeated: it is a number or a boolean, never a
 * secret.
 */
function unquoteHint(error: ErrorObject): string {
  if (typeof error.data !== 'string') return '';
  const text = error.data;
  let read = false;
  if (error.keyword === 'enum') {
    const unquoted = DECIMAL.test(text) ? Number(text) : text === 'true' ? true : text === 'false' ? false : undefined;
    read = unquoted !== undefined && (error.params as { allowedValues: unknown[] }).allowedValues.includes(unquoted);
  } else if (error.keyword === 'type') {
    const types = ([] as string[]).concat((error.params as { type: string | string[] }).type);
    const { minimum, maximum } = (error.parentSchema ?? {}) as { minimum?: number; maximum?: number };
    // unquoted, a number outside the key's range is refused too: the quotes are not what is wrong
    const decimal =
      DECIMAL.test(text) &&
      (minimum === undefined || Number(text) >= minimum) &&
      (maximum === undefined || Number(text) <= maximum);
    read =
      (types.includes('number') && decimal) ||
      (types.includes('integer') && decimal && Number.isInteger(Number(text))) ||
      (types.includes('boolean') && (text === 'true' || text === 'false'));
  }
  return read ? ` (the quotes make ${JSON.stringify(text)} a string: remove them)` : '';
}

/** A number as YAML 1.2 reads it in decimal (`8081`, `-1.5`, `1e6`); not `0x10`, `.inf` or `.nan`. */
const DECIMAL = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  boolean: 'a boolean (true or false)',
  integer: 'an integer',
  number: 'a number',
  object: 'a map',
  array: 'a list',
  null: 'nothing',
};

function defaultReason(error: ErrorObject, schema: Record<string, unknown>): string {
  switch (error.keyword) {
    case 'type': {
      const types = ([] as string[]).concat((error.params as { type: string | string[] }).type);
      return `expected ${types.map((t) => TYPE_NAMES[t] ?? t).join(' or ')}`;
    }
    case 'enum':
      return `expected one of ${(schema.enum as unknown[]).join(', ')}`;
    case 'const':
      return `expected ${JSON.stringify(schema.const)}`;
    case 'minimum':
    case 'maximum': {
      const what = TYPE_NAMES[schema.type as string] ?? 'a number';
      if (schema.minimum !== undefined && schema.maximum !== undefined) {
        return `expected ${what} between ${schema.minimum} and ${schema.maximum}`;
      }
      return `expected ${what} ${error.keyword === 'minimum' ? '>=' : '<='} ${schema[error.keyword]}`;
    }
    case 'minItems': {
      const limit = schema.minItems as number;
      return `expected at least ${limit} item${limit === 1 ? '' : 's'}`;
    }
    case 'pattern':
      return `expected to match ${schema.pattern}`;
    default:
      return error.message ?? 'is invalid';
  }
}

/** `/services/a~1b/tokens/0` → `['services', 'a/b', 'tokens', '0']`. */
function pointerSegments(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .split('/')
        .slice(1)
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A manifest key's construct prop: `timeout_ms` → `timeoutMs`. */
export function camelCase(key: string): string {
  return key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/**
 * `message`, a construct's refusal of props the manifest made, in the manifest's spelling: `headerTimeoutMs` reads
 * `header_timeout_ms`, as the user wrote it. A word the manifest itself holds (`written`: a parameter, an
 * operation, a path or a pattern of the user's), or one inside quotes, braces, a path or a query, stays as it is.
 */
export function inManifestTerms(message: string, written: ReadonlySet<string> = new Set()): string {
  return message.replace(/"[^"]*"|`[^`]*`|(?<![A-Za-z])'[^']*'|\{[^}]*\}|[^\s"`'{]+/g, (part) => {
    if (/^["`'{]/.test(part)) return part.startsWith("'") ? quotedProp(part, written) : part;
    return part.replace(/(?<![\w/?=&:-])[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+(?![\w/=-])/g, (word) =>
      written.has(word) ? word : (SPELLINGS.get(word) ?? word),
    );
  });
}

/** `'publishMode'`, a prop named alone in quotes, as `'publish_mode'`; any other quoted text as it is. */
function quotedProp(part: string, written: ReadonlySet<string>): string {
  const word = part.slice(1, -1);
  const spelled = written.has(word) ? undefined : SPELLINGS.get(word);
  return spelled === undefined ? part : `'${spelled}'`;
}

/** Each prop the manifest spells another way, by prop; not a spelling the manifest takes as it is (`maxLength`). */
const SPELLINGS: ReadonlyMap<string, string> = (() => {
  const keys = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (typeof node === 'object' && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'properties' && typeof value === 'object' && value !== null) {
          for (const name of Object.keys(value)) keys.add(name);
        }
        walk(value);
      }
    }
  };
  walk(MANIFEST_SCHEMA);
  const spellings = new Map<string, string>();
  for (const key of keys) if (key.includes('_') && !keys.has(camelCase(key))) spellings.set(camelCase(key), key);
  return spellings;
})();
