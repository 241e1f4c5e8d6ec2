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
   * `value` holding only the declared fields, and how many fields were dropped. `value` itself is never changed;
   * the result shares with it every object and array that lost nothing (a conforming response is returned as is).
   */
  select(value: unknown): { readonly value: unknown; readonly dropped: number };
}

/** Compiles the selection for an output schema (JSON Schema 2020-12 object). */
export function fieldSelector(schema: Record<string, unknown>): FieldSelector {
  const root = compilePlan(schema, refResolver(schema));
  return {
    select(value) {
      const counter = { dropped: 0 };
      const selected = selectValue(value, root, counter);
      return { value: selected, dropped: counter.dropped };
    },
  };
}

/**
 * What selection does at one schema node, worked out once per node when the tool is compiled (a response holds
 * thousands of objects of a few schemas): the plan for array elements, for each declared property, and for the
 * other keys. A node's plan is shared by every `$ref` to it, so a recursive schema is a cycle of plans.
 */
interface SelectionPlan {
  /** The elements' plan (`items`); `undefined`: an array here is kept whole. */
  items: SelectionPlan | undefined;
  /** The declared properties' plans; `undefined`: no `properties` (an open map, or only `additionalProperties`). */
  properties: Map<string, SelectionPlan> | undefined;
  /** The plan of keys `properties` does not name (`additionalProperties` as a schema); `undefined`: dropped. */
  extra: SelectionPlan | undefined;
  /**
   * The node's `type` admits no object: an object here was not declared at all, so all its keys are dropped. Output
   * validation refuses such a value; with it off, this keeps keys the service chose from reaching the agent.
   */
  noObject: boolean;
  /** The node's `type` admits no array: an array's elements here are selected by this same plan. */
  noArray: boolean;
  /** None of the above: any value here is kept whole (a composition, no `type`), so it is not visited. */
  keepsAll: boolean;
}

function compilePlan(schema: Record<string, unknown>, resolve: Resolve): SelectionPlan {
  const plans = new Map<Record<string, unknown>, SelectionPlan>();
  const planOf = (schemaNode: Record<string, unknown>): SelectionPlan => {
    const node = resolve(schemaNode);
    let plan = plans.get(node);
    if (plan !== undefined) return plan;
    plan = {
      items: undefined,
      properties: undefined,
      extra: undefined,
      noObject: false,
      noArray: false,
      keepsAll: false,
    };
    plans.set(node, plan); // before the children: a $ref cycle ends here
    if (isJsonObject(node.items)) plan.items = planOf(node.items);
    const shape = declaredShape(node, resolve);
    if (shape.properties !== undefined) {
      const properties = new Map<string, SelectionPlan>();
      for (const [key, sub] of shape.properties) properties.set(key, planOf(sub));
      plan.properties = properties;
    }
    if (shape.extra !== undefined) plan.extra = planOf(shape.extra);
    plan.noObject = typeLacks(node, 'object');
    plan.noArray = typeLacks(node, 'array');
    plan.keepsAll =
      plan.items === undefined &&
      plan.properties === undefined &&
      plan.extra === undefined &&
      !plan.noObject &&
      !plan.noArray;
    return plan;
  };
  return planOf(schema);
}

type Resolve = (node: Record<string, unknown>) => Record<string, unknown>;

/** Whether the node declares a `type` that does not include `kind`. */
function typeLacks(node: Record<string, unknown>, kind: 'object' | 'array'): boolean {
  if (node.type === undefined) return false;
  const types: unknown[] = Array.isArray(node.type) ? node.type : [node.type];
  return !types.includes(kind);
}

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

/**
 * `value` with only what `plan` declares. Copy on write: an object or array with nothing to drop below it is
 * returned as it is (no garbage for a conforming response); the first change copies what came before it.
 */
function selectValue(value: unknown, plan: SelectionPlan, counter: { dropped: number }): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value) ? plan.noArray : plan.noObject) return undeclaredContainer(value, plan, counter);
  if (Array.isArray(value)) {
    const items = plan.items;
    if (items === undefined || items.keepsAll) return value;
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const selected = selectValue(item, items, counter);
      if (out !== undefined) out.push(selected);
      else if (selected !== item) {
        out = value.slice(0, i);
        out.push(selected);
      }
    }
    return out ?? value;
  }
  const { properties, extra } = plan;
  if (properties === undefined && extra === undefined) return value; // an open map: kept whole
  const record = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  // for…in with an own-key check, not Object.keys: no array of keys per object (a response holds thousands).
  let k = 0;
  for (const key in record) {
    if (!hasOwn(record, key)) continue;
    const sub = properties?.get(key) ?? extra;
    if (sub === undefined) {
      counter.dropped++;
      out ??= copyOf(record, k);
    } else {
      const item = record[key];
      const selected = sub.keepsAll ? item : selectValue(item, sub, counter);
      if (out !== undefined) define(out, key, selected);
      else if (selected !== item) {
        out = copyOf(record, k);
        define(out, key, selected);
      }
    }
    k++;
  }
  return out ?? record;
}

/** An object or array where its kind is not declared: an object's keys all dropped, an array's elements selected. */
function undeclaredContainer(value: object, plan: SelectionPlan, counter: { dropped: number }): unknown {
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item: unknown) => {
      const selected = selectValue(item, plan, counter);
      if (selected !== item) changed = true;
      return selected;
    });
    return changed ? out : value;
  }
  let keys = 0;
  for (const key in value) if (hasOwn(value as Record<string, unknown>, key)) keys++;
  if (keys === 0) return value;
  counter.dropped += keys;
  return {};
}

/** A new object with the first `count` own keys of `record`. */
function copyOf(record: Record<string, unknown>, count: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let k = 0;
  for (const key in record) {
    if (!hasOwn(record, key)) continue;
    if (k++ === count) break;
    define(out, key, record[key]);
  }
  return out;
}

/**
 * A copy of validation's `hasOwn`, on purpose: the shared one made selection measurably slower (bench/response.ts),
 * since V8 keeps a function's type feedback once, for every caller, and the shared one serves many.
 */
function hasOwn(record: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(record, key);
}

/** Sets an own data property: a key named `__proto__` stays an ordinary key (and no other key pays for that). */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else target[key] = value;
}
