/**
 * The ajv instances behind every compiled tool schema: one long-lived instance that checks schemas against the
 * 2020-12 meta-schema, and two compilers — a fast one (stops at the first error, used on every call) and, for
 * schemas whose rejections the walker cannot explain, a lazily used all-errors one.
 */
import type Ajv2020 from 'ajv/dist/2020';
import type { AnySchemaObject, ValidateFunction } from 'ajv';
import type AddFormats from 'ajv-formats';
import { strictFormats } from './formats';
import { constKeyword, enumKeyword } from './json-equal';
import { ajvRegExp } from '../regex/linear-regexp';
import { memoizeValidateCode } from './memoize-validate';
import { markSafeIntegers, safeIntegerKeyword } from './safe-integer';
import { uniqueItemsKeyword } from './unique-items';

// Warnings ajv emits while compiling (e.g. an unknown format), collected per compile so that they can fail it:
// a format the gateway cannot check must not be silently ignored.
let compileWarnings: string[] | undefined;

const logger = {
  log: (): void => undefined,
  warn(...args: unknown[]): void {
    compileWarnings?.push(args.map(String).join(' '));
  },
  error: (): void => undefined,
};

/** How an ajv instance is set up; every instance shares the rest (formats, strictness, own properties). */
export interface AjvRole {
  /** Report every error rather than stop at the first. */
  readonly allErrors: boolean;
  /** Put `message` texts in the compiled code; the fast compiler's errors are never read, only its verdict. */
  readonly messages: boolean;
  /** Validate each schema against the meta-schema while compiling it; the compilers leave that to `checkSchema`. */
  readonly validateSchema: boolean;
  /**
   * Run ajv's optimizer over the generated code. Off for tool schemas: the passes cost more than they save (without
   * them compiling is several times faster and allocates far less, and the hot path measures the same). On for the
   * meta-schema, compiled once and run on every tool schema.
   */
  readonly optimize: boolean;
}

function createAjv(role: AjvRole): Ajv2020 {
  // Loaded on the first instance, not with this module: ajv's compiler is costly to load, and a config whose
  // schemas the subset compiler takes never creates an instance.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { default: Ajv } = require('ajv/dist/2020') as { default: typeof Ajv2020 };
  const addFormats = require('ajv-formats') as typeof AddFormats;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const ajv = new Ajv({
    allErrors: role.allErrors,
    messages: role.messages,
    validateSchema: role.validateSchema,
    // Unknown keywords (`x-…`, `examples`, …) are annotations in JSON Schema; strict mode would refuse them.
    strict: false,
    // `1e400` parses to Infinity, which is no JSON number: `type: number` and `integer` refuse it (see docs/input-and-validation.md).
    strictNumbers: true,
    // `required` and `properties` must not see inherited keys such as `toString` or `constructor`.
    ownProperties: true,
    logger,
    // `pattern` and `patternProperties` run on the linear-time engine (linear-regexp.ts); a pattern it cannot run
    // fails the compile, so the tool fails closed.
    // Every compiled function is memoized per value, so recursion through `$ref` costs linear time (see there).
    code: {
      optimize: role.optimize,
      regExp: ajvRegExp,
      process: (code, env) => memoizeValidateCode(code, env === undefined || env.root === env),
    },
  });
  addFormats(ajv);
  ajv.addKeyword(safeIntegerKeyword);
  // ajv's own compares elements pairwise: quadratic on a long array. This one hashes (see unique-items.ts).
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword(uniqueItemsKeyword);
  // ajv's deep equality calls `valueOf`/`toString` found on the data, and throws when they are not functions.
  for (const keyword of [enumKeyword, constKeyword]) {
    ajv.removeKeyword(keyword.keyword as string);
    ajv.addKeyword(keyword);
  }
  for (const [name, validate] of Object.entries(strictFormats)) ajv.addFormat(name, { type: 'string', validate });
  return ajv;
}

// Checks tool schemas against the meta-schema (with the formats, so `pattern` must be a valid regular expression).
// It compiles only the meta-schema, once, and keeps nothing per tool schema, so it lives as long as the process.
// Created on first use: schemas the subset compiler takes skip the meta-schema check (see compile-tool-schema.ts).
let checker: Ajv2020 | undefined;
function schemaChecker(): Ajv2020 {
  checker ??= createAjv({ allErrors: false, messages: true, validateSchema: true, optimize: true });
  return checker;
}

/**
 * Throws ajv's own `schema is invalid: …` error when `schema` does not satisfy the JSON Schema 2020-12 meta-schema,
 * exactly as `ajv.compile` with `validateSchema: true` would.
 */
export function checkSchema(schema: AnySchemaObject): void {
  // with `throwOrLogError` it throws for an invalid schema; the verdict it returns (never a promise for a schema
  // without `$async`) is not needed
  void schemaChecker().validateSchema(schema, true);
}

/**
 * An ajv instance keeps a reference to every function it compiled (in its code-generation scope), so a single
 * long-lived instance would grow with every reload that changes schemas. A compiler therefore moves to a fresh
 * instance every `compilesPerInstance` compiles; the old one, and each function only it still held, is then
 * garbage. Compiled functions do not reference their instance, so live validators keep working.
 */
export class SchemaCompiler {
  // Created on the first compile: a config whose schemas the subset compiler takes never needs one.
  private ajv: Ajv2020 | undefined;
  private compiles = 0;

  /**
   * @param role how the instances are set up
   * @param compilesPerInstance compiles before moving to a fresh instance (creating one is not free)
   */
  constructor(
    private readonly role: AjvRole,
    private readonly compilesPerInstance: number,
  ) {}

  /**
   * Compiles `schema` (already checked with `checkSchema`); throws ajv's error, or for an unknown format its warning.
   */
  public compile(schema: AnySchemaObject): ValidateFunction {
    if (this.ajv === undefined || this.compiles >= this.compilesPerInstance) {
      this.ajv = createAjv(this.role);
      this.compiles = 0;
    }
    this.compiles++;
    const ajv = this.ajv;
    // Integers beyond ±(2^53−1) are refused where the schema asks for an integer (see safe-integer.ts).
    const marked = markSafeIntegers(schema) as AnySchemaObject;
    compileWarnings = [];
    try {
      const fn = ajv.compile(marked);
      const unknownFormat = compileWarnings.find((w) => w.startsWith('unknown format'));
      if (unknownFormat !== undefined) throw new Error(unknownFormat.replace(' ignored in schema', ' in schema'));
      return fn;
    } finally {
      compileWarnings = undefined;
      try {
        // ajv's schema cache would otherwise keep the schema (and its $id registered) until the instance is dropped.
        ajv.removeSchema(marked);
      } catch {
        // Nothing to remove when compilation failed early.
      }
    }
  }
}

/** Compiles the function every call runs: stops at the first error. */
export const fastCompiler = new SchemaCompiler(
  { allErrors: false, messages: false, validateSchema: false, optimize: false },
  200,
);
/** Compiles, on a schema's first refusal the walker cannot explain, the function that reports every error. */
export const allErrorsCompiler = new SchemaCompiler(
  { allErrors: true, messages: true, validateSchema: false, optimize: false },
  200,
);

/** Whether `value` satisfies format `name` as ajv checks it; `true` when the format does not apply to the value. */
export function formatAccepts(name: string, value: unknown): boolean {
  const def = schemaChecker().formats[name];
  if (def === undefined || def === true) return true;
  let type = 'string';
  let check: unknown = def;
  if (typeof def === 'object' && !(def instanceof RegExp)) {
    type = def.type ?? 'string';
    check = def.validate;
  }
  if (typeof value !== type) return true;
  if (check instanceof RegExp) return check.test(value as string);
  if (typeof check === 'function') return Boolean((check as (v: unknown) => unknown)(value));
  return true;
}
