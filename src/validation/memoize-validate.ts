/**
 * Memoizes ajv's compiled validate functions per (schema node × value). ajv compiles the root schema and every
 * `$ref`-reached schema it cannot inline (recursive ones) into functions of their own; a raw schema whose branches
 * reach the same value twice per level — `anyOf` of two branches that both descend into `items` with the same
 * `$ref` — makes ajv evaluate each value once per path, 2^depth times, and the depth of the data is the agent's to
 * choose (30 levels of nested arrays blocked the event loop for more than 30 s). With the memo each function
 * evaluates each object or array once: the work is linear in (schema functions × values).
 *
 * The memo is keyed by the value's identity and its instance path, in a `WeakMap` (it never keeps a value alive),
 * and holds only within one validation: the root function starts a new run (a counter on the ajv instance,
 * `self` in generated code) each time it is entered from outside, so a value changed between two validations is
 * checked again. Arguments parsed from JSON are a tree, so within a run a value sits at one path and the cached
 * answer (verdict, errors, evaluated properties and items) is the one a second evaluation would give. Scalars
 * are not memoized (checking one costs less than a lookup, and only objects and arrays carry recursion).
 *
 * It works on the source ajv generates (`code.process`): `return function validateN(ARGS){BODY}` becomes a memo
 * wrapper named `validateN` around `validateN_uncached(ARGS){BODY}`. The body still refers to `validateN` — its
 * errors, its `evaluated` record and (through ajv's `wrapper.validate`) its own recursive calls — so every
 * recursive call goes through the memo. The errors a function returns are cut at {@link MAX_ERRORS_PER_FUNCTION}.
 */

const FUNCTION_START = /return function (validate\d+)\(/;
/**
 * Errors a compiled function hands to its caller at most. A branch that fails still reports at least one, which is
 * all ajv's code needs to judge it (it compares error counts); without the cap an `anyOf` of two recursive branches
 * doubles its errors per level, so the errors alone would be exponential in the depth of the data. The explanation
 * of a refusal names at most 20 violations anyway.
 */
export const MAX_ERRORS_PER_FUNCTION = 64;
const MAX_ERRORS = MAX_ERRORS_PER_FUNCTION;
/** The ajv instance's property counting validation runs (shared by the functions it compiled). */
const RUN = '__cdktfMcpGatewayMemoRun';

/**
 * Rewrites one function's generated source (see the module comment). Source of another shape is returned as is,
 * so an ajv upgrade that changes it loses only the memo, never correctness; `memoizedFunctions` counts the
 * rewrites for the tests that guard against that.
 */
export function memoizeValidateCode(code: string, root: boolean): string {
  const match = FUNCTION_START.exec(code);
  if (match === null) return code;
  // Functions taking `dynamicAnchors` into account ($dynamicRef) may answer differently for the same value.
  if (code.includes('dynamicAnchors.') || code.includes('dynamicAnchors[')) return code;
  memoizedFunctions++;
  const name = match[1];
  const raw = `${name}_uncached`;
  const head = code.slice(0, match.index);
  const rest = code.slice(match.index + match[0].length);
  const enter = root
    ? `if (${name}_depth === 0) self.${RUN} = (self.${RUN} || 0) + 1;
  ${name}_depth++;
  try { return ${name}_cached(data, options); } finally { ${name}_depth--; }
}
let ${name}_depth = 0;
function ${name}_cached(data, options) {`
    : '';
  return `${head}const ${name}_memo = new WeakMap();
function ${name}(data, options) {
  ${enter}
  if (typeof data !== "object" || data === null) return ${raw}(data, options);
  // (scalars: no recursion below them, and at most a few errors)
  const run = self.${RUN};
  const at = options === undefined || options.instancePath === undefined ? "" : options.instancePath;
  let byPath = ${name}_memo.get(data);
  const hit = byPath === undefined ? undefined : byPath.get(at);
  const evaluated = ${name}.evaluated;
  if (hit !== undefined && hit.run === run) {
    ${name}.errors = hit.errors === null ? null : hit.errors.slice();
    if (evaluated !== undefined) { if (evaluated.dynamicProps) evaluated.props = hit.props; if (evaluated.dynamicItems) evaluated.items = hit.items; }
    return hit.valid;
  }
  const valid = ${raw}(data, options);
  const errors = ${name}.errors;
  if (errors != null && errors.length > ${MAX_ERRORS}) errors.length = ${MAX_ERRORS};
  if (byPath === undefined) { byPath = new Map(); ${name}_memo.set(data, byPath); }
  byPath.set(at, { run, valid, errors: errors == null ? null : errors.slice(), props: evaluated === undefined ? undefined : evaluated.props, items: evaluated === undefined ? undefined : evaluated.items });
  return valid;
}
function ${raw}(${rest}
return ${name};`;
}

/** How many generated functions {@link memoizeValidateCode} rewrote (for tests: ajv's source still has the shape). */
export let memoizedFunctions = 0;
