/**
 * The subset compiler must give exactly ajv's verdict on every schema it accepts, refuse (give undefined for)
 * everything else, and never let a schema inject code.
 */
import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { generateInputSchema, InputSpec, ParamSpec } from '../../src/schema';
import { fastCompiler, formatAccepts } from '../../src/validation/ajv-instances';
import { ajvFunctionOf, compileToolSchema } from '../../src/validation/compile-tool-schema';
import { compileSubset, SubsetValidator } from '../../src/validation/subset-compiler';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Schema = Record<string, unknown>;

const NAMES = ['id', 'name', 'limit', 'tags', 'my key', 'a-b', 'x', 'toString', 'constructor', '"]);//', '`${x}`'];
const FORMATS = ['date-time', 'date', 'time', 'email', 'uri', 'uuid', 'hostname', 'ipv4', 'ipv6'] as const;
const PATTERNS = ['^A-[0-9]{4}$', '^\\p{L}+$', 'ab', '^.{2}$', '\\d'];
const SAMPLE_STRINGS = [
  '',
  'a',
  'ab',
  'é',
  '😀',
  '😀😀',
  '\uD83D',
  'A-1234',
  'A-12345',
  'Ωmega',
  '__proto__',
  'toString',
  '2024-02-29',
  '2023-02-29',
  '2024-02-29T12:00:00Z',
  '2024-02-29T23:59:60Z',
  '12:00:00Z',
  'ada@example.com',
  'a@b',
  'https://example.com/x?y#z',
  'not a uri',
  '2eb8aa08-aa98-11ea-b4aa-73b441d16380',
  'example.com',
  '-bad-.com',
  '127.0.0.1',
  '256.0.0.1',
  '::1',
  'fe80::1%1',
];
const SAMPLE_NUMBERS = [0, -0, 1, 1.0, 1.5, -1, -5, 2, 3, 7, 99, 100, 100.5, 1e6, 1e21, 2 ** 53, -(2 ** 53), 0.1];

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

const opt = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(a, { nil: undefined });

const stringSpec: fc.Arbitrary<ParamSpec> = fc
  .record({
    type: fc.constant('string' as const),
    minLength: opt(fc.integer({ min: 0, max: 2 })),
    maxLength: opt(fc.integer({ min: 2, max: 4 })),
    pattern: opt(fc.constantFrom(...PATTERNS)),
    format: opt(fc.constantFrom(...FORMATS)),
    description: opt(fc.string()),
  })
  .map(stripUndefined);

const numberSpec: fc.Arbitrary<ParamSpec> = fc
  .record({
    type: fc.constantFrom('integer' as const, 'number' as const),
    minimum: opt(fc.constantFrom(-5, 0, 1, 1.5)),
    maximum: opt(fc.constantFrom(2, 3, 100)),
    exclusiveMinimum: opt(fc.constantFrom(-1, 0, 1)),
    exclusiveMaximum: opt(fc.constantFrom(3, 100, 100.5)),
  })
  .map(stripUndefined);

const enumSpec: fc.Arbitrary<ParamSpec> = fc.oneof(
  fc.record({
    type: fc.constant('string' as const),
    enum: fc.uniqueArray(fc.constantFrom(...SAMPLE_STRINGS), { minLength: 1, maxLength: 10 }),
  }),
  fc.record({
    type: fc.constant('integer' as const),
    enum: fc.uniqueArray(fc.integer({ min: -3, max: 9 }), { minLength: 1, maxLength: 10 }),
  }),
  fc.record({
    type: fc.constant('number' as const),
    enum: fc.uniqueArray(fc.constantFrom(0, 1, 1.5, 2, -3), { minLength: 1, maxLength: 4 }),
  }),
  fc.record({ type: fc.constant('boolean' as const), enum: fc.constantFrom([true], [false], [true, false]) }),
);

const scalarSpec = fc.oneof(stringSpec, numberSpec, enumSpec, fc.constant({ type: 'boolean' } as ParamSpec));

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
      items: opt(tie('spec')),
      minItems: opt(fc.integer({ min: 0, max: 2 })),
      maxItems: fc.integer({ min: 2, max: 12 }),
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

// constructor, __proto__ and prototype are reserved as top-level names (docs/input-and-validation.md); nested, constructor is allowed.
const inputSpec: fc.Arbitrary<InputSpec> = fc.dictionary(
  fc.constantFrom(...NAMES.filter((n) => n !== 'constructor')),
  fc.tuple(paramSpec, fc.boolean()).map(([s, required]) => (required ? { ...s, required: true } : s)),
  { maxKeys: 5 },
);

const noise: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom(...SAMPLE_NUMBERS),
  fc.constantFrom(...SAMPLE_STRINGS),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
);

/** Values near `schema`: mostly of its shape (valid or off by a little), sometimes anything. */
function dataFor(schema: Schema): fc.Arbitrary<Json> {
  return fc.oneof({ weight: 4, arbitrary: shaped(schema) }, { weight: 1, arbitrary: noise });
}

function shaped(schema: Schema): fc.Arbitrary<Json> {
  if (Array.isArray(schema.enum)) return fc.oneof(fc.constantFrom(...(schema.enum as Json[])), noise);
  switch (schema.type) {
    case 'string':
      return fc.oneof(fc.constantFrom(...SAMPLE_STRINGS), fc.string({ unit: 'binary', maxLength: 6 }));
    case 'integer':
    case 'number':
      return fc.oneof(
        fc.constantFrom(...SAMPLE_NUMBERS),
        fc.integer({ min: -10, max: 120 }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
      );
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const items = schema.items as Schema | undefined;
      const element = items === undefined ? noise : dataFor(items);
      // Duplicates on purpose: uniqueItems must see them.
      return fc
        .array(element, { maxLength: 14 })
        .chain((xs) => fc.constantFrom(xs, [...xs, ...xs.slice(0, 2)], xs.slice(0, 1).concat(xs.slice(0, 1))));
    }
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const model = Object.fromEntries(Object.keys(props).map((k) => [k, dataFor(props[k])]));
      return fc
        .tuple(
          fc.record(model, { requiredKeys: [] }),
          fc.dictionary(fc.constantFrom('extra', '__proto__', 'toString', 'x'), noise, { maxKeys: 2 }),
          fc.nat(9),
        )
        .map(([declared, extra, pick]) =>
          pick === 0
            ? (JSON.parse(JSON.stringify({ ...declared, ...extra })) as Json)
            : pick === 1
              ? (JSON.parse(`{"__proto__":1,${JSON.stringify(declared).slice(1)}`.replace(',}', '}')) as Json)
              : (declared as Json),
        );
    }
    default:
      return noise;
  }
}

/**
 * A verdict, or the error thrown: ajv's deep equality (fast-deep-equal, also used here for uniqueItems) throws on
 * objects with a "toString" or "valueOf" key that is not a function, and then both must throw alike.
 */
function outcome(fn: (data: unknown) => boolean, value: unknown): boolean | string {
  try {
    return fn(value);
  } catch (err) {
    return `throws ${err instanceof Error ? err.name : typeof err}`;
  }
}

function subsetOf(schema: Schema): SubsetValidator {
  const fn = compileSubset(schema);
  if (fn === undefined) throw new Error(`not in the subset: ${JSON.stringify(schema)}`);
  return fn;
}

describe('subset compiler', () => {
  it("gives ajv's verdict on random generated schemas and nearby data", () => {
    const withData = inputSpec.chain((input) => {
      const schema = generateInputSchema(input);
      // Through JSON text: the validator only ever sees parsed JSON (ordinary prototypes, own keys).
      const json = dataFor(schema).map((v) => JSON.parse(JSON.stringify(v)) as Json);
      return fc.tuple(fc.constant(schema), fc.array(json, { minLength: 1, maxLength: 8 }));
    });
    fc.assert(
      fc.property(withData, ([schema, values]) => {
        const ours = subsetOf(schema);
        const ajv = fastCompiler.compile(schema);
        for (const value of values)
          assert.equal(
            outcome(ours, value),
            outcome(ajv, value),
            `schema ${JSON.stringify(schema)}\ndata ${JSON.stringify(value)}`,
          );
      }),
      { numRuns: 500 },
    );
  });

  it('covers every schema generateInputSchema emits for the generated tools', () => {
    fc.assert(
      fc.property(inputSpec, (input) => {
        assert.equal(typeof compileSubset(generateInputSchema(input)), 'function');
      }),
      { numRuns: 200 },
    );
  });

  it('counts string lengths in code points, as ajv does', () => {
    const fn = subsetOf({ type: 'string', minLength: 2, maxLength: 2 });
    assert.deepEqual(['😀', '😀😀', '😀😀😀', 'ab', 'a', '\uD83D\uD83D'].map(fn), [
      false,
      true,
      false,
      true,
      false,
      true,
    ]);
  });

  it('treats integers as ajv does: 1.0 is an integer, true and "1" are not numbers, null matches no type', () => {
    const fn = subsetOf({ type: 'integer' });
    assert.deepEqual([1, 1.0, 1.5, true, '1', null].map(fn), [true, true, false, false, false, false]);
    assert.deepEqual([null, 0, ''].map(subsetOf({ type: 'boolean' })), [false, false, false]);
  });

  it('checks only own properties for required, properties and additionalProperties', () => {
    const fn = subsetOf({
      type: 'object',
      properties: { toString: { type: 'string' } },
      required: ['toString'],
      additionalProperties: false,
    });
    assert.equal(fn({}), false);
    assert.equal(fn({ toString: 'x' }), true);
    assert.equal(fn(JSON.parse('{"toString":"x","__proto__":{"y":1}}')), false);
    assert.equal(fn(Object.assign(Object.create({ inherited: 1 }) as object, { toString: 'x' })), true);
  });

  it('finds duplicates by deep equality for object items and by value for scalars', () => {
    const objects = subsetOf({ type: 'array', maxItems: 5, uniqueItems: true, items: { type: 'object' } });
    assert.equal(objects([{ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }]), false);
    assert.equal(objects([{ a: 1 }, { a: 2 }]), true);
    const numbers = subsetOf({ type: 'array', uniqueItems: true, items: { type: 'number' } });
    assert.equal(numbers([1, 2, 1.0]), false);
    assert.equal(numbers(Array.from({ length: 50 }, (_, i) => i)), true);
    assert.equal(numbers([...Array.from({ length: 50 }, (_, i) => i), 49]), false);
  });

  it('keeps ajv\'s verdict for duplicate "__proto__" strings (ajv cannot see them as duplicates)', () => {
    const schema = { type: 'array', uniqueItems: true, items: { type: 'string' } };
    const ajv = fastCompiler.compile(schema);
    for (const value of [['__proto__', '__proto__'], Array.from({ length: 20 }, () => '__proto__'), ['a', 'a']]) {
      assert.equal(subsetOf(schema)(value), ajv(value));
    }
  });

  it('uses the same format checks as ajv', () => {
    for (const format of FORMATS) {
      const fn = subsetOf({ type: 'string', format });
      for (const s of SAMPLE_STRINGS)
        assert.equal(fn(s), formatAccepts(format, s), `${format} on ${JSON.stringify(s)}`);
    }
  });

  describe('eligibility: anything outside the subset is left to ajv', () => {
    const outside: [string, Schema][] = [
      ['anyOf', { type: 'object', anyOf: [{ required: ['a'] }] }],
      ['a type array', { type: 'object', properties: { a: { type: ['string', 'null'] } } }],
      ['a missing type', { type: 'object', properties: { a: { maxLength: 2 } } }],
      ['type null', { type: 'object', properties: { a: { type: 'null' } } }],
      ['$ref', { type: 'object', properties: { a: { $ref: '#' } } }],
      ['a boolean subschema', { type: 'object', properties: { a: true } }],
      ['additionalProperties as a schema', { type: 'object', additionalProperties: { type: 'string' } }],
      ['patternProperties', { type: 'object', patternProperties: { '^x': { type: 'string' } } }],
      ['an unknown format', { type: 'object', properties: { a: { type: 'string', format: 'colour' } } }],
      ['an invalid pattern', { type: 'object', properties: { a: { type: 'string', pattern: '(' } } }],
      ['an enum of objects', { type: 'object', properties: { a: { type: 'object', enum: [{}] } } }],
      ['an empty enum', { type: 'object', properties: { a: { type: 'string', enum: [] } } }],
      ['a keyword of another type', { type: 'object', properties: { a: { type: 'string', minimum: 1 } } }],
      ['a negative maxLength', { type: 'object', properties: { a: { type: 'string', maxLength: -1 } } }],
      ['a string maximum', { type: 'object', properties: { a: { type: 'number', maximum: '3' } } }],
      ['duplicate required names', { type: 'object', required: ['a', 'a'] }],
      [
        'a property named __proto__',
        JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}') as Schema,
      ],
      ['$schema', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' }],
      ['const', { type: 'object', properties: { a: { type: 'string', const: 'x' } } }],
      ['items as an array', { type: 'object', properties: { a: { type: 'array', items: [{ type: 'string' }] } } }],
    ];
    for (const [what, schema] of outside) {
      it(`falls back for ${what}`, () => {
        assert.equal(compileSubset(schema), undefined);
      });
    }

    it('still validates a schema outside the subset through ajv', () => {
      const compiled = compileToolSchema({
        type: 'object',
        properties: { a: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
      });
      assert.ok(compiled.ok);
      assert.deepEqual(compiled.validator.validate({ a: 1 }), { valid: true });
      assert.equal(compiled.validator.validate({ a: true }).valid, false);
    });

    it('keeps the existing error for an unknown format', () => {
      assert.deepEqual(compileToolSchema({ type: 'object', properties: { a: { type: 'string', format: 'colour' } } }), {
        ok: false,
        error: 'input schema: unknown format "colour" in schema at path "#/properties/a"',
      });
    });
  });

  describe('code injection through a schema is impossible', () => {
    const hostile = [
      '"]); process.exit(1); //',
      '`${process.exit(1)}`',
      '\\',
      '\u2028',
      '\u2029',
      '*/ throw 1; /*',
      "'",
      '\n}return true;{',
    ];

    it('treats hostile property names as plain keys', () => {
      for (const name of hostile) {
        const fn = subsetOf({
          type: 'object',
          properties: { [name]: { type: 'integer' } },
          required: [name],
          additionalProperties: false,
        });
        assert.equal(fn({ [name]: 1 }), true, name);
        assert.equal(fn({ [name]: 'x' }), false, name);
        assert.equal(fn({}), false, name);
        assert.equal(fn({ [name]: 1, other: 1 }), false, name);
      }
    });

    it('treats hostile enum values, patterns and required names as data', () => {
      const fn = subsetOf({
        type: 'object',
        properties: {
          a: { type: 'string', enum: hostile },
          b: { type: 'string', pattern: '^"\\]\\); process\\.exit\\(1\\);//`' },
        },
      });
      for (const value of hostile) assert.equal(fn({ a: value }), true);
      assert.equal(fn({ a: 'x' }), false);
      assert.equal(fn({ b: '"]); process.exit(1);//`' }), true);
      assert.equal(fn({ b: 'x' }), false);
      // A required "__proto__" is left to ajv, like a property of that name.
      assert.equal(compileSubset({ type: 'object', required: ['__proto__'] }), undefined);
    });

    it('refuses a non-number where a number is spliced', () => {
      assert.equal(
        compileSubset({ type: 'object', properties: { a: { type: 'integer', maximum: { valueOf: () => 1 } } } }),
        undefined,
      );
      assert.equal(
        compileSubset({ type: 'object', properties: { a: { type: 'string', maxLength: '1);process.exit(1);(' } } }),
        undefined,
      );
      assert.equal(
        compileSubset({ type: 'object', properties: { a: { type: 'integer', enum: [{ toString: () => 'x' }] } } }),
        undefined,
      );
    });
  });

  describe('compileToolSchema with the subset compiler', () => {
    it("validates generated schemas through the subset function and still exposes ajv's function for benchmarks", () => {
      const compiled = compileToolSchema(
        generateInputSchema({ limit: { type: 'integer', maximum: 100, required: true } }),
      );
      assert.ok(compiled.ok);
      assert.deepEqual(compiled.validator.validate({ limit: 5 }), { valid: true });
      assert.equal(compiled.validator.validate({ limit: 500 }).valid, false);
      const ajv = ajvFunctionOf(compiled.validator);
      assert.equal(typeof ajv, 'function');
      assert.equal(ajv?.({ limit: 5 }), true);
      assert.equal(ajv?.({ limit: 500 }), false);
    });
  });
});
