/** JSON pointers into an OpenAPI document (`#/paths/~1pets/get`), as its own `$ref`s write them. */

/** The pointer one key below `pointer`. */
export function childPointer(pointer: string, key: string | number): string {
  return `${pointer}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/**
 * The value a local `$ref` (`#/components/schemas/Pet`) points at, or `undefined` when it names nothing. Only own
 * properties are followed, so `#/constructor` names nothing.
 */
export function resolvePointer(document: unknown, ref: string): unknown {
  if (ref === '#') return document;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = document;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Whether a `$ref` stays inside the document (`#…`); anything else names another file or a URL. */
export function isLocalRef(ref: string): boolean {
  return ref.startsWith('#');
}
