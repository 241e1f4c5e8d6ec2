/**
 * The two ajv instances behind every compiled tool schema: a fast one (stops at the first error, used on every
 * call) and, for schemas whose rejections the walker cannot explain, a lazily used all-errors one.
 */
import Ajv2020 from 'ajv/dist/2020';
import type { AnySchemaObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { strictFormats } from './formats';

// Warnings ajv emits while compiling (e.g. an unknown format), collected per compile so that they can fail it:
// a format the gateway cannot check must not be silently ignored.
let compileWarnings: string[] | undefined;

const logger = {
  log(): void {},
  warn(...args: unknown[]): void {
    compileWarnings?.push(args.map(String).join(' '));
  },
  error(): void {},
};

function createAjv(allErrors: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors,
    // Unknown keywords (`x-…`, `examples`, …) are annotations in JSON Schema; strict mode would refuse them.
    strict: false,
    // `required` and `properties` must not see inherited keys such as `toString` or `constructor`.
    ownProperties: true,
    logger,
    // ajv's optimizer passes over the generated code cost more than they save here: without them compiling is
    // about 3x faster and allocates far less (1,000 tools load in well under a second), and the hot path
    // measures the same (npm run bench).
    code: { optimize: false },
  });
  addFormats(ajv);
  for (const [name, validate] of Object.entries(strictFormats)) ajv.addFormat(name, { type: 'string', validate });
  return ajv;
}

export const fastAjv = createAjv(false);
export const allErrorsAjv = createAjv(true);

/** Compiles `schema` with `ajv` and drops ajv's own reference to it, so reloads do not grow memory. */
export function compileWith(ajv: Ajv2020, schema: AnySchemaObject): ValidateFunction {
  compileWarnings = [];
  try {
    const fn = ajv.compile(schema);
    const unknownFormat = compileWarnings.find((w) => w.startsWith('unknown format'));
    if (unknownFormat !== undefined) throw new Error(unknownFormat.replace(' ignored in schema', ' in schema'));
    return fn;
  } finally {
    compileWarnings = undefined;
    try {
      ajv.removeSchema(schema);
    } catch {
      // Nothing to remove when compilation failed early.
    }
  }
}

/** Whether `value` satisfies format `name` as ajv checks it; `true` when the format does not apply to the value. */
export function formatAccepts(name: string, value: unknown): boolean {
  const def = fastAjv.formats[name];
  if (def === undefined || def === true) return true;
  let type: string = 'string';
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
