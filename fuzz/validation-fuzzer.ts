/**
 * The validation fuzzer (the validator is total, agrees with its explanation, and no input costs more
 * than linear time). Random declared inputs and hostile raw schemas × random and adversarial JSON (deep, wide,
 * long strings near every format and pattern, 1e400, integers past 2^53, keys such as `__proto__`) go through
 * generation, compilation, alias normalization, validation and the explaining walker.
 *
 * An input fails the run when something throws, when the verdict and the walker disagree (valid ⇔ zero
 * violations; a generated schema's refusal is always explained by the walker), when the subset compiler and ajv
 * disagree, or when validating it takes longer than the budget (50 ms, by `performance.now`) on each of five tries,
 * with its CPU time over the budget too — a slow try on a busy machine is the machine, five slow tries that also use
 * the CPU are the input. `npm test` runs 10^4 inputs (test/validation/fuzz.test.ts), `npm run fuzz` 10^6.
 */
import { writeFileSync } from 'node:fs';
import * as fc from 'fast-check';
import { aliasesOf, generateInputSchema, InputSpec, InputSpecError, ParamSpec } from '../src/schema';
import { compileToolSchema, normalizeAliases, ToolValidator, ValidationResult } from '../src/validation';
import { ajvFunctionOf } from '../src/validation/compile-tool-schema';
import { collectViolations, MAX_VIOLATIONS } from '../src/validation/schema-walker';

/** What a run measured. */
export interface FuzzReport {
  /** Inputs (schema × value pairs) validated. */
  readonly count: number;
  /** Distinct schemas compiled. */
  readonly schemas: number;
  /** The slowest input's validation time (best of its tries, by the clock), in ms, and a description of it. */
  readonly slowestMs: number;
  readonly slowest: string;
  /** The most CPU time one input's validation took (best of its tries), in ms. */
  readonly slowestCpuMs: number;
  /** The slowest compile, in ms (config-load time, not a request; reported, not budgeted). */
  readonly slowestCompileMs: number;
  /** Wall time of the whole run, in ms. */
  readonly elapsedMs: number;
}

/** How to run. */
export interface FuzzOptions {
  /** Inputs to validate (each schema gets {@link VALUES_PER_SCHEMA} of them). */
  readonly count: number;
  /** fast-check seed; the report of a failure names it, so that it can be replayed. @default - random */
  readonly seed?: number;
  /** Per-input budget in ms. @default 50 */
  readonly budgetMs?: number;
  /** The longest adversarial string, in UTF-16 units. @default 65536 */
  readonly maxStringLength?: number;
  /** Called every `progressEvery` inputs. @default - never */
  readonly onProgress?: (done: number, slowestMs: number) => void;
  readonly progressEvery?: number;
}

const VALUES_PER_SCHEMA = 10;
/** The largest value tried, as JSON text: a request body of 1 MiB. */
const MAX_BODY_BYTES = 1 << 20;

/** The length of `value` as JSON text (Infinity written as the 5 characters of 1e400). */
function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value, (_, v: unknown) => (v === Infinity || v === -Infinity ? 1e300 : v)).length;
  } catch {
    return Infinity; // too deep to write: no parser would have produced it from a request body either
  }
}
const TRIES = 5;

// Names: ordinary, non-identifiers, and every name an object inherits (top-level reserved ones are refused).
const NAMES = [
  'id',
  'name',
  'limit',
  'tags',
  'my key',
  'a-b',
  'x',
  '',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'constructor',
  '__proto__',
  'prototype',
  '"]);//',
  '`${x}`',
  '\u2028',
  'é',
];
const HOSTILE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '',
  'x'.repeat(200),
  '\u0000',
];
const FORMATS = ['date-time', 'date', 'time', 'email', 'uri', 'uuid', 'hostname', 'ipv4', 'ipv6'] as const;
// Ordinary patterns and the classic catastrophic ones: the engine must stay linear on both.
const PATTERNS = [
  '^A-[0-9]{4}$',
  '^\\p{L}+$',
  'ab',
  '^.{2}$',
  '\\d',
  '^(a+)+$',
  '(a|aa)*c',
  '^(\\w+\\s?)*$',
  '^([a-z0-9]+-?)*[a-z0-9]$',
  '(x+x+)+y',
  '^[^@]+@[^@]+\\.[a-z]{2,}$',
  '.*.*=.*',
];
/** Text near each format and pattern: a unit to repeat, and what to put around it. */
const NEAR_MISS_UNITS = [
  'a',
  'x',
  '0',
  '1.',
  ':',
  '::',
  'ff:',
  '.',
  '-',
  '/',
  '//',
  '@',
  'a@',
  '@/',
  '%',
  '%4',
  '#',
  '?',
  '[',
  ']',
  'T',
  '00:',
  '2020-01-01',
  'xn--',
  'a.',
  '\\',
  ' ',
  '\u00e9',
  '\ud83d',
  'aa',
  'ab',
  'a ',
  'a-',
  'A-1',
];
const PREFIXES = [
  '',
  'a:',
  'a://',
  'http://',
  'mailto:',
  '"',
  '[',
  '2020-01-01T',
  'xn--',
  'a@',
  'A-',
  '10:00:00',
  '::',
];
const SUFFIXES = ['', '\n', '!', '#\n', '@', ']', ' ', '\u2028', 'y', 'c', 'Z'];
const NUMBERS = [0, -0, 1, 1.5, -1, 100, 1e6, 1e20, 2 ** 53, -(2 ** 53), 2 ** 53 - 1, Infinity, -Infinity, 1e-320, 0.1];

/** Hostile raw schemas (the ajv path), each with its own tricks. */
const RAW_SCHEMAS: Record<string, unknown>[] = [
  {
    type: 'object',
    properties: {
      labels: { type: 'object', additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
    },
  },
  {
    type: 'object',
    properties: {
      items: {
        type: 'array',
        items: {
          allOf: Array.from({ length: 10 }, (_, k) => ({
            anyOf: [{ type: 'string', minLength: k }, { type: 'number' }],
          })),
        },
      },
    },
  },
  { type: 'object', properties: { tags: { type: 'array', uniqueItems: true } } },
  {
    type: 'object',
    properties: {
      tags: { type: 'array', uniqueItems: true, items: { anyOf: [{ type: 'object' }, { type: 'string' }] } },
    },
  },
  {
    type: 'object',
    patternProperties: { '^(a+)+$': { type: 'integer' }, '^x': { type: 'string', pattern: '(x+x+)+y' } },
  },
  {
    type: 'object',
    properties: {
      n: { type: ['integer', 'null'] },
      m: { oneOf: [{ type: 'integer' }, { type: 'number', minimum: 5 }] },
    },
  },
  {
    type: 'object',
    properties: {
      link: { type: 'string', format: 'uri' },
      url: { type: 'string', format: 'url' },
      when: { type: 'string', format: 'iso-date-time' },
    },
    if: { required: ['link'] },
    then: { required: ['when'] },
    else: { not: { required: ['url'] } },
  },
  {
    type: 'object',
    $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' }, v: { type: 'integer' } } } },
    properties: { list: { $ref: '#/$defs/node' } },
  },
  {
    type: 'object',
    properties: { e: { enum: [{ a: 1 }, [1, 2], 'x', 3] }, c: { const: { k: [1, { z: 2 }] } } },
    additionalProperties: { type: 'string', format: 'email' },
  },
  {
    type: 'object',
    properties: {
      s: { type: 'string', format: 'hostname' },
      r: { type: 'string', format: 'regex' },
      d: { type: 'string', format: 'duration' },
      t: { type: 'string', format: 'uri-template' },
      p: { type: 'string', format: 'json-pointer' },
      v6: { type: 'string', format: 'ipv6' },
    },
  },
  {
    type: 'object',
    properties: {
      a: { type: 'array', contains: { type: 'string', pattern: '^(\\w+\\s?)*$' }, prefixItems: [{ type: 'integer' }] },
    },
    dependentRequired: { a: ['b'] },
  },
];

/**
 * Recursive raw schemas, as OpenAPI import brings them: `$defs.n` combines two or three branches that each
 * descend (through `items`, `prefixItems`, `properties` or `additionalProperties`) into `$ref: #/$defs/n`, plus
 * a leaf. Without the per-value memo such a schema costs 2^depth on nested data.
 */
const recursiveSchema: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    combinator: fc.constantFrom('anyOf', 'oneOf', 'allOf'),
    branches: fc.integer({ min: 2, max: 3 }),
    via: fc.constantFrom('items', 'prefixItems', 'properties', 'additionalProperties'),
    leaf: fc.constantFrom('integer', 'string', 'null'),
    extra: fc.constantFrom<Record<string, unknown>>({}, { maxItems: 1000 }, { minItems: 0 }, { minProperties: 0 }),
  })
  .map(({ combinator, branches, via, leaf, extra }) => {
    const ref = { $ref: '#/$defs/n' };
    const descend = (): Record<string, unknown> => {
      if (via === 'items') return { type: 'array', items: ref, ...extra };
      if (via === 'prefixItems') return { type: 'array', prefixItems: [ref, ref], ...extra };
      if (via === 'properties') return { type: 'object', properties: { a: ref, b: ref }, ...extra };
      return { type: 'object', additionalProperties: ref, ...extra };
    };
    return {
      type: 'object',
      properties: { t: ref },
      $defs: { n: { [combinator]: [...Array.from({ length: branches }, descend), { type: leaf }] } },
    };
  });

/** Nested data for {@link recursiveSchema}: arrays or objects up to 22 levels deep (2^22 paths without the memo), a near-miss leaf inside. */
const recursiveValue: fc.Arbitrary<unknown> = fc
  .tuple(
    fc.integer({ min: 0, max: 22 }),
    fc.constantFrom<unknown>('x', 1, null, 1.5, true, {}),
    fc.constantFrom('array', 'object', 'mixed'),
  )
  .map(([depth, leaf, shape]) => {
    let v: unknown = leaf;
    for (let i = 0; i < depth; i++) {
      const asArray = shape === 'array' || (shape === 'mixed' && i % 2 === 0);
      v = asArray ? [v] : { a: v };
    }
    return { t: v };
  });

const opt = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(a, { nil: undefined });
function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

const scalarSpec: fc.Arbitrary<ParamSpec> = fc.oneof(
  fc
    .record({
      type: fc.constant('string' as const),
      minLength: opt(fc.integer({ min: 0, max: 3 })),
      maxLength: opt(fc.constantFrom(4, 64, 100000)),
      pattern: opt(fc.constantFrom(...PATTERNS)),
      format: opt(fc.constantFrom(...FORMATS)),
    })
    .map(stripUndefined),
  fc
    .record({
      type: fc.constantFrom('integer' as const, 'number' as const),
      minimum: opt(fc.constantFrom(-5, 0, 1.5, -1e300)),
      maximum: opt(fc.constantFrom(3, 100, 2 ** 60)),
      exclusiveMaximum: opt(fc.constantFrom(3, 1e300)),
    })
    .map(stripUndefined),
  fc.record({
    type: fc.constant('string' as const),
    enum: fc.uniqueArray(fc.constantFrom('a', 'b', '__proto__', 'constructor', ''), { minLength: 1, maxLength: 4 }),
  }),
  fc.record({
    type: fc.constant('integer' as const),
    enum: fc.uniqueArray(fc.integer({ min: -3, max: 9 }), { minLength: 1, maxLength: 12 }),
  }),
  fc.constant({ type: 'boolean' } as ParamSpec),
);

const { spec: paramSpec } = fc.letrec<{ spec: ParamSpec; object: ParamSpec; array: ParamSpec }>((tie) => ({
  spec: fc.oneof(
    { depthSize: 'small' },
    scalarSpec,
    scalarSpec,
    tie('array'),
    tie('object'),
    fc.constant({ type: 'object' } as ParamSpec),
  ),
  array: fc
    .record({
      type: fc.constant('array' as const),
      items: opt(tie('spec')),
      minItems: opt(fc.integer({ min: 0, max: 2 })),
      maxItems: opt(fc.constantFrom(3, 12, 100000)),
      uniqueItems: opt(fc.boolean()),
    })
    .map(stripUndefined),
  object: fc
    .record({
      type: fc.constant('object' as const),
      properties: fc.dictionary(
        fc.constantFrom(...NAMES),
        fc.tuple(tie('spec'), fc.boolean()).map(([s, required]) => (required ? { ...s, required: true } : s)),
        { maxKeys: 4 },
      ),
      additionalProperties: opt(fc.boolean()),
    })
    .map(stripUndefined),
}));

const inputSpec: fc.Arbitrary<InputSpec> = fc
  .tuple(
    fc.dictionary(
      fc.constantFrom(...NAMES),
      fc.tuple(paramSpec, fc.boolean()).map(([s, required]) => (required ? { ...s, required: true } : s)),
      { maxKeys: 5 },
    ),
    fc.constantFrom(undefined, 'alias', 'forwardAs'),
    fc.constantFrom('p', 'constructor', '__proto__', 'toString', 'q'),
  )
  .map(([spec, extra, name]) => {
    // Sometimes an alias or a forwardAs (hostile names included: synthesis must refuse the reserved ones).
    const first = Object.keys(spec)[0];
    if (extra === undefined || first === undefined) return spec;
    const out: Record<string, ParamSpec> = {};
    for (const key of Object.keys(spec))
      Object.defineProperty(out, key, { value: spec[key], enumerable: true, writable: true, configurable: true });
    out[first] = { ...spec[first], [extra === 'alias' ? 'aliases' : 'forwardAs']: extra === 'alias' ? [name] : name };
    return out;
  });

/** Sets `key` as an own property, as JSON.parse does (also for `__proto__`). */
function own(o: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  return o;
}

/** Long text near every format and pattern: a prefix, a repeated unit, a suffix that breaks the match at the end. */
function nearMiss(maxLength: number): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.constantFrom(...PREFIXES),
      fc.constantFrom(...NEAR_MISS_UNITS),
      fc.constantFrom(...SUFFIXES),
      size(maxLength),
    )
    .map(([p, u, s, n]) => p + u.repeat(Math.max(1, Math.floor(n / u.length))) + s);
}

/**
 * A size up to `max`, mostly small: a uniform power of two most of the time (so 1 KiB and 64 KiB are tried as
 * often as 2 and 4), the maximum itself now and then. Large inputs find super-linear paths; small ones keep the
 * run fast enough to try many.
 */
function size(max: number): fc.Arbitrary<number> {
  const bits = Math.max(0, Math.floor(Math.log2(max)));
  return fc.oneof(
    { weight: 12, arbitrary: fc.integer({ min: 1, max: Math.min(8, max) }) },
    { weight: 3, arbitrary: fc.integer({ min: 0, max: bits }).map((e) => 2 ** e) },
    { weight: 1, arbitrary: fc.constant(max) },
  );
}

function adversarial(maxLength: number): fc.Arbitrary<unknown> {
  const leaf: fc.Arbitrary<unknown> = fc.oneof(
    nearMiss(maxLength),
    fc.constantFrom(...NUMBERS),
    fc.constantFrom(null, true, false, 'x', ''),
  );
  // Repeated in wide values: small, so that a value stays within a request body (JSON never shares a subtree).
  const small: fc.Arbitrary<unknown> = fc.oneof(
    nearMiss(64),
    fc.constantFrom(...NUMBERS),
    fc.constantFrom(null, true, false, 'x', ''),
  );
  return fc.oneof(
    { weight: 12, arbitrary: leaf },
    // Deep: nested arrays or objects (up to 3,000 levels).
    {
      weight: 1,
      arbitrary: fc.tuple(size(3000), fc.boolean(), leaf).map(([depth, arrays, inner]) => {
        let x: unknown = inner;
        for (let i = 0; i < depth; i++) x = arrays ? [x] : own({}, 'a', x);
        return x;
      }),
    },
    // Wide: many keys (hostile ones first) or many elements, equal or distinct.
    {
      weight: 1,
      arbitrary: fc.tuple(size(3000), small, fc.boolean()).map(([n, inner, distinct]) => {
        const o: Record<string, unknown> = {};
        for (const key of HOSTILE_KEYS) own(o, key, inner);
        for (let i = 0; i < n; i++) own(o, `key_${'k'.repeat(30)}_${i}`, distinct ? i : inner);
        return o;
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(size(5000), small, fc.boolean())
        .map(([n, inner, distinct]) => Array.from({ length: n }, (_, i) => (distinct ? { n: i, v: inner } : inner))),
    },
  );
}

/** A value for `schema`: its shape with some parts replaced by adversarial values. */
function shaped(schema: unknown, maxLength: number, depth = 0): fc.Arbitrary<unknown> {
  const s = (typeof schema === 'object' && schema !== null ? schema : {}) as Record<string, unknown>;
  const hostile = adversarial(maxLength);
  if (depth > 4) return hostile;
  let own_: fc.Arbitrary<unknown>;
  if (Array.isArray(s.enum)) own_ = fc.constantFrom(...(s.enum as unknown[]));
  else if (s.type === 'string')
    own_ = fc.oneof(
      nearMiss(maxLength),
      fc.constantFrom('2024-02-29T12:00:00Z', 'ada@example.com', 'https://example.com/x', '::1', 'A-1234', 'aaaa'),
    );
  else if (s.type === 'integer' || s.type === 'number')
    own_ = fc.oneof(fc.constantFrom(...NUMBERS), fc.integer({ min: -10, max: 120 }));
  else if (s.type === 'boolean') own_ = fc.boolean();
  else if (s.type === 'array') {
    const items = shaped(s.items, maxLength, depth + 1);
    own_ = fc.array(items, { maxLength: 6 }).chain((xs) => fc.constantFrom(xs, [...xs, ...xs.slice(0, 1)]));
  } else {
    const props = (typeof s.properties === 'object' && s.properties !== null ? s.properties : {}) as Record<
      string,
      unknown
    >;
    const names = Object.keys(props);
    own_ = fc
      .tuple(
        ...names.map((n) => fc.option(shaped(props[n], maxLength, depth + 1), { nil: undefined })),
        fc.subarray(HOSTILE_KEYS, { maxLength: 2 }),
        hostile,
      )
      .map((parts) => {
        const o: Record<string, unknown> = {};
        names.forEach((n, i) => {
          if (parts[i] !== undefined) own(o, n, parts[i]);
        });
        for (const key of parts[names.length] as string[]) own(o, key, parts[names.length + 1]);
        return o;
      });
  }
  return fc.oneof({ weight: 5, arbitrary: own_ }, { weight: 1, arbitrary: hostile });
}

/** A schema (generated from a declared input, or a raw one) and {@link VALUES_PER_SCHEMA} values for it. */
interface Case {
  readonly input?: InputSpec;
  readonly schema: Record<string, unknown>;
  readonly values: unknown[];
}

function cases(maxLength: number): fc.Arbitrary<Case> {
  const generated = inputSpec.chain((input): fc.Arbitrary<Case> => {
    let schema: Record<string, unknown>;
    try {
      schema = generateInputSchema(input);
    } catch (err) {
      if (err instanceof InputSpecError) return fc.constant<Case>({ input, schema: {}, values: [] }); // refused at synthesis
      throw err;
    }
    return fc
      .array(shaped(schema, maxLength), { minLength: VALUES_PER_SCHEMA, maxLength: VALUES_PER_SCHEMA })
      .map((values) => ({ input, schema, values }));
  });
  const raw = fc
    .constantFrom(...RAW_SCHEMAS)
    .chain((schema): fc.Arbitrary<Case> =>
      fc
        .array(shaped(schema, maxLength), { minLength: VALUES_PER_SCHEMA, maxLength: VALUES_PER_SCHEMA })
        .map((values) => ({ schema, values })),
    );
  const recursive = recursiveSchema.chain((schema): fc.Arbitrary<Case> =>
    fc
      .array(recursiveValue, { minLength: VALUES_PER_SCHEMA, maxLength: VALUES_PER_SCHEMA })
      .map((values) => ({ schema, values })),
  );
  return fc.oneof(
    { weight: 8, arbitrary: generated },
    { weight: 2, arbitrary: raw },
    { weight: 1, arbitrary: recursive },
  );
}

function describe(value: unknown): string {
  try {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text;
  } catch {
    return `(${typeof value}, not printable)`;
  }
}

function depthOf(value: unknown, limit = 1000): number {
  let depth = 0;
  let x = value;
  while (typeof x === 'object' && x !== null && depth < limit) {
    const first = Array.isArray(x) ? x[0] : Object.values(x)[0];
    x = first;
    depth++;
  }
  return depth;
}

/** With FUZZ_DUMP=<file>, writes a failing input there as JSON (`__proto__` keys kept), to replay it. */
function dump(schema: unknown, value: unknown): void {
  const file = process.env.FUZZ_DUMP;
  if (file !== undefined && file !== '') writeFileSync(file, JSON.stringify({ schema, value }));
}

/** Checks one validation's result against the walker, the other compiler and the documented bounds. */
function check(schema: Record<string, unknown>, generated: boolean, value: unknown, result: ValidationResult): void {
  if (result.valid) {
    const walked = collectViolations(schema, value, Infinity);
    if (walked.length > 0) throw new Error(`valid, but the walker finds ${walked.map((v) => v.message).join('; ')}`);
    return;
  }
  if (result.violations.length < 1 || result.violations.length > MAX_VIOLATIONS)
    throw new Error(`${result.violations.length} violations`);
  if (result.violations[0].rule === 'internal' && depthOf(value) < 1000)
    throw new Error(`could not validate a shallow value: ${result.message}`);
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  // Without the walker's step budget (MAX_WALK_STEPS), which may leave a far-apart violation to ajv's first error.
  if (
    generated &&
    isObject &&
    result.violations[0].rule !== 'internal' &&
    collectViolations(schema, value, Infinity).length === 0
  ) {
    throw new Error(`refused (${result.message}) but the walker finds nothing`);
  }
}

/**
 * Runs the fuzzer; throws (with fast-check's seed and the shrunk counterexample) on the first failing input.
 *
 * @example
 * const report = runValidationFuzzer({ count: 10_000 });
 */
export function runValidationFuzzer(options: FuzzOptions): FuzzReport {
  const budgetMs = options.budgetMs ?? 50;
  const maxLength = options.maxStringLength ?? 65536;
  let count = 0;
  let schemas = 0;
  let slowestMs = 0;
  let slowest = '';
  let slowestCompileMs = 0;
  let slowestCpuMs = 0;
  const start = performance.now();
  const property = fc.property(cases(maxLength), ({ input, schema, values }) => {
    if (values.length === 0) return; // the declared input was refused at synthesis, with an InputSpecError
    const generated = input !== undefined;
    const t0 = performance.now();
    const compiled = compileToolSchema(schema);
    slowestCompileMs = Math.max(slowestCompileMs, performance.now() - t0);
    if (!compiled.ok) throw new Error(`a schema the gateway ships did not compile: ${compiled.error}`);
    schemas++;
    const { validator } = compiled;
    const aliases = generated ? aliasesOf(input) : {};
    // One in ten schemas: the subset compiler's verdict against ajv's own compiled function.
    const ajv = generated && schemas % 10 === 0 ? ajvFunctionOf(validator) : undefined;
    for (const value of values) {
      // What a request body can hold (values are trees; a shared subtree would stand for a far larger text).
      if (jsonLength(value) > MAX_BODY_BYTES) continue;
      let best = Infinity;
      let bestCpu = Infinity;
      let result: ValidationResult | undefined;
      let validated: unknown = value;
      for (let tryNo = 0; tryNo < TRIES && best > budgetMs && bestCpu > budgetMs; tryNo++) {
        const cpu = process.cpuUsage();
        const t = performance.now();
        const normalized =
          typeof value === 'object' && value !== null && !Array.isArray(value)
            ? normalizeAliases(value as Record<string, unknown>, aliases)
            : { ok: true as const, args: value };
        result = normalized.ok ? validator.validate(normalized.args) : undefined;
        validated = normalized.ok ? normalized.args : value;
        best = Math.min(best, performance.now() - t);
        const used = process.cpuUsage(cpu);
        bestCpu = Math.min(bestCpu, (used.user + used.system) / 1000);
      }
      slowestCpuMs = Math.max(slowestCpuMs, bestCpu);
      if (best > slowestMs) {
        slowestMs = best;
        slowest = `schema ${describe(schema)} value ${describe(value)}`;
      }
      // Over budget by the clock and by CPU time on every try: the input, not a busy machine, is slow.
      if (best > budgetMs && bestCpu > budgetMs) {
        dump(schema, value);
        throw new Error(
          `validation took ${best.toFixed(1)} ms (${bestCpu.toFixed(1)} ms of CPU; budget ${budgetMs} ms, best of ${TRIES})`,
        );
      }
      if (result !== undefined) check(schema, generated, validated, result);
      if (
        ajv !== undefined &&
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        depthOf(value) < 1000
      ) {
        const fast = (validator as ToolValidator & { fast: (d: unknown) => boolean }).fast(value);
        if (fast !== ajv(value)) throw new Error(`subset compiler says ${fast}, ajv ${!fast}`);
      }
      count++;
      if (options.onProgress !== undefined && count % (options.progressEvery ?? 100_000) === 0)
        options.onProgress(count, slowestMs);
    }
  });
  // Batches until `count` inputs ran: some schemas are refused at synthesis and some values are too large to send.
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  for (let batch = 0; count < options.count; batch++) {
    const numRuns = Math.max(10, Math.ceil((options.count - count) / VALUES_PER_SCHEMA));
    fc.assert(property, { numRuns, seed: seed + batch });
  }
  return { count, schemas, slowestMs, slowest, slowestCpuMs, slowestCompileMs, elapsedMs: performance.now() - start };
}
