import * as assert from 'node:assert/strict';
import { compileToolSchema, ToolValidator, ValidationResult } from '../../src/validation';
import { runBounded } from './bounded';

function raw(schema: Record<string, unknown>): ToolValidator {
  const compiled = compileToolSchema(schema);
  if (!compiled.ok) throw new Error(compiled.error);
  return compiled.validator;
}

function messageOf(result: ValidationResult): string {
  assert.equal(result.valid, false, 'expected a refusal');
  return result.valid ? '' : result.message;
}

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});

describe('compileToolSchema: schemas that cannot compile fail closed', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    [
      'an unknown type',
      obj({ a: { type: 'int' } }),
      'input schema: schema is invalid: data/properties/a/type must be equal to one of the allowed values, data/properties/a/type must be array, data/properties/a/type must match a schema in anyOf',
    ],
    ['an invalid regular expression', obj({ a: { type: 'string', pattern: '([' } }), ''],
    [
      'an unknown format',
      obj({ a: { type: 'string', format: 'phone' } }),
      'input schema: unknown format "phone" in schema at path "#/properties/a"',
    ],
    [
      'a remote $ref',
      obj({ a: { $ref: 'https://example.com/schema.json' } }),
      "input schema: can't resolve reference https://example.com/schema.json from id #",
    ],
    [
      'a property named __proto__',
      JSON.parse('{"type":"object","properties":{"__proto__":{"type":"number"}}}'),
      'input schema: a key named "__proto__" is not supported; rename it',
    ],
    ['an empty enum', obj({ a: { enum: [] } }), 'input schema: enum must have non-empty array'],
    [
      'another dialect',
      { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' },
      'input schema: $schema "http://json-schema.org/draft-07/schema#" is not supported; use "https://json-schema.org/draft/2020-12/schema" or leave it out',
    ],
    [
      'a root that cannot be an object',
      { type: 'array' },
      'input schema: the root must accept objects (use "type": "object")',
    ],
    // ajv does not check a required empty name; the subset compiler did: refused rather than inconsistent.
    [
      'a required empty name',
      { type: 'object', required: [''] },
      'input schema: #/required lists the empty property name "", which ajv does not check; rename that property',
    ],
    [
      'a nested required empty name',
      obj({ a: { anyOf: [{ required: ['x', ''] }] } }),
      'input schema: #/properties/a/anyOf/0/required lists the empty property name "", which ajv does not check; rename that property',
    ],
    [
      'a dependentRequired empty name',
      { type: 'object', dependentRequired: { a: [''] } },
      'input schema: #/dependentRequired lists the empty property name "", which ajv does not check; rename that property',
    ],
  ];
  for (const [label, schema, error] of cases) {
    it(`returns { ok: false } for ${label}`, () => {
      const result = compileToolSchema(schema);
      assert.equal(result.ok, false);
      if (!result.ok) {
        assert.match(result.error, /^input schema: \S/);
        if (error !== '') assert.equal(result.error, error);
      }
    });
  }
  it('returns { ok: false } for a value that is not JSON instead of throwing', () => {
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.self = cyclic;
    assert.equal(compileToolSchema(cyclic).ok, false);
    assert.deepEqual(compileToolSchema({ type: 'object', properties: { a: { minimum: Infinity } } }), {
      ok: false,
      error: 'input schema: not JSON (Infinity is not a JSON number)',
    });
    assert.deepEqual(compileToolSchema(null as unknown as Record<string, unknown>), {
      ok: false,
      error: 'input schema: must be a JSON object',
    });
  });
  it('remembers a failure and a success per schema', () => {
    const schema = obj({ a: { type: 'string' } });
    const first = compileToolSchema(schema);
    const second = compileToolSchema(JSON.parse(JSON.stringify(schema)));
    assert.equal(first.ok && second.ok, true);
  });
  it('accepts the 2020-12 $schema', () => {
    assert.equal(
      compileToolSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' }).ok,
      true,
    );
  });
  it('compiles schemas with the same $id more than once', () => {
    const a = compileToolSchema({
      $id: 'https://example.com/t',
      type: 'object',
      properties: { a: { type: 'string' } },
    });
    const b = compileToolSchema({
      $id: 'https://example.com/t',
      type: 'object',
      properties: { b: { type: 'string' } },
    });
    assert.equal(a.ok, true);
    assert.equal(b.ok, true);
  });
});

describe('compileToolSchema: key order of equal schemas', () => {
  it('reports properties in the order of the schema it was given, even when an equal schema was compiled first', () => {
    const first = raw({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      required: ['a', 'b'],
    });
    const second = raw({
      type: 'object',
      properties: { b: { type: 'string' }, a: { type: 'string' } },
      required: ['a', 'b'],
    });
    assert.equal(
      messageOf(first.validate({ a: 1, b: 1 })),
      'Invalid type for `a`: expected string; Invalid type for `b`: expected string',
    );
    assert.equal(
      messageOf(second.validate({ a: 1, b: 1 })),
      'Invalid type for `b`: expected string; Invalid type for `a`: expected string',
    );
  });
});

describe('compileToolSchema: the schema as it was when compiled', () => {
  // The subset compiler decides at load and writes its function on the first call, from a private copy; ajv
  // compiles a copy at load. Changing the caller's object in between changes neither.
  for (const [label, extra] of [
    ['a schema the subset compiler takes', {}],
    ['a schema ajv compiles', { minProperties: 1 }],
  ] as const) {
    it(`keeps the verdicts and messages of ${label} when the caller changes its object afterwards`, () => {
      const schema = {
        type: 'object',
        properties: { n: { type: 'integer', maximum: 10 }, s: { type: 'string', pattern: '^a+$' } },
        required: ['n'],
        ...extra,
      };
      const v = raw(schema);
      schema.properties.n.maximum = 1000;
      schema.properties.s.pattern = '^b+$';
      schema.required.pop();
      (schema.properties as Record<string, unknown>).extra = { type: 'string' };
      assert.equal(messageOf(v.validate({ n: 11 })), 'Invalid value for `n`: expected <= 10');
      assert.equal(messageOf(v.validate({ n: 1, s: 'b' })), 'Invalid value for `s`: expected to match pattern ^a+$');
      assert.equal(messageOf(v.validate({})), 'Missing required parameter: `n`');
      assert.equal(v.validate({ n: 10, s: 'aa', extra: 5 }).valid, true);
    });
  }
});

describe('validate: raw inputSchema is validated exactly as written', () => {
  it('admits null where the schema says so, in a type list', () => {
    const v = raw(obj({ note: { type: ['string', 'null'] } }));
    assert.deepEqual(v.validate({ note: null }), { valid: true });
    assert.equal(messageOf(v.validate({ note: 1 })), 'Invalid type for `note`: expected string or null');
  });
  it('allows unknown keys when the root does not close itself', () => {
    assert.deepEqual(raw(obj({ a: { type: 'string' } })).validate({ b: 1 }), { valid: true });
  });
  it('checks const', () => {
    assert.equal(
      messageOf(raw(obj({ v: { const: 'v1' } })).validate({ v: 'v2' })),
      'Invalid value for `v`: expected exactly "v1"',
    );
  });
  it('maps anyOf to "expected to match one of the allowed schemas" without the branch errors', () => {
    const v = raw(obj({ id: { anyOf: [{ type: 'string' }, { type: 'integer' }] } }));
    assert.deepEqual(v.validate({ id: true }), {
      valid: false,
      message: 'Invalid value for `id`: expected to match one of the allowed schemas',
      violations: [
        { path: 'id', rule: 'anyOf', message: 'Invalid value for `id`: expected to match one of the allowed schemas' },
      ],
    });
  });
  it('maps oneOf with no match and with two matches', () => {
    const v = raw(obj({ n: { oneOf: [{ type: 'integer' }, { minimum: 0 }] } }));
    assert.equal(
      messageOf(v.validate({ n: -1.5 })),
      'Invalid value for `n`: expected to match one of the allowed schemas',
    );
    assert.equal(
      messageOf(v.validate({ n: 2 })),
      'Invalid value for `n`: expected to match exactly one of the allowed schemas',
    );
  });
  it('maps not', () => {
    assert.equal(
      messageOf(raw(obj({ s: { not: { type: 'string' } } })).validate({ s: 'x' })),
      'Invalid value for `s`: expected not to match the disallowed schema',
    );
  });
  it('follows a local $ref', () => {
    const v = raw({
      type: 'object',
      properties: { b: { $ref: '#/$defs/code' } },
      $defs: { code: { type: 'string', minLength: 2 } },
    });
    assert.deepEqual(v.validate({ b: 'x' }), {
      valid: false,
      message: 'Invalid value for `b`: expected at least 2 characters',
      violations: [{ path: 'b', rule: 'minLength', message: 'Invalid value for `b`: expected at least 2 characters' }],
    });
  });
  it('reports the failing then branch of if/then', () => {
    const v = raw({
      type: 'object',
      if: { properties: { kind: { const: 'email' } }, required: ['kind'] },
      then: { required: ['address'] },
    });
    assert.equal(messageOf(v.validate({ kind: 'email' })), 'Missing required parameter: `address`');
  });
  it('maps dependentRequired to a missing parameter', () => {
    const v = raw({ type: 'object', dependentRequired: { card: ['cvv'] } });
    assert.deepEqual(v.validate({ card: '4111' }), {
      valid: false,
      message: 'Missing required parameter: `cvv`',
      violations: [{ path: 'cvv', rule: 'dependentRequired', message: 'Missing required parameter: `cvv`' }],
    });
  });
  it('maps minProperties, multipleOf, contains and propertyNames', () => {
    assert.equal(
      messageOf(raw({ type: 'object', minProperties: 1 }).validate({})),
      'Invalid arguments: expected at least 1 property',
    );
    assert.equal(
      messageOf(raw(obj({ n: { multipleOf: 5 } })).validate({ n: 7 })),
      'Invalid value for `n`: expected a multiple of 5',
    );
    assert.equal(
      messageOf(raw(obj({ xs: { contains: { type: 'integer' } } })).validate({ xs: ['a'] })),
      'Invalid value for `xs`: expected at least 1 matching item',
    );
    assert.equal(
      messageOf(raw({ type: 'object', propertyNames: { maxLength: 3 } }).validate({ long: 1 })),
      'Invalid parameter name: `long`',
    );
  });
  it('refuses unevaluated properties as unknown', () => {
    const v = raw({ type: 'object', allOf: [{ properties: { a: true } }], unevaluatedProperties: false });
    assert.deepEqual(v.validate({ a: 1, b: 2 }), {
      valid: false,
      message: 'Unknown parameter: `b`',
      violations: [{ path: 'b', rule: 'unevaluatedProperties', message: 'Unknown parameter: `b`' }],
    });
  });
  it('refuses a property whose schema is false', () => {
    assert.equal(
      messageOf(raw(obj({ gone: false })).validate({ gone: 1 })),
      'Invalid value for `gone`: expected no value',
    );
  });
  it('checks patternProperties without calling matching keys unknown', () => {
    const v = raw({ type: 'object', patternProperties: { '^x-': { type: 'string' } }, additionalProperties: false });
    assert.deepEqual(v.validate({ 'x-a': 's' }), { valid: true });
    assert.equal(
      messageOf(v.validate({ 'x-a': 1, y: 1 })),
      'Invalid type for `["x-a"]`: expected string; Unknown parameter: `y`',
    );
  });
  it('checks prefixItems and items: false', () => {
    const v = raw(obj({ pt: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false } }));
    assert.equal(messageOf(v.validate({ pt: [1, 'a'] })), 'Invalid type for `pt[1]`: expected number');
    assert.equal(messageOf(v.validate({ pt: [1, 2, 3] })), 'Invalid value for `pt`: expected at most 2 items');
  });
  it('never returns raw ajv text or undefined for rejected calls', () => {
    const v = raw({
      type: 'object',
      properties: {
        a: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/n' }] },
        b: { type: 'array', maxContains: 1, contains: { const: 1 } },
      },
      $defs: { n: { type: 'number', multipleOf: 2 } },
      minProperties: 3,
    });
    const result = v.validate({ a: 3, b: [1, 1] });
    assert.equal(result.valid, false);
    if (!result.valid) {
      for (const violation of result.violations) {
        assert.match(
          violation.message,
          /^(Invalid (value|type) for `[^`]+`: expected |Invalid arguments: expected |Missing required parameter: `|Unknown parameter: `)/,
        );
        assert.doesNotMatch(violation.message, /must|undefined/);
      }
    }
  });
});

describe('compileToolSchema: numbers in raw schemas (ajv path)', () => {
  const v = raw(
    obj(
      {
        n: { type: 'integer' },
        x: { type: 'number' },
        either: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
        list: { type: ['integer', 'null'] },
        wide: { type: ['integer', 'number'] },
      },
      { additionalProperties: false, dependentRequired: { n: ['x'] } },
    ),
  );
  it('refuses 1e400 as an integer and as a number (strictNumbers)', () => {
    assert.equal(messageOf(v.validate(JSON.parse('{"x": 1e400}'))), 'Invalid type for `x`: expected number');
    assert.equal(messageOf(v.validate(JSON.parse('{"n": -1e400, "x": 1}'))), 'Invalid type for `n`: expected integer');
    assert.equal(
      messageOf(v.validate(JSON.parse('{"either": 1e400}'))),
      'Invalid value for `either`: expected to match one of the allowed schemas',
    );
  });
  it('refuses an integer beyond ±(2^53−1) where the type asks for an integer, not where it admits any number', () => {
    const expected = (p: string) =>
      `Invalid value for \`${p}\`: expected an integer between -9007199254740991 and 9007199254740991`;
    assert.equal(messageOf(v.validate({ n: 2 ** 53, x: 1 })), expected('n'));
    assert.equal(messageOf(v.validate({ list: -(2 ** 60) })), expected('list'));
    assert.equal(
      messageOf(v.validate({ either: 2 ** 53 })),
      'Invalid value for `either`: expected to match one of the allowed schemas',
    );
    assert.deepEqual(v.validate({ wide: 2 ** 60, x: 1e300, either: 2 ** 53 - 1 }), { valid: true });
  });
  it('explains the bound through the ajv error mapper too (a schema the walker cannot explain)', () => {
    const mapped = raw(obj({ n: { $ref: '#/$defs/big' } }, { $defs: { big: { type: 'integer' } } }));
    assert.equal(
      messageOf(mapped.validate({ n: 1e20 })),
      'Invalid value for `n`: expected an integer between -9007199254740991 and 9007199254740991',
    );
  });
});

describe('compileToolSchema: refusals the walker cannot explain stay bounded', () => {
  // Regressions: ajv's all-errors mode reported every error (schema size × data size of them) and the mapper then
  // compared each with every summary (10 s for 444 KiB). A worker stopped after a generous limit (bounded.ts)
  // turns a return of that into a failure rather than a hang.
  it('refuses an allOf of 10 anyOf over a 1 MiB array with the first error', async function () {
    this.timeout(30_000);
    const result = (await runBounded(`
      const { compileToolSchema } = require('./src/validation');
      const variants = Array.from({ length: 10 }, (_, k) => ({ anyOf: [{ type: 'string', minLength: k + 1 }, { type: 'number' }] }));
      const compiled = compileToolSchema({ type: 'object', properties: { items: { type: 'array', items: { allOf: variants } } } });
      return compiled.validator.validate({ items: Array.from({ length: ${(1 << 20) / 5} }, () => true) });`)) as ValidationResult;
    assert.equal(messageOf(result), 'Invalid value for `items[0]`: expected to match one of the allowed schemas');
  });
  it('refuses a map of 20,000 long keys sharing a prefix whose values match no anyOf branch', async function () {
    this.timeout(30_000);
    const result = (await runBounded(`
      const { compileToolSchema } = require('./src/validation');
      const compiled = compileToolSchema({ type: 'object', properties: { labels: { type: 'object',
        additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }] } } } });
      const labels = {};
      for (let i = 0; i < 20000; i++) labels['label_' + 'x'.repeat(40) + '_' + i] = true;
      return compiled.validator.validate({ labels });`)) as ValidationResult;
    assert.match(
      messageOf(result),
      /^Invalid value for `labels\.label_x+_0`: expected to match one of the allowed schemas/,
    );
  });
  it('still reports every error (up to 20) of a small refusal', () => {
    const v = raw(
      obj({
        a: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        b: { anyOf: [{ type: 'string' }, { type: 'number' }] },
      }),
    );
    assert.equal(
      messageOf(v.validate({ a: true, b: false })),
      'Invalid value for `a`: expected to match one of the allowed schemas; Invalid value for `b`: expected to match one of the allowed schemas',
    );
  });
  it("checks raw uniqueItems without maxItems in linear time, on the subset compiler's path and on ajv's", async function () {
    this.timeout(30_000);
    const messages = (await runBounded(`
      const { compileToolSchema } = require('./src/validation');
      const distinct = Array.from({ length: ${(1 << 20) / 24} }, (_, i) => ({ n: i, s: 'abcdef' }));
      const out = [];
      for (const tags of [{ type: 'array', uniqueItems: true }, { type: 'array', uniqueItems: true, items: { anyOf: [{ type: 'object' }, { type: 'string' }] } }]) {
        const compiled = compileToolSchema({ type: 'object', properties: { tags }, additionalProperties: false });
        out.push(compiled.validator.validate({ tags: distinct }).valid);
        // The equal pair first: ajv's pairwise loop, running from the end, compared every other pair before it.
        out.push(compiled.validator.validate({ tags: [{ s: 'abcdef', n: 0 }, ...distinct] }).message);
      }
      return out;`)) as (string | boolean)[];
    assert.deepEqual(messages, [
      true,
      'Invalid value for `tags`: expected unique items',
      true,
      'Invalid value for `tags`: expected unique items',
    ]);
  });
  it('finds two equal strings "__proto__" duplicates, as JSON Schema says (ajv\'s own keyword did not)', () => {
    for (const items of [{ type: 'string' }, { anyOf: [{ type: 'string' }] }]) {
      const v = raw(obj({ tags: { type: 'array', uniqueItems: true, items } }));
      assert.equal(
        messageOf(v.validate({ tags: ['__proto__', '__proto__'] })),
        'Invalid value for `tags`: expected unique items',
      );
      assert.deepEqual(v.validate({ tags: ['__proto__', 'constructor'] }), { valid: true });
    }
  });
});

describe('compileToolSchema: enum and const on hostile keys (ajv path)', () => {
  // Regression (found by the fuzzer): ajv's deep equality calls a `valueOf` or `toString` found on the data, so
  // `{"valueOf": null}` threw inside ajv and the call was refused as "could not be validated".
  const v = raw(
    obj({
      e: { enum: [{ a: 1 }, [1, 2], 'x'] },
      c: { const: { k: [1, { z: 2 }] } },
      n: { anyOf: [{ const: { a: 1 } }, { type: 'string' }] },
    }),
  );
  it('refuses objects with valueOf, toString or __proto__ keys by their value', () => {
    assert.equal(
      messageOf(v.validate(JSON.parse('{"c": {"valueOf": null}}'))),
      'Invalid value for `c`: expected exactly {"k":[1,{"z":2}]}',
    );
    assert.equal(
      messageOf(v.validate(JSON.parse('{"e": {"toString": 1}}'))),
      'Invalid value for `e`: expected one of {"a":1}, [1,2], "x"',
    );
    assert.equal(
      messageOf(v.validate(JSON.parse('{"n": {"__proto__": {"a": 1}}}'))),
      'Invalid value for `n`: expected to match one of the allowed schemas',
    );
  });
  it('accepts equal values whatever their key order', () => {
    assert.deepEqual(v.validate(JSON.parse('{"e": {"a": 1.0}, "c": {"k": [1, {"z": 2}]}, "n": {"a": 1}}')), {
      valid: true,
    });
  });
});

describe("compileToolSchema: the walker's step budget", () => {
  it("leaves a violation far beyond the budget to ajv's first error, still naming it", () => {
    const v = raw(obj({ v: { type: 'array', items: { not: { type: 'string' } } } }));
    const items: unknown[] = Array.from({ length: 300_000 }, () => 1);
    items.push('x');
    assert.equal(
      messageOf(v.validate({ v: items })),
      'Invalid value for `v[300000]`: expected not to match the disallowed schema',
    );
  });
});
