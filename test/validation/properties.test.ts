/**
 * Property tests: random declared inputs, their valid arguments, and single mutations of them.
 * numRuns stays modest so the suite stays fast.
 */
import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { generateInputSchema, InputSpec, ParamSpec } from '../../src/schema';
import { compileToolSchema, ToolValidator } from '../../src/validation';

const RUNS = { numRuns: 200 };
const NAMES = ['id', 'name', 'limit', 'tags', 'customer', 'zip_code', 'my key', 'a-b', 'x'];

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const scalarSpec: fc.Arbitrary<ParamSpec> = fc
  .oneof(
    fc.record({
      type: fc.constant('string' as const),
      minLength: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
      maxLength: fc.option(fc.integer({ min: 3, max: 8 }), { nil: undefined }),
    }),
    fc.record({
      type: fc.constant('string' as const),
      enum: fc.uniqueArray(fc.string({ minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 4 }),
    }),
    fc.record({
      type: fc.constant('string' as const),
      format: fc.constantFrom('date' as const, 'uuid' as const, 'email' as const),
    }),
    fc.record({
      type: fc.constant('integer' as const),
      minimum: fc.option(fc.integer({ min: -5, max: 0 }), { nil: undefined }),
      maximum: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
    }),
    fc.record({
      type: fc.constant('integer' as const),
      enum: fc.uniqueArray(fc.integer({ min: -3, max: 9 }), { minLength: 1, maxLength: 3 }),
    }),
    fc.record({
      type: fc.constant('number' as const),
      exclusiveMinimum: fc.option(fc.constant(0), { nil: undefined }),
      maximum: fc.option(fc.constant(1e6), { nil: undefined }),
    }),
    fc.record({ type: fc.constant('boolean' as const) }),
  )
  .map(stripUndefined);

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

const { spec: paramSpec } = fc.letrec<{ spec: ParamSpec; object: ParamSpec; array: ParamSpec }>((tie) => ({
  spec: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalarSpec,
    scalarSpec,
    tie('array'),
    tie('object'),
    fc.constant({ type: 'object' } as ParamSpec),
  ),
  array: fc
    .record({
      type: fc.constant('array' as const),
      items: tie('spec'),
      maxItems: fc.option(fc.integer({ min: 2, max: 4 }), { nil: undefined }),
    })
    .map(stripUndefined),
  object: fc.record({
    type: fc.constant('object' as const),
    properties: fc.dictionary(
      fc.constantFrom(...NAMES),
      fc.tuple(tie('spec'), fc.boolean()).map(([s, required]) => (required ? { ...s, required: true } : s)),
      { maxKeys: 4 },
    ),
  }),
}));

const inputSpec: fc.Arbitrary<InputSpec> = fc.dictionary(
  fc.constantFrom(...NAMES),
  fc.tuple(paramSpec, fc.boolean()).map(([s, required]) => (required ? { ...s, required: true } : s)),
  { maxKeys: 5 },
);

const DATES = ['2024-02-29', '1999-12-31', '2025-01-01'];
const UUIDS = ['2eb8aa08-aa98-11ea-b4aa-73b441d16380', '00000000-0000-0000-0000-000000000000'];
const EMAILS = ['ada@example.com', 'a.b+c@sub.example.org'];

/** Arguments valid for `spec`, as InferArgs describes them. */
function valueOf(spec: ParamSpec): fc.Arbitrary<Json> {
  if (spec.enum !== undefined) return fc.constantFrom(...(spec.enum as Json[]));
  switch (spec.type) {
    case 'string':
      if (spec.format === 'date') return fc.constantFrom(...DATES);
      if (spec.format === 'uuid') return fc.constantFrom(...UUIDS);
      if (spec.format === 'email') return fc.constantFrom(...EMAILS);
      return fc.string({ minLength: spec.minLength ?? 0, maxLength: spec.maxLength ?? 8 });
    case 'integer':
      return fc.integer({ min: spec.minimum ?? -1000, max: spec.maximum ?? 1000 });
    case 'number':
      return fc.double({ min: 0.5, max: spec.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(spec.items === undefined ? (fc.jsonValue() as fc.Arbitrary<Json>) : valueOf(spec.items), {
        maxLength: spec.maxItems ?? 3,
      });
    case 'object':
      if (spec.properties === undefined)
        return fc.dictionary(fc.string(), fc.jsonValue() as fc.Arbitrary<Json>, { maxKeys: 3 });
      return argsOf(spec.properties);
  }
}

function argsOf(input: InputSpec): fc.Arbitrary<Record<string, Json>> {
  const model = Object.fromEntries(Object.entries(input).map(([k, s]) => [k, valueOf(s)]));
  const requiredKeys = Object.keys(input).filter((k) => input[k].required === true);
  return fc.record(model, { requiredKeys }) as fc.Arbitrary<Record<string, Json>>;
}

function compile(input: InputSpec): ToolValidator {
  const compiled = compileToolSchema(generateInputSchema(input));
  if (!compiled.ok) throw new Error(compiled.error);
  return compiled.validator;
}

const withArgs = inputSpec.chain((input) => fc.tuple(fc.constant(input), argsOf(input)));

// The test's own, independent rendering of the documented paths.
const child = (path: string, key: string): string =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? (path === '' ? key : `${path}.${key}`) : `${path}[${JSON.stringify(key)}]`;

interface Mutation {
  apply(): void;
  message: string;
  path: string;
  rule: string;
}

/** Every single mutation of `value` (valid for an object spec with `properties`) and the refusal it must cause. */
function mutationsOf(properties: InputSpec, value: Record<string, Json>, path: string, out: Mutation[]): void {
  for (const [key, spec] of Object.entries(properties)) {
    const p = child(path, key);
    if (!(key in value)) continue;
    if (spec.required === true) {
      out.push({
        apply: () => delete value[key],
        message: `Missing required parameter: \`${p}\``,
        path: p,
        rule: 'required',
      });
    }
    collectValueMutations(spec, value, key, p, out);
  }
  out.push({
    apply: () => {
      value.zz_unknown = 1;
    },
    message: `Unknown parameter: \`${child(path, 'zz_unknown')}\``,
    path: child(path, 'zz_unknown'),
    rule: 'additionalProperties',
  });
}

function collectValueMutations(
  spec: ParamSpec,
  holder: Record<string, Json> | Json[],
  key: string | number,
  p: string,
  out: Mutation[],
): void {
  const set = (v: Json) => () => {
    (holder as Record<string | number, Json>)[key] = v;
  };
  const wrongType = spec.type === 'string' ? 7 : 'seven';
  out.push({
    apply: set(wrongType),
    message: `Invalid type for \`${p}\`: expected ${spec.type}`,
    path: p,
    rule: 'type',
  });
  out.push({ apply: set(null), message: `Invalid type for \`${p}\`: expected ${spec.type}`, path: p, rule: 'type' });
  if (spec.type === 'integer' || spec.type === 'number') {
    out.push({ apply: set(true), message: `Invalid type for \`${p}\`: expected ${spec.type}`, path: p, rule: 'type' });
  }
  const value = (holder as Record<string | number, Json>)[key];
  if (spec.type === 'object' && spec.properties !== undefined)
    mutationsOf(spec.properties, value as Record<string, Json>, p, out);
  if (spec.type === 'array' && spec.items !== undefined) {
    (value as Json[]).forEach((_, i) => collectValueMutations(spec.items!, value as Json[], i, `${p}[${i}]`, out));
  }
}

describe('properties of generated schemas and their validators', () => {
  it('(a) arguments of the InferArgs shape always validate', () => {
    fc.assert(
      fc.property(withArgs, ([input, args]) => {
        assert.deepEqual(compile(input).validate(args), { valid: true });
      }),
      RUNS,
    );
  });

  it('(b) one mutation yields exactly the expected message at the expected path', () => {
    fc.assert(
      fc.property(withArgs, fc.nat(), ([input, args], pick) => {
        const mutations: Mutation[] = [];
        mutationsOf(input, args, '', mutations);
        const mutation = mutations[pick % mutations.length];
        mutation.apply();
        assert.deepEqual(compile(input).validate(args), {
          valid: false,
          message: mutation.message,
          violations: [{ path: mutation.path, rule: mutation.rule, message: mutation.message }],
        });
      }),
      RUNS,
    );
  });

  const checkTotal = (validator: ToolValidator, value: unknown): void => {
    const result = validator.validate(value);
    if (result.valid) return;
    assert.ok(result.violations.length >= 1 && result.violations.length <= 20);
    assert.equal(typeof result.message, 'string');
    assert.equal(result.message.includes('undefined'), false);
  };

  it('(c) never throws on arbitrary JSON values', () => {
    fc.assert(
      fc.property(
        inputSpec,
        fc.jsonValue(),
        fc.dictionary(fc.constantFrom(...NAMES), fc.jsonValue()),
        (input, value, obj) => {
          const validator = compile(input);
          checkTotal(validator, value);
          checkTotal(validator, obj);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('(c) never throws on arbitrary JavaScript values', () => {
    fc.assert(
      fc.property(
        inputSpec,
        fc.anything(),
        fc.dictionary(fc.constantFrom(...NAMES), fc.anything()),
        (input, value, obj) => {
          const validator = compile(input);
          checkTotal(validator, value);
          checkTotal(validator, obj);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('(d) generation is deterministic, also across specs equal up to attribute order', () => {
    const reorder = (spec: ParamSpec): ParamSpec => {
      const entries = Object.entries(spec)
        .reverse()
        .map(([k, v]) => {
          if (k === 'items') return [k, reorder(v as ParamSpec)];
          if (k === 'properties')
            return [k, Object.fromEntries(Object.entries(v as InputSpec).map(([n, s]) => [n, reorder(s)]))];
          return [k, v];
        });
      return Object.fromEntries(entries) as ParamSpec;
    };
    fc.assert(
      fc.property(inputSpec, (input) => {
        const once = JSON.stringify(generateInputSchema(input));
        assert.equal(JSON.stringify(generateInputSchema(input)), once);
        const reordered = Object.fromEntries(Object.entries(input).map(([n, s]) => [n, reorder(s)]));
        assert.equal(JSON.stringify(generateInputSchema(reordered)), once);
      }),
      RUNS,
    );
  });
});
