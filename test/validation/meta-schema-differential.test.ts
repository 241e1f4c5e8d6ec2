/**
 * A schema the subset compiler accepts is loaded without ajv's meta-schema check (its own checks are stricter).
 * These tests hold that: every schema the JSON Schema 2020-12 meta-schema refuses is still refused at load with
 * ajv's own message, on random near-miss schemas (generated schemas with one keyword broken) and on every schema of
 * the JSON Schema Test Suite (draft 2020-12), where it is present beside the repo.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as fc from 'fast-check';
import { generateInputSchema, InputSpec, ParamSpec } from '../../src/schema';
import { checkSchema } from '../../src/validation/ajv-instances';
import { compileToolSchema } from '../../src/validation/compile-tool-schema';
import { planSubset } from '../../src/validation/subset-compiler';

type Schema = Record<string, unknown>;

// Beside the repo, as CI clones it, or where JSON_SCHEMA_TEST_SUITE says (a checkout in a git worktree).
const SUITE_DIR = path.join(
  process.env.JSON_SCHEMA_TEST_SUITE ?? path.resolve(__dirname, '../../../shared/json-schema-test-suite'),
  'tests',
  'draft2020-12',
);

/** ajv's meta-schema refusal as compileToolSchema reports it, or `undefined` when the meta-schema accepts. */
function metaSchemaError(schema: unknown): string | undefined {
  try {
    checkSchema(schema as Schema);
    return undefined;
  } catch (err) {
    return `input schema: ${(err as Error).message.split('\n')[0]}`;
  }
}

/**
 * What must hold for `schema` (loaded as a tool's input schema): the meta-schema's refusal is the load's refusal,
 * word for word, and the subset compiler never takes a schema the meta-schema refuses.
 */
function assertStillRefused(schema: Schema): void {
  const expected = metaSchemaError(schema);
  const label = JSON.stringify(schema);
  if (planSubset(schema) !== undefined) assert.equal(expected, undefined, `the subset compiler took ${label}`);
  if (expected === undefined) return;
  // The checks before the meta-schema's (the root accepts objects, the dialect) are the same as before.
  if (schema.type !== 'object' || schema.$schema !== undefined) return;
  assert.deepEqual(compileToolSchema(schema), { ok: false, error: expected }, label);
}

const opt = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(a, { nil: undefined });
const scalar: fc.Arbitrary<ParamSpec> = fc.oneof(
  fc.record({
    type: fc.constant('string' as const),
    maxLength: opt(fc.integer({ min: 1, max: 9 })),
    pattern: opt(fc.constantFrom('^A-[0-9]{4}$', 'ab', '\\d')),
    format: opt(fc.constantFrom('date-time', 'email', 'uuid')),
  }),
  fc.record({ type: fc.constantFrom('integer' as const, 'number' as const), maximum: opt(fc.constantFrom(1, 100)) }),
  fc.record({ type: fc.constant('string' as const), enum: fc.constant(['a', 'b']) }),
  fc.constant({ type: 'boolean' } as ParamSpec),
);
const param: fc.Arbitrary<ParamSpec> = fc.oneof(
  scalar,
  fc.record({ type: fc.constant('array' as const), maxItems: fc.constant(5), items: scalar }),
  fc.record({ type: fc.constant('object' as const), properties: fc.dictionary(fc.constantFrom('a', 'b'), scalar) }),
);
const input: fc.Arbitrary<InputSpec> = fc.dictionary(
  fc.constantFrom('id', 'limit', 'tags', 'x'),
  fc.tuple(param, fc.boolean()).map(([s, required]) => (required ? { ...s, required: true } : s)),
  { minKeys: 1, maxKeys: 4 },
);

/** Keywords of the subset and around it, and values that break them (or not) in every way the meta-schema checks. */
const KEYWORDS = [
  'type',
  'enum',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'uniqueItems',
  'items',
  'properties',
  'required',
  'additionalProperties',
  'description',
  'title',
  'examples',
  'default',
  'const',
  'deprecated',
  'readOnly',
  '$comment',
  'patternProperties',
];
const VALUES: unknown[] = [
  -1,
  0,
  1,
  1.5,
  1e300,
  '1',
  '',
  null,
  true,
  false,
  [],
  [1],
  ['a'],
  ['a', 'a'],
  ['a', 1],
  [''],
  [{}],
  {},
  { a: 1 },
  { a: { type: 'nope' } },
  { a: { type: 'string', maxLength: -1 } },
  { type: 'string' },
  { type: 'nope' },
  'string',
  'object',
  ['string', 'null'],
  'nope',
  'email',
  'not-a-format',
  '(?i)a',
  'a\\Z',
  '[',
  '\\z',
  'x{2,1}',
  '(?P<n>a)',
  '(?<n>a)\\k<n>',
  '\\p{L}',
  '[[:alpha:]]',
  'a++',
  '\\Q.\\E',
];

/** Every object node of a schema, with a way to set one of its keys. */
function objectNodes(schema: unknown, out: Schema[] = []): Schema[] {
  if (typeof schema !== 'object' || schema === null) return out;
  if (!Array.isArray(schema)) out.push(schema as Schema);
  for (const value of Object.values(schema)) objectNodes(value, out);
  return out;
}

const nearMiss: fc.Arbitrary<Schema> = fc
  .tuple(
    input,
    fc.array(fc.tuple(fc.nat(), fc.constantFrom(...KEYWORDS), fc.constantFrom(...VALUES)), {
      minLength: 0,
      maxLength: 2,
    }),
  )
  .map(([spec, edits]) => {
    const schema = JSON.parse(JSON.stringify(generateInputSchema(spec))) as Schema;
    for (const [at, keyword, value] of edits) {
      const nodes = objectNodes(schema);
      // The root stays an object schema in the dialect: its own checks come before the meta-schema's.
      const node = nodes[at % nodes.length];
      if (node === schema && keyword === 'type') continue;
      node[keyword] = JSON.parse(JSON.stringify(value)) as unknown;
    }
    return schema;
  });

describe('meta-schema check of tool schemas left to the subset compiler', () => {
  it("refuses at load, with ajv's message, every near-miss schema the meta-schema refuses", () => {
    let refused = 0;
    let taken = 0;
    fc.assert(
      fc.property(nearMiss, (schema) => {
        if (metaSchemaError(schema) !== undefined) refused++;
        if (planSubset(schema) !== undefined) taken++;
        assertStillRefused(schema);
      }),
      { numRuns: 3000 },
    );
    // The generator must reach both sides, or the property says nothing.
    assert.ok(refused > 300, `only ${refused} of 3000 schemas were refused by the meta-schema`);
    assert.ok(taken > 300, `only ${taken} of 3000 schemas were taken by the subset compiler`);
  });

  it('refuses a pattern the meta-schema accepts but the linear-time engine cannot run, as before', () => {
    const schema = { type: 'object', properties: { id: { type: 'string', pattern: '(?i)^a$' } } };
    assert.equal(metaSchemaError(schema), undefined);
    assert.equal(planSubset(schema), undefined);
    assert.deepEqual(compileToolSchema(schema), {
      ok: false,
      error:
        'input schema: pattern "(?i)^a$" at #/properties/id/pattern is not a valid ECMAScript (unicode mode) regular expression: Invalid regular expression: /(?i)^a$/u: Invalid group',
    });
  });

  it('refuses properties: null and required: null, which the meta-schema refuses', () => {
    for (const keyword of ['properties', 'required']) {
      const schema = { type: 'object', [keyword]: null };
      assert.equal(planSubset(schema), undefined);
      assert.deepEqual(compileToolSchema(schema), {
        ok: false,
        error: `input schema: schema is invalid: data/${keyword} must be ${keyword === 'properties' ? 'object' : 'array'}`,
      });
    }
  });

  it('still refuses an empty required name with its own message', () => {
    const schema = { type: 'object', properties: { '': { type: 'string' } }, required: [''] };
    assert.equal(planSubset(schema), undefined);
    assert.deepEqual(compileToolSchema(schema), {
      ok: false,
      error:
        'input schema: #/required lists the empty property name "", which ajv does not check; rename that property',
    });
  });

  // As in json-schema-test-suite.test.ts: required under CI; elsewhere (a plain clone) pending, saying why.
  const present = existsSync(SUITE_DIR);
  const files = present
    ? readdirSync(SUITE_DIR, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'))
    : [];
  if (!present && process.env.CI !== 'true') {
    it(`refuses at load every JSON Schema Test Suite schema the meta-schema refuses (clone the suite to ${SUITE_DIR})`);
    return;
  }
  it(`refuses at load every JSON Schema Test Suite schema the meta-schema refuses (${files.length} files)`, () => {
    let schemas = 0;
    for (const file of files) {
      const groups = JSON.parse(readFileSync(path.join(SUITE_DIR, file), 'utf8')) as { schema: unknown }[];
      for (const { schema } of groups) {
        schemas++;
        // As a property of a tool's arguments, and as the arguments' schema itself where it is an object.
        assertStillRefused({ type: 'object', properties: { v: schema }, required: ['v'] });
        if (typeof schema === 'object' && schema !== null && !Array.isArray(schema)) {
          assertStillRefused({ ...(schema as Schema), type: 'object' });
        }
      }
    }
    assert.ok(schemas > 400, `only ${schemas} schemas read`);
  });
});
