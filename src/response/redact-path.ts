/**
 * Redaction paths: the dotted path form of tool-call refusals, with `[]` standing for every element of an array
 * and `*` for every key of an open map (`email`, `orders[].card_number`, `metadata.*`, `["x-key"].value`).
 */
import { isJsonObject } from '../validation';

/** One step of a redaction path: a named key, every array element, or every key of a map. */
export type PathStep =
  { readonly kind: 'key'; readonly key: string } | { readonly kind: 'element' } | { readonly kind: 'anyKey' };

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*/;

/**
 * Parses a redaction path into its steps.
 * @returns the steps, or a reason (the end of a sentence starting with the path) when it is not a path
 * @example
 * parseRedactPath('orders[].card_number'); // [{kind:'key',key:'orders'}, {kind:'element'}, {kind:'key',key:'card_number'}]
 */
export function parseRedactPath(path: string): readonly PathStep[] | string {
  if (typeof path !== 'string' || path === '') return 'is empty; name a field, e.g. email or orders[].card_number';
  const steps: PathStep[] = [];
  let i = 0;
  let expectName = true;
  while (i < path.length) {
    if (path.startsWith('[]', i)) {
      // a leading [] is every element of a top-level array (a list operation's answer)
      steps.push({ kind: 'element' });
      i += 2;
      expectName = false;
    } else if (path.startsWith('["', i)) {
      const end = quotedEnd(path, i + 1);
      if (end < 0) return `has an unterminated ["…"] key at character ${i + 1}`;
      let key: unknown;
      try {
        key = JSON.parse(path.slice(i + 1, end + 1));
      } catch {
        return `has an invalid ["…"] key at character ${i + 1}`;
      }
      if (path[end + 1] !== ']') return `has an unterminated ["…"] key at character ${i + 1}`;
      steps.push({ kind: 'key', key: key as string });
      i = end + 2;
      expectName = false;
    } else if (path[i] === '.' && !expectName) {
      i += 1;
      expectName = true;
      if (path[i] === '[') return `has "." before "[" at character ${i}; write a[] or a["key"]`;
    } else if (expectName && path[i] === '*') {
      steps.push({ kind: 'anyKey' });
      i += 1;
      expectName = false;
    } else if (expectName && IDENTIFIER.test(path.slice(i, i + 256))) {
      const name = IDENTIFIER.exec(path.slice(i))![0];
      steps.push({ kind: 'key', key: name });
      i += name.length;
      expectName = false;
    } else {
      return `is not a path at character ${i + 1}: use field names joined by ".", [] for every array element, * for every key of a map and ["key"] for other keys`;
    }
  }
  if (expectName) return 'ends with "."; name a field after it';
  return steps;
}

/** The index of the closing quote of the JSON string starting at `start`, or -1. */
function quotedEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

/**
 * What a redaction path names in a declared output schema: `undefined` when it names a declared string field,
 * otherwise why not (the end of a sentence starting with the path). Follows `properties`, `items` and
 * `additionalProperties` (the schema of an open map's values); a path into an open map without a value schema is
 * accepted from there on (its fields are not declared, so any may be a string).
 */
export function redactPathProblem(steps: readonly PathStep[], schema: Record<string, unknown>): string | undefined {
  let node: unknown = schema;
  for (const step of steps) {
    // A raw schema may describe a value by composition or $ref only: nothing to check the path against.
    if (!isJsonObject(node) || node.type === undefined) return undefined;
    if (step.kind === 'element') {
      if (node.type !== 'array') return `uses [] where the output declares ${describeType(node)}, not an array`;
      node = node.items;
      if (!isJsonObject(node)) return undefined;
      continue;
    }
    if (node.type !== 'object') {
      return `names a field inside ${describeType(node)}, but only an object has fields`;
    }
    const properties = isJsonObject(node.properties) ? node.properties : undefined;
    if (step.kind === 'anyKey') {
      if (properties !== undefined && Object.keys(properties).length > 0 && !isJsonObject(node.additionalProperties)) {
        return 'uses * on an object with declared fields; name the field instead (* is for the keys of an open map)';
      }
      node = node.additionalProperties;
      continue;
    }
    if (properties !== undefined && Object.prototype.hasOwnProperty.call(properties, step.key)) {
      node = properties[step.key];
    } else if (isJsonObject(node.additionalProperties)) {
      node = node.additionalProperties;
    } else if (properties === undefined || node.additionalProperties === true) {
      return undefined; // an open map: its fields are not declared
    } else {
      return `names no declared field (${JSON.stringify(step.key)} is not in the output)`;
    }
  }
  if (!isJsonObject(node) || node.type === undefined) return undefined;
  if (node.type !== 'string') return `names a field of type ${describeType(node)}, and only strings are redacted`;
  return undefined;
}

function describeType(node: Record<string, unknown>): string {
  return typeof node.type === 'string' ? node.type : 'a value of no declared type';
}
