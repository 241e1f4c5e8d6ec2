/**
 * `response.fields: 'declared'`: keeps only what the output schema declares, at every depth. An object with
 * `properties` keeps those keys (and, when `additionalProperties` is a schema, the other keys as values of that
 * schema); an array keeps its elements, each selected by `items`; an object without `properties` is an open map and
 * is kept whole, as is a value the schema describes only by composition (`anyOf`, `oneOf`, …). Local `$ref`s and
 * `allOf` branches are followed.
 */
import { isJsonObject } from '../validation';

/** The most nested objects and arrays a shaped response may hold (deeper ones are refused before any step). */
export const MAX_RESPONSE_DEPTH = 512;

/** A selection function compiled from an output schema. */
export interface FieldSelector {
  /**
   * A copy of `value` holding only the declared fields, and how many fields were dropped.
   * `value` itself is never changed.
   */
  select(value: unknown): { readonly value: unknown; readonly dropped: number };
}

/** Compiles the selection for an output schema (JSON Schema 2020-12 object). */
export function fieldSelector(schema: Record<string, unknown>): FieldSelector {
  const resolve = refResolver(schema);
  // A schema node's declared shape, worked out once: a response holds thousands of objects of a few schemas.
  const shapes = new Map<Record<string, unknown>, DeclaredShape>();
  const shapeOf = (node: Record<string, unknown>): DeclaredShape => {
    let shape = shapes.get(node);
    if (shape === undefined) {
      shape = declaredShape(node, resolve);
      shapes.set(node, shape);
    }
    return shape;
  };
  return {
    select(value) {
      const counter = { dropped: 0 };
      const selected = selectValue(value, schema, resolve, shapeOf, counter);
      return { value: selected, dropped: counter.dropped };
    },
  };
}

type Resolve = (node: Record<string, unknown>) => Record<string, unknown>;

/** The node a local `$ref` (`#/$defs/x`, `#/properties/a`) points at; other nodes as they are. */
function refResolver(root: Record<string, unknown>): Resolve {
  return (node) => {
    let current = node;
    // Bounded: a cycle of $refs pointing at each other is not followed forever.
    for (let hops = 0; hops < 32 && typeof current.$ref === 'string' && current.$ref.startsWith('#'); hops++) {
      const target = pointer(root, current.$ref.slice(1));
      if (!isJsonObject(target)) return current;
      current = target;
    }
    return current;
  };
}

function pointer(root: unknown, fragment: string): unknown {
  if (fragment === '') return root;
  let node = root;
  for (const raw of fragment.split('/').slice(1)) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isJsonObject(node) && !Array.isArray(node)) return undefined;
    node = Object.prototype.hasOwnProperty.call(node, token) ? (node as Record<string, unknown>)[token] : undefined;
  }
  return node;
}

/** What an object node declares: its properties' schemas (or none: an open map) and the other keys' schema. */
interface DeclaredShape {
  readonly properties: Map<string, Record<string, unknown>> | undefined;
  readonly extra: Record<string, unknown> | undefined;
}

/** The `properties` of a node and its `allOf` branches, and its `additionalProperties` (the node's own first). */
function declaredShape(node: Record<string, unknown>, resolve: Resolve): DeclaredShape {
  let properties: Map<string, Record<string, unknown>> | undefined;
  let extra: Record<string, unknown> | undefined;
  const visit = (n: Record<string, unknown>, depth: number): void => {
    if (depth > 16) return;
    if (isJsonObject(n.properties)) {
      properties ??= new Map();
      for (const key of Object.keys(n.properties)) {
        const sub = n.properties[key];
        if (isJsonObject(sub) && !properties.has(key)) properties.set(key, sub);
      }
    }
    if (extra === undefined && isJsonObject(n.additionalProperties)) extra = n.additionalProperties;
    if (Array.isArray(n.allOf)) {
      for (const branch of n.allOf) if (isJsonObject(branch)) visit(resolve(branch), depth + 1);
    }
  };
  visit(node, 0);
  return { properties, extra };
}

function selectValue(
  value: unknown,
  schemaNode: unknown,
  resolve: Resolve,
  shapeOf: (node: Record<string, unknown>) => DeclaredShape,
  counter: { dropped: number },
): unknown {
  if (typeof value !== 'object' || value === null || !isJsonObject(schemaNode)) return value;
  const node = resolve(schemaNode);
  if (Array.isArray(value)) {
    const items = isJsonObject(node.items) ? node.items : undefined;
    return items === undefined ? value : value.map((item) => selectValue(item, items, resolve, shapeOf, counter));
  }
  const { properties, extra } = shapeOf(node);
  if (properties === undefined) {
    if (extra === undefined) return value; // an open map: kept whole
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value))
      define(out, key, selectValue((value as Record<string, unknown>)[key], extra, resolve, shapeOf, counter));
    return out;
  }
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    const sub = properties.get(key) ?? extra;
    if (sub === undefined) counter.dropped++;
    else define(out, key, selectValue(record[key], sub, resolve, shapeOf, counter));
  }
  return out;
}

/** Sets an own data property: a key named `__proto__` stays an ordinary key (and no other key pays for that). */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else target[key] = value;
}
