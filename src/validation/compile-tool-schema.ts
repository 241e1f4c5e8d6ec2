import type { AnySchemaObject, ValidateFunction } from 'ajv';
import { allErrorsCompiler, checkSchema, fastCompiler } from './ajv-instances';
import { mapAjvErrors } from './ajv-error-mapper';
import { sameValueCycle } from './ref-cycles';
import { isJsonObject } from './json-object';
import { sharedPatternProblem } from '../regex/shared-patterns';
import { messages } from './messages';
import { collectViolations } from './schema-walker';
import { buildSubset, inSubset } from './subset-compiler';
import { findInSubschemas } from './subschemas';
import { CompileResult, ToolValidator, ValidationResult, Violation } from './violation';
import { joinMessages, schemaMismatch } from './violation-messages';

const VALID: ValidationResult = Object.freeze({ valid: true });

function refusal(violations: readonly Violation[]): ValidationResult {
  return Object.freeze({ valid: false, message: joinMessages(violations), violations: Object.freeze([...violations]) });
}

const NOT_AN_OBJECT = refusal([Object.freeze({ path: '', rule: 'type', message: messages.invalidArgumentsObject })]);
// The total validator's last resort (e.g. a stack overflow on absurdly deep data): refuse, never throw.
const CANNOT_VALIDATE = refusal([
  Object.freeze({ path: '', rule: 'internal', message: 'Invalid arguments: could not be validated' }),
]);
const EMPTY_ARGS = Object.freeze({});

/**
 * The most (schema nodes × data values) for which a refusal the walker cannot explain is explained with ajv's
 * all-errors mode; past it, with ajv's first error only. At most a few ms of ajv's work.
 */
const ALL_ERRORS_BUDGET = 20_000;

/** Whether `data` holds at most `limit` values (objects, arrays and scalars); stops counting past the limit. */
function withinBudget(data: unknown, limit: number): boolean {
  let count = 0;
  const stack: unknown[] = [data];
  while (stack.length > 0) {
    if (++count > limit) return false;
    const x = stack.pop();
    if (typeof x !== 'object' || x === null) continue;
    // Checked before pushing: a 500,000-element array must not be copied to find it is over the limit.
    if (Array.isArray(x)) {
      if (count + stack.length + x.length > limit) return false;
      for (const item of x) stack.push(item);
    } else {
      const keys = Object.keys(x);
      if (count + stack.length + keys.length > limit) return false;
      for (const key of keys) stack.push((x as Record<string, unknown>)[key]);
    }
  }
  return true;
}

/** The number of objects and arrays in a schema (JSON): a measure of ajv's work per data value. */
function countNodes(schema: unknown): number {
  if (typeof schema !== 'object' || schema === null) return 1;
  let n = 1;
  for (const value of Array.isArray(schema) ? schema : Object.values(schema)) {
    if (typeof value === 'object' && value !== null) n += countNodes(value);
  }
  return n;
}

/** What was compiled for one schema, shared by every validator of an equal schema (the same JSON text). */
interface CompiledSchema {
  /** The schema's JSON text, in the caller's key order (the cache key). */
  readonly text: string;
  /**
   * A private copy of the schema parsed from {@link text}, which ajv, the walker and the subset compiler's builder
   * may keep (none changes it): parsed at load for a schema ajv compiles, on first use for a subset schema.
   */
  own?: AnySchemaObject;
  /** {@link countNodes} of the schema, counted on the first refusal that needs it. */
  schemaNodes?: number;
  /**
   * The verdict every call runs: the subset compiler's function, or ajv's for schemas outside its subset. For a
   * subset schema it starts as a stand-in that builds the function on the first call and replaces itself.
   */
  fast: (data: unknown) => boolean;
  /** ajv's compiled function (stops at the first error); compiled on demand when `fast` is the subset compiler's. */
  ajv?: ValidateFunction;
  allErrors?: ValidateFunction;
}

/** The private copy of a compiled schema, parsed now if not yet. */
function ownSchema(compiled: CompiledSchema): AnySchemaObject {
  compiled.own ??= JSON.parse(compiled.text) as AnySchemaObject;
  return compiled.own;
}

class CompiledToolValidator implements ToolValidator {
  /** The compiled verdict (stops at the first error), as `validate` runs it. */
  public get fast(): (data: unknown) => boolean {
    return this.compiled.fast;
  }

  /** @param compiled the functions of the schema, shared by equal schemas (its copy keeps the key order as written) */
  constructor(private readonly compiled: CompiledSchema) {}

  public validate(args: unknown): ValidationResult {
    try {
      const data = args === undefined ? EMPTY_ARGS : args;
      if (!isJsonObject(data)) return NOT_AN_OBJECT;
      // The hot path: one call of the compiled function; everything below runs only for a refusal.
      const compiled = this.compiled;
      if (compiled.fast(data)) return VALID;
      // When the verdict was ajv's, its error is already known: no second run needed if the walker cannot explain.
      const first = compiled.fast === compiled.ajv ? compiled.ajv.errors : undefined;
      return refusal(this.explain(data, first));
    } catch {
      return CANNOT_VALIDATE;
    }
  }

  /** ajv's own compiled function for this schema (compiled now if the subset compiler made `fast`). */
  public ajvFunction(): ValidateFunction {
    const compiled = this.compiled;
    compiled.ajv ??= fastCompiler.compile(ownSchema(compiled));
    return compiled.ajv;
  }

  /** @param first ajv's errors from the verdict's run, when the verdict was ajv's (it stops at the first error) */
  private explain(data: Record<string, unknown>, first: ValidateFunction['errors']): readonly Violation[] {
    // The walker reports properties in the order the schema was written: its copy's order.
    const walked = collectViolations(ownSchema(this.compiled), data);
    if (walked.length > 0) return walked;
    // The schema uses keywords the walker does not follow: ask ajv for its errors, then map them. ajv's all-errors
    // mode reports every error before any cap applies (about schema size × data size of them: seconds of work on a
    // hostile 1 MiB payload), so beyond a budget only the first error, which the verdict's own run finds, is reported.
    const compiled = this.compiled;
    let errors: ValidateFunction['errors'];
    compiled.schemaNodes ??= countNodes(ownSchema(compiled));
    if (withinBudget(data, ALL_ERRORS_BUDGET / compiled.schemaNodes)) {
      compiled.allErrors ??= allErrorsCompiler.compile(ownSchema(compiled));
      compiled.allErrors(data);
      errors = compiled.allErrors.errors;
    } else if (first !== undefined) {
      errors = first;
    } else {
      const fn = this.ajvFunction();
      fn(data);
      errors = fn.errors;
    }
    const mapped = mapAjvErrors(errors, data);
    return mapped.length > 0 ? mapped : [schemaMismatch('')];
  }
}

// Compiled schemas by JSON text: a reload that keeps a tool's schema reuses its compiled functions, equal schemas
// written in the same key order (a generator's) share them, and failures are remembered too. Bounded, oldest first
// out.
const cache = new Map<string, CompiledSchema | string>();
const MAX_CACHED = 1000;

/**
 * Throws for a value that is not JSON (a non-finite number, `undefined` in an array, a function, a class instance);
 * gives whether an object key named `__proto__` occurs. Keys whose value is `undefined` are skipped, as
 * `JSON.stringify` skips them.
 */
function checkJson(value: unknown): boolean {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return false;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`${value} is not a JSON number`);
    return false;
  }
  let protoKey = false;
  if (Array.isArray(value)) {
    for (const item of value) if (checkJson(item)) protoKey = true;
    return protoKey;
  }
  if (isJsonObject(value)) {
    for (const key of Object.keys(value)) {
      const v = value[key];
      if (v === undefined) continue;
      if (key === '__proto__') protoKey = true;
      if (checkJson(v)) protoKey = true;
    }
    return protoKey;
  }
  throw new Error(`a value of type ${typeof value} is not JSON`);
}

function rootAdmitsObjects(schema: Record<string, unknown>): boolean {
  const t = schema.type;
  if (t === undefined) return true;
  return t === 'object' || (Array.isArray(t) && t.includes('object'));
}

/**
 * The refusal for the first `pattern` or `patternProperties` key the linear-time engine cannot run, naming where it
 * is and the construct; `undefined` when every pattern can run. (ajv would refuse it too, without saying where.)
 */
function findPatternProblem(schema: AnySchemaObject): string | undefined {
  const problemOf = (source: string, at: string): string | undefined => {
    const problem = sharedPatternProblem(source);
    return problem === undefined ? undefined : `input schema: pattern ${JSON.stringify(source)} at ${at} ${problem}`;
  };
  return findInSubschemas(schema, (s, at) => {
    if (typeof s.pattern === 'string') {
      const found = problemOf(s.pattern, `${at}/pattern`);
      if (found !== undefined) return found;
    }
    if (isJsonObject(s.patternProperties)) {
      for (const source of Object.keys(s.patternProperties)) {
        const found = problemOf(source, `${at}/patternProperties`);
        if (found !== undefined) return found;
      }
    }
    return undefined;
  });
}

/**
 * The refusal for a `required` (or `dependentRequired`) list naming the empty property `""`: ajv does not check
 * that name, so the verdict would depend on which compiler ran; refused instead, like other uncompilable schemas.
 */
function findEmptyRequiredName(schema: AnySchemaObject): string | undefined {
  const refusal = (at: string): string =>
    `input schema: ${at} lists the empty property name "", which ajv does not check; rename that property`;
  return findInSubschemas(schema, (s, at) => {
    if (Array.isArray(s.required) && s.required.includes('')) return refusal(`${at}/required`);
    if (isJsonObject(s.dependentRequired)) {
      for (const name of Object.keys(s.dependentRequired)) {
        const list = s.dependentRequired[name];
        if (Array.isArray(list) && list.includes('')) return refusal(`${at}/dependentRequired`);
      }
    }
    return undefined;
  });
}

/**
 * @param schema the caller's schema, checked to be JSON: only read here, never kept
 * @param text its JSON text, from which the private copy is parsed
 */
function compileUncached(schema: AnySchemaObject, text: string): CompiledSchema | string {
  if (!rootAdmitsObjects(schema)) return 'input schema: the root must accept objects (use "type": "object")';
  // A cycle needs a `$ref` (the schema was checked to be JSON, a tree), and `text` names every key as JSON.stringify
  // wrote it, unescaped: most generated schemas have none and skip the search.
  const cycle = text.includes('"$ref"') ? sameValueCycle(schema) : undefined;
  if (cycle !== undefined) {
    return (
      `input schema: ${cycle} refers back to itself without reading any part of the value (through $ref, allOf, ` +
      'anyOf, oneOf, not, if/then/else or dependentSchemas), so every call would recurse without end; let each ' +
      'turn of the recursion descend into properties or items'
    );
  }
  const dialect = schema.$schema;
  if (dialect !== undefined && !/^https:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/.test(String(dialect))) {
    return `input schema: $schema ${JSON.stringify(dialect)} is not supported; use "https://json-schema.org/draft/2020-12/schema" or leave it out`;
  }
  try {
    // ajv's code generation is costly per schema; the subset compiler covers generated schemas far cheaper.
    // It decides now, on the caller's schema (so a schema outside the subset goes to ajv now, and every pattern and
    // format is resolved at load); the private copy is parsed, and the function's code written and compiled by V8,
    // on the tool's first call. If the subset compiler ever refused that copy (it is equal to what was decided on),
    // ajv's function takes over, and if that failed too the call is refused.
    if (inSubset(schema)) {
      const compiled: CompiledSchema = {
        text,
        fast: (data) => {
          let fn: (data: unknown) => boolean;
          try {
            fn = buildSubset(ownSchema(compiled));
          } catch {
            fn = compiled.ajv ??= fastCompiler.compile(ownSchema(compiled));
          }
          compiled.fast = fn;
          return fn(data);
        },
      };
      return compiled;
    }
    const own = JSON.parse(text) as AnySchemaObject;
    // A schema the subset compiler takes passes all three checks (its own are stricter, with every pattern compiled
    // and no empty required name), so only the others pay for them.
    checkSchema(own);
    const problem = findPatternProblem(own) ?? findEmptyRequiredName(own);
    if (problem !== undefined) return problem;
    const fast = fastCompiler.compile(own);
    return { text, own, fast, ajv: fast };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return `input schema: ${reason.split('\n')[0]}`;
  }
}

/**
 * Compiles a tool's input schema (JSON Schema 2020-12) into a total validator; compiled once per distinct schema.
 * Never throws: a schema that cannot compile gives `{ ok: false, error }` with the reason, so the tool fails closed.
 *
 * @example
 * const compiled = compileToolSchema(generateInputSchema({ limit: { type: 'integer', maximum: 100 } }));
 * if (compiled.ok) compiled.validator.validate({ limit: 500 });
 * // { valid: false, message: 'Invalid value for `limit`: expected <= 100', violations: [...] }
 */
export function compileToolSchema(schema: Record<string, unknown>): CompileResult {
  if (!isJsonObject(schema)) return { ok: false, error: 'input schema: must be a JSON object' };
  let text: string;
  // The JSON text is the cache key and the source of a private copy in the caller's key order (the walker reports
  // properties in that order, and ajv keeps references into the schema it compiled), which validators of equal
  // schemas share and which is parsed when first needed. The check walks the schema without allocating.
  let protoKey: boolean;
  try {
    protoKey = checkJson(schema);
    text = JSON.stringify(schema);
  } catch (err) {
    return { ok: false, error: `input schema: not JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  if (protoKey) {
    // ajv silently ignores a property named __proto__ (a prototype-pollution guard), so it could not be checked.
    return { ok: false, error: 'input schema: a key named "__proto__" is not supported; rename it' };
  }
  let compiled = cache.get(text);
  if (compiled === undefined) {
    compiled = compileUncached(schema, text);
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
    cache.set(text, compiled);
  }
  if (typeof compiled === 'string') return { ok: false, error: compiled };
  return { ok: true, validator: new CompiledToolValidator(compiled) };
}

/** ajv's own compiled function behind a validator, for benchmarks comparing against raw ajv; not public API. */
export function ajvFunctionOf(validator: ToolValidator): ValidateFunction | undefined {
  return validator instanceof CompiledToolValidator ? validator.ajvFunction() : undefined;
}
