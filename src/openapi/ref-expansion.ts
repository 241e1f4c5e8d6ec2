import { isJsonObject } from '../validation';
import { childPointer, resolvePointer } from './json-pointer';

/**
 * The most nodes any part of a document may expand to once its local `$ref`s are inlined. Tools are translated with
 * shared `$ref`s inlined (and so is the document, by the parser that validates it): a definition reused twice per
 * level doubles per level, and 18 levels of a 2.5 KB document are millions of nodes and gigabytes of JSON.
 */
export const MAX_EXPANDED_NODES = 50_000;

/**
 * The pointer of the first `$ref` whose target expands past {@link MAX_EXPANDED_NODES} nodes, or `undefined`. Each
 * target's size is computed once (sizes add up, they are never built), so the check is linear in the document; a
 * `$ref` back into a target being measured (recursion, which translation keeps as `$defs`) counts as one node.
 */
export function refExpansionProblem(document: Record<string, unknown>): { pointer: string; ref: string } | undefined {
  const sizes = new Map<string, number>();
  const measuring = new Set<string>();
  let found: { pointer: string; ref: string } | undefined;
  const size = (node: unknown, pointer: string): number => {
    if (found !== undefined) return 1;
    if (Array.isArray(node)) {
      let total = 1;
      for (const [i, item] of node.entries()) total = capped(total + size(item, childPointer(pointer, i)));
      return total;
    }
    if (!isJsonObject(node)) return 1;
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#')) {
      const ref = node.$ref;
      const known = sizes.get(ref);
      if (known !== undefined) return known;
      if (measuring.has(ref)) return 1;
      const target = resolvePointer(document, ref);
      measuring.add(ref);
      const measured = target === undefined ? 1 : size(target, ref);
      measuring.delete(ref);
      sizes.set(ref, measured);
      if (measured > MAX_EXPANDED_NODES && found === undefined) found = { pointer, ref };
      return measured;
    }
    let total = 1;
    for (const key of Object.keys(node)) total = capped(total + size(node[key], childPointer(pointer, key)));
    return total;
  };
  size(document, '#');
  return found;
}

function capped(n: number): number {
  return Math.min(n, MAX_EXPANDED_NODES + 1);
}
