import type { Construct, IConstruct } from 'constructs';

/**
 * Names every JavaScript object inherits (`toString`, `constructor`, `__proto__`, …). The `constructs` library keeps
 * a node's children on a plain object and looks them up with `children[id]`, so a construct with such an id is
 * refused as "already a Construct with name …" and `tryFindChild` answers an inherited function for it.
 */
const INHERITED = new Set(Object.getOwnPropertyNames(Object.prototype));

/**
 * `id`, checked to be one the construct library can hold; a clear error otherwise, naming the fix (another id,
 * the name as a prop).
 * @param what the construct and how its name is set otherwise, e.g. `Service` and `name`
 */
export function constructId(id: string, what: string, nameProp?: string): string {
  if (typeof id === 'string' && INHERITED.has(id)) {
    const fix =
      nameProp === undefined
        ? 'give it another id'
        : `give it another id and set ${nameProp}: '${id}' (the name can be any; the id cannot)`;
    throw new Error(
      `${what} id '${id}' is a name every JavaScript object inherits, which the constructs library takes for an ` +
        `existing child: ${fix}`,
    );
  }
  return id;
}

/** Whether `id` is a name the construct library cannot hold as a child id (see {@link constructId}). */
export function isInheritedName(id: string): boolean {
  return INHERITED.has(id);
}

/** The child of `scope` with this id, looked up as an own name (`tryFindChild` answers inherited values). */
export function ownChild(scope: Construct, id: string): IConstruct | undefined {
  return scope.node.children.find((c) => c.node.id === id);
}
