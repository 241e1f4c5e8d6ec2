/**
 * What a message about a service's response may name: only keys its output schema declares. A key the service
 * chose (an undeclared field, any key of an open map) can carry data (an email as a map key, a card number as a
 * field name), so it is written `*`; array indices stay. Refusals of an unknown field read
 * ``Unknown field at `contacts.*` ``.
 */
import { CUT_MARK, joinMessages, type Violation } from '../validation';

type Schema = Record<string, unknown>;
type Step = { readonly key: string } | { readonly index: number };

/** The violations with every undeclared key of their paths written `*`, and their messages to match. */
export function declaredOnly(violations: readonly Violation[], schema: Schema | undefined): Violation[] {
  return violations.map((v) => {
    const masked = maskedPath(v.path, schema);
    if (v.rule === 'additionalProperties' || v.rule === 'unevaluatedProperties') {
      return { path: masked, rule: v.rule, message: `Unknown field at \`${masked}\`` };
    }
    if (masked === v.path) return v;
    return { path: masked, rule: v.rule, message: v.message.replace(`\`${v.path}\``, `\`${masked}\``) };
  });
}

/** {@link declaredOnly}'s violations joined as every refusal message is. */
export function declaredOnlyMessage(violations: readonly Violation[], schema: Schema | undefined): string {
  return joinMessages(declaredOnly(violations, schema));
}

/** A §3 path (`a.b[2]["c d"]`) with each key the schema does not declare at its place written `*`. */
function maskedPath(path: string, root: Schema | undefined): string {
  let out = '';
  let at: Schema[] = root === undefined ? [] : [root];
  for (const step of parsePath(path)) {
    if ('index' in step) {
      out += `[${step.index}]`;
      at = at.flatMap((s) => branches(root!, s)).flatMap((s) => itemSchemas(s, step.index));
      continue;
    }
    const owners = at.flatMap((s) => branches(root!, s)).filter((s) => declares(s, step.key));
    const declared = owners.length > 0 && !step.key.endsWith(CUT_MARK);
    const shown = declared ? step.key : '*';
    out = out === '' ? (declared ? quoted(shown) : shown) : declared ? `${out}${keySuffix(shown)}` : `${out}.*`;
    at = declared
      ? owners.map((s) => (s.properties as Record<string, Schema>)[step.key])
      : at.flatMap((s) => branches(root!, s)).flatMap((s) => extraSchemas(s));
  }
  return out;
}

function declares(schema: Schema, key: string): boolean {
  const properties = schema.properties;
  return typeof properties === 'object' && properties !== null && Object.hasOwn(properties, key);
}

/** The schema and what it combines (`$ref`, `allOf`, `anyOf`, `oneOf`), local references resolved. */
function branches(root: Schema, schema: Schema, seen = new Set<Schema>()): Schema[] {
  if (typeof schema !== 'object' || schema === null || seen.has(schema)) return [];
  seen.add(schema);
  const found: Schema[] = [schema];
  if (typeof schema.$ref === 'string') {
    const target = resolveLocal(root, schema.$ref);
    if (target !== undefined) found.push(...branches(root, target, seen));
  }
  for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
    const list = schema[keyword];
    if (Array.isArray(list)) for (const s of list) found.push(...branches(root, s as Schema, seen));
  }
  return found;
}

function resolveLocal(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return typeof node === 'object' && node !== null ? (node as Schema) : undefined;
}

function itemSchemas(schema: Schema, index: number): Schema[] {
  const prefix = schema.prefixItems;
  if (Array.isArray(prefix) && index < prefix.length) return [prefix[index] as Schema];
  return typeof schema.items === 'object' && schema.items !== null ? [schema.items as Schema] : [];
}

/** Where an undeclared key's value is described: `additionalProperties` when it is a schema. */
function extraSchemas(schema: Schema): Schema[] {
  const extra = schema.additionalProperties;
  return typeof extra === 'object' && extra !== null ? [extra as Schema] : [];
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function keySuffix(key: string): string {
  return IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key).replace(/`/g, '\\u0060')}]`;
}

function quoted(key: string): string {
  return IDENTIFIER.test(key) ? key : `[${JSON.stringify(key).replace(/`/g, '\\u0060')}]`;
}

/** The steps of a §3 path: `.key`, `["key"]` (JSON-escaped) and `[n]`. */
function parsePath(path: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === '.') i++;
    if (path[i] === '[' && path[i + 1] === '"') {
      let end = i + 2;
      while (end < path.length && path[end] !== '"') end += path[end] === '\\' ? 2 : 1;
      steps.push({ key: JSON.parse(path.slice(i + 1, end + 1)) as string });
      i = end + 2;
    } else if (path[i] === '[') {
      const end = path.indexOf(']', i);
      steps.push({ index: Number(path.slice(i + 1, end)) });
      i = end + 1;
    } else {
      let end = i;
      while (end < path.length && path[end] !== '.' && path[end] !== '[') end++;
      steps.push({ key: path.slice(i, end) });
      i = end;
    }
  }
  return steps;
}
