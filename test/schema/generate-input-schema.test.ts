import * as assert from 'node:assert/strict';
import { generateInputSchema, InputSpec, InputSpecError } from '../../src/schema';

function refusedWith(input: unknown, message: string): void {
  assert.throws(
    () => generateInputSchema(input as InputSpec),
    (err: unknown) => {
      assert.ok(err instanceof InputSpecError, 'expected an InputSpecError');
      assert.equal(err.message, message);
      return true;
    },
  );
}

describe('generateInputSchema', () => {
  it('generates a closed root with properties and required in declaration order', () => {
    const schema = generateInputSchema({
      customer_id: { type: 'string', required: true, description: 'CRM id' },
      limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
      status: { type: 'string', enum: ['open', 'closed'] },
      at: { type: 'string', required: true, format: 'date-time' },
    });
    assert.equal(
      JSON.stringify(schema),
      JSON.stringify({
        type: 'object',
        properties: {
          customer_id: { type: 'string', description: 'CRM id' },
          limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
          status: { type: 'string', enum: ['open', 'closed'] },
          at: { type: 'string', format: 'date-time' },
        },
        required: ['customer_id', 'at'],
        additionalProperties: false,
      }),
    );
  });

  it('generates {"type":"object","properties":{},"additionalProperties":false} for a parameterless tool', () => {
    const expected = '{"type":"object","properties":{},"additionalProperties":false}';
    assert.equal(JSON.stringify(generateInputSchema(undefined)), expected);
    assert.equal(JSON.stringify(generateInputSchema({})), expected);
  });

  it('closes nested objects with properties and leaves objects without properties open', () => {
    const schema = generateInputSchema({
      customer: {
        type: 'object',
        required: true,
        properties: {
          addresses: {
            type: 'array',
            items: { type: 'object', properties: { zip_code: { type: 'integer', required: true } } },
          },
        },
      },
      metadata: { type: 'object' },
      extras: { type: 'object', properties: { id: { type: 'string' } }, additionalProperties: true },
    });
    assert.deepEqual(schema.properties, {
      customer: {
        type: 'object',
        properties: {
          addresses: {
            type: 'array',
            items: {
              type: 'object',
              properties: { zip_code: { type: 'integer' } },
              required: ['zip_code'],
              additionalProperties: false,
            },
          },
        },
        additionalProperties: false,
      },
      metadata: { type: 'object' },
      extras: { type: 'object', properties: { id: { type: 'string' } }, additionalProperties: true },
    });
  });

  it('never advertises aliases, forwardAs or the required flag', () => {
    const text = JSON.stringify(
      generateInputSchema({
        prompt: { type: 'string', required: true, aliases: ['description'], forwardAs: 'description' },
      }),
    );
    assert.equal(
      text,
      '{"type":"object","properties":{"prompt":{"type":"string"}},"required":["prompt"],"additionalProperties":false}',
    );
  });

  it('emits every constraint in a fixed order, whatever the order of the spec', () => {
    const a = generateInputSchema({
      tags: {
        uniqueItems: true,
        maxItems: 10,
        minItems: 1,
        items: { maxLength: 32, minLength: 1, pattern: '^[a-z]+$', type: 'string' },
        type: 'array',
      },
      n: { exclusiveMaximum: 10, exclusiveMinimum: 0, type: 'number' },
    });
    const b = generateInputSchema({
      tags: {
        type: 'array',
        items: { type: 'string', pattern: '^[a-z]+$', minLength: 1, maxLength: 32 },
        minItems: 1,
        maxItems: 10,
        uniqueItems: true,
      },
      n: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 10 },
    });
    assert.equal(JSON.stringify(a), JSON.stringify(b));
    assert.equal(
      JSON.stringify(a.properties),
      '{"tags":{"type":"array","minItems":1,"maxItems":10,"uniqueItems":true,' +
        '"items":{"type":"string","minLength":1,"maxLength":32,"pattern":"^[a-z]+$"}},"n":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":10}}',
    );
  });

  it('accepts uniqueItems on objects without maxItems: uniqueness is checked in linear time', () => {
    assert.deepEqual(
      generateInputSchema({ xs: { type: 'array', uniqueItems: true, items: { type: 'object' } } }).properties,
      { xs: { type: 'array', uniqueItems: true, items: { type: 'object' } } },
    );
  });
  it('does not emit uniqueItems: false', () => {
    assert.deepEqual(generateInputSchema({ t: { type: 'array', uniqueItems: false } }).properties, {
      t: { type: 'array' },
    });
  });

  it('refuses __proto__, constructor and prototype as parameter names, aliases and forwardAs targets', () => {
    const reason = (n: string) =>
      `"${n}" is reserved (JavaScript objects inherit or use it: __proto__, constructor, prototype)`;
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      refusedWith(
        JSON.parse(`{"${name}": {"type": "string"}}`),
        `Invalid input spec at \`${name}\`: the name ${reason(name)}; choose another name`,
      );
      refusedWith(
        { prompt: { type: 'string', aliases: [name] } },
        `Invalid input spec at \`prompt\`: alias ${reason(name)}; choose another alias`,
      );
      refusedWith(
        { prompt: { type: 'string', forwardAs: name } },
        `Invalid input spec at \`prompt\`: forwardAs ${reason(name)}; choose another backend field name`,
      );
    }
  });
  it('refuses __proto__ as a nested property name too, and allows constructor and toString there', () => {
    refusedWith(
      { o: { type: 'object', properties: JSON.parse('{"__proto__": {"type": "string"}}') } },
      'Invalid input spec at `o.__proto__`: the name "__proto__" is not supported; choose another name',
    );
    const schema = generateInputSchema({
      o: {
        type: 'object',
        properties: {
          constructor: { type: 'string' as const, required: true },
          toString: { type: 'integer' as const },
        },
      },
    });
    assert.deepEqual(Object.keys((schema.properties as Record<string, { properties: object }>).o.properties), [
      'constructor',
      'toString',
    ]);
  });
});

describe('generateInputSchema: refuses an invalid spec with the path and a fix', () => {
  const cases: [string, unknown, string][] = [
    [
      'an input that is not an object',
      [],
      "Invalid input spec: expected an object mapping parameter names to parameter specs, e.g. { id: { type: 'string' } }",
    ],
    [
      'an unknown type',
      { limit: { type: 'int' } },
      'Invalid input spec at `limit`: unknown type "int"; use one of string, integer, number, boolean, array, object',
    ],
    [
      'a missing type',
      { limit: {} },
      'Invalid input spec at `limit`: missing type; use one of string, integer, number, boolean, array, object',
    ],
    [
      'a spec that is not an object',
      { limit: 'integer' },
      "Invalid input spec at `limit`: expected a parameter spec object such as { type: 'string' }",
    ],
    [
      'an unknown attribute (a typo)',
      { id: { type: 'string', requried: true } },
      'Invalid input spec at `id`: unknown attribute "requried"; use one of type, required, description, default, aliases, forwardAs, enum, minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern, format, minItems, maxItems, uniqueItems, items, properties, additionalProperties',
    ],
    [
      'null in enum',
      { s: { type: 'string', enum: ['a', null] } },
      'Invalid input spec at `s`: enum must not contain null; an optional parameter is expressed by leaving it out',
    ],
    [
      'an enum value of the wrong type',
      { p: { type: 'integer', enum: [1, '2'] } },
      'Invalid input spec at `p`: enum value "2" (at index 1) is not of type integer; list only integer values',
    ],
    [
      'a fraction in an integer enum',
      { p: { type: 'integer', enum: [1.5] } },
      'Invalid input spec at `p`: enum value 1.5 (at index 0) is not of type integer; list only integer values',
    ],
    [
      'an empty enum',
      { p: { type: 'string', enum: [] } },
      'Invalid input spec at `p`: enum must be a non-empty array of the allowed values',
    ],
    [
      'a duplicate enum value',
      { p: { type: 'string', enum: ['a', 'a'] } },
      'Invalid input spec at `p`: enum lists "a" twice; list each allowed value once',
    ],
    [
      'enum on an array',
      { p: { type: 'array', enum: ['a'] } },
      'Invalid input spec at `p`: enum applies to string, integer, number, boolean parameters, not array; remove it or change the type',
    ],
    [
      'nested aliases',
      { c: { type: 'object', properties: { p: { type: 'string', aliases: ['q'] } } } },
      'Invalid input spec at `c.p`: aliases is only supported on top-level parameters; remove it from this nested one',
    ],
    [
      'nested forwardAs',
      { xs: { type: 'array', items: { type: 'string', forwardAs: 'y' } } },
      'Invalid input spec at `xs[]`: forwardAs is only supported on top-level parameters; remove it from this nested one',
    ],
    [
      'a constraint on the wrong type',
      { n: { type: 'integer', maxLength: 3 } },
      'Invalid input spec at `n`: maxLength applies to string parameters, not integer; remove it or change the type',
    ],
    [
      'properties on a string',
      { n: { type: 'string', properties: {} } },
      'Invalid input spec at `n`: properties applies to object parameters, not string; remove it or change the type',
    ],
    [
      'an invalid regex',
      { code: { type: 'string', pattern: '([A-Z' } },
      'Invalid input spec at `code`: pattern "([A-Z" is not a valid ECMAScript (unicode mode) regular expression: Invalid regular expression: /([A-Z/u: Unterminated character class',
    ],
    [
      'an unsupported format',
      { phone: { type: 'string', format: 'phone' } },
      'Invalid input spec at `phone`: unsupported format "phone"; use one of date-time, date, time, email, uri, uuid, hostname, ipv4, ipv6, or a pattern',
    ],
    [
      'minimum above maximum',
      { n: { type: 'number', minimum: 5, maximum: 1 } },
      'Invalid input spec at `n`: minimum (5) must be <= maximum (1); no value could pass',
    ],
    [
      'a negative length',
      { s: { type: 'string', minLength: -1 } },
      'Invalid input spec at `s`: minLength must be a non-negative integer, got -1',
    ],
    [
      'a non-finite bound',
      { n: { type: 'number', maximum: Infinity } },
      'Invalid input spec at `n`: maximum must be a finite number, got Infinity',
    ],
    [
      'required on array items',
      { xs: { type: 'array', items: { type: 'string', required: true } } },
      'Invalid input spec at `xs[]`: required has no meaning on array items; remove it (use minItems to require elements)',
    ],
    [
      'a deep bad spec, named by its argument path',
      {
        customer: {
          type: 'object',
          properties: {
            addresses: { type: 'array', items: { type: 'object', properties: { zip_code: { type: 'integr' } } } },
          },
        },
      },
      'Invalid input spec at `customer.addresses[].zip_code`: unknown type "integr"; use one of string, integer, number, boolean, array, object',
    ],
    [
      'a closed object without properties',
      { m: { type: 'object', additionalProperties: false } },
      'Invalid input spec at `m`: additionalProperties: false without properties would accept only {}; declare properties',
    ],
    [
      'a default of the wrong type',
      { n: { type: 'integer', default: 'ten' } },
      'Invalid input spec at `n`: default must be of type integer, like the parameter (it is advertised, never applied)',
    ],
    [
      'an empty parameter name',
      { '': { type: 'string' } },
      'Invalid input spec: a parameter name is empty; give every parameter a name',
    ],
    [
      'an alias equal to another parameter',
      { prompt: { type: 'string', aliases: ['title'] }, title: { type: 'string' } },
      'Invalid input spec at `prompt`: alias "title" clashes with the parameter `title`; choose another alias',
    ],
    [
      'an alias used by two parameters',
      { a: { type: 'string', aliases: ['x'] }, b: { type: 'string', aliases: ['x'] } },
      'Invalid input spec at `b`: alias "x" clashes with an alias of `a`; choose another alias',
    ],
    [
      'an alias equal to its own parameter',
      { a: { type: 'string', aliases: ['a'] } },
      'Invalid input spec at `a`: alias "a" is the parameter\'s own name; remove it',
    ],
    [
      'two parameters forwarded to one backend field',
      { a: { type: 'string', forwardAs: 'b' }, b: { type: 'string' } },
      'Invalid input spec at `b`: forwardAs sends it to the backend field "b", which `a` also uses; choose distinct backend fields',
    ],
    [
      'aliases that are not strings',
      { a: { type: 'string', aliases: 'x' } },
      'Invalid input spec at `a`: aliases must be an array of non-empty strings',
    ],
  ];
  for (const [label, input, message] of cases) {
    it(`refuses ${label}`, () => refusedWith(input, message));
  }
  it('names a non-identifier parameter in the ["key"] form', () => {
    refusedWith(
      { 'zip code': { type: 'nope' } },
      'Invalid input spec at `["zip code"]`: unknown type "nope"; use one of string, integer, number, boolean, array, object',
    );
  });
  it('exposes the path on the error', () => {
    try {
      generateInputSchema({ a: { type: 'object', properties: { b: { type: 'x' as 'string' } } } });
      assert.fail('expected a throw');
    } catch (err) {
      assert.ok(err instanceof InputSpecError);
      assert.equal(err.path, 'a.b');
      assert.equal(err.name, 'InputSpecError');
    }
  });
});
