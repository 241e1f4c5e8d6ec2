/**
 * A schema that refers back to itself without reading any part of the value (`$ref` through `allOf`, `anyOf`,
 * `oneOf`, `not`, `if`/`then`/`else` or `dependentSchemas`) makes every validation recurse until the stack
 * overflows, whatever the call holds. Recursion is fine where each turn descends into the value (`properties`,
 * `items`, …): the value's depth ends it. Such a schema is refused when it is compiled (synthesis, config load).
 */
import { isJsonObject } from './json-object';
import { findInSubschemas } from './subschemas';

type Schema = Record<string, unknown>;

/** Keywords whose schemas apply to the same value (they read nothing of it). */
const SAME_VALUE_ONE = ['not', 'if', 'then', 'else'] as const;
const SAME_VALUE_MANY = ['allOf', 'anyOf', 'oneOf'] as const;

/**
 * The location (`#/$defs/node`) of a schema on a cycle that reads no part of the value, or `undefined` when every
 * cycle descends into the value.
 */
export function sameValueCycle(root: Schema): string | undefined {
  const where = new Map<Schema, string>();
  findInSubschemas(root, (s, at) => {
    if (!where.has(s)) where.set(s, at);
    return undefined;
  });
  const state = new Map<Schema, 'open' | 'done'>();
  for (const start of where.keys()) {
    if (state.has(start)) continue;
    // iterative depth-first search: a schema may chain thousands of same-value steps
    const stack: { node: Schema; next: Schema[] }[] = [{ node: start, next: sameValueChildren(root, start) }];
    state.set(start, 'open');
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const child = top.next.pop();
      if (child === undefined) {
        state.set(top.node, 'done');
        stack.pop();
        continue;
      }
      const seen = state.get(child);
      if (seen === 'open') return where.get(child) ?? where.get(top.node) ?? '#';
      if (seen === 'done') continue;
      state.set(child, 'open');
      stack.push({ node: child, next: sameValueChildren(root, child) });
    }
  }
  return undefined;
}

/** The schemas that apply to the same value as `schema`: its combinators' and the target of its local `$ref`. */
function sameValueChildren(root: Schema, schema: Schema): Schema[] {
  const children: Schema[] = [];
  for (const keyword of SAME_VALUE_ONE) if (isJsonObject(schema[keyword])) children.push(schema[keyword]);
  for (const keyword of SAME_VALUE_MANY) {
    const list = schema[keyword];
    if (Array.isArray(list)) for (const item of list) if (isJsonObject(item)) children.push(item);
  }
  const dependent = schema.dependentSchemas;
  if (isJsonObject(dependent)) for (const s of Object.values(dependent)) if (isJsonObject(s)) children.push(s);
  if (typeof schema.$ref === 'string') {
    const target = resolveLocal(root, schema.$ref);
    if (target !== undefined) children.push(target);
  }
  return children;
}

/** The schema a local `$ref` (`#`, `#/$defs/a`) points at, or `undefined`. */
function resolveLocal(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  const pointer = ref.slice(1);
  if (pointer === '') return root;
  if (!pointer.startsWith('/')) return undefined;
  for (const raw of pointer.slice(1).split('/')) {
    let part: string;
    try {
      part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (!isJsonObject(node) && !Array.isArray(node)) return undefined;
    if (!Object.hasOwn(node as object, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return isJsonObject(node) ? node : undefined;
}
