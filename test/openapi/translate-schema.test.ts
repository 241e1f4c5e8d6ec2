import * as assert from 'node:assert/strict';
import { SchemaTranslator, loadOpenApiDocument, openApiOperations } from '../../src/openapi';
import { compileToolSchema } from '../../src/validation';
import { documentFile, OK, openapi30, TICKETS } from './fixtures';

function operations(document: unknown) {
  return openApiOperations(loadOpenApiDocument(documentFile(document)), new Set()).operations;
}

/** A GET operation `op` whose one query parameter `x` has `schema`. */
function queryParam(schema: unknown) {
  const [op] = operations(
    openapi30({
      '/a': { get: { operationId: 'op', parameters: [{ name: 'x', in: 'query', schema }], responses: OK } },
    }),
  );
  return (op.inputSchema.properties as Record<string, unknown>).x;
}

/** The input schema of a PUT operation whose JSON body has `schema`. */
function queryParamBody(schema: unknown) {
  const [op] = operations(
    openapi30({
      '/a': { put: { operationId: 'op', requestBody: { content: { 'application/json': { schema } } }, responses: OK } },
    }),
  );
  return op.inputSchema;
}

describe('OpenAPI schema translation', () => {
  it('turns 3.0 nullable into a type union and boolean exclusive bounds into numbers', () => {
    assert.deepEqual(queryParam({ type: 'integer', nullable: true, minimum: 0, exclusiveMinimum: true, maximum: 9 }), {
      type: ['integer', 'null'],
      exclusiveMinimum: 0,
      maximum: 9,
    });
    assert.deepEqual(queryParam({ type: 'string', enum: ['a', 'b'], nullable: true }), {
      type: ['string', 'null'],
      enum: ['a', 'b', null],
    });
    assert.deepEqual(queryParam({ type: 'number', maximum: 5, exclusiveMaximum: false, example: 3 }), {
      type: 'number',
      maximum: 5,
    });
  });

  it('keeps formats the gateway checks and drops the others (annotations in JSON Schema)', () => {
    assert.deepEqual(queryParam({ type: 'string', format: 'uuid' }), { type: 'string', format: 'uuid' });
    assert.deepEqual(queryParam({ type: 'integer', format: 'int32' }), { type: 'integer', format: 'int32' });
    assert.deepEqual(queryParam({ type: 'string', format: 'x-custom' }), { type: 'string' });
  });

  it('keeps recursion as $defs at the root of the tool schema, which compiles', () => {
    const doc = openapi30(
      {
        '/nodes': {
          post: {
            operationId: 'addNode',
            requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } },
            responses: OK,
          },
        },
      },
      {
        schemas: {
          Node: {
            type: 'object',
            required: ['name'],
            properties: {
              name: { type: 'string' },
              children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
            },
          },
        },
      },
    );
    const [op] = operations(doc);
    assert.deepEqual(op.inputSchema, {
      type: 'object',
      properties: {
        name: { type: 'string' },
        children: { type: 'array', items: { $ref: '#/$defs/Node' } },
      },
      additionalProperties: false,
      $defs: {
        Node: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
          additionalProperties: false,
        },
      },
    });
    const compiled = compileToolSchema(op.inputSchema);
    assert.ok(compiled.ok);
    const result = compiled.validator.validate({ name: 'a', children: [{ name: 'b', children: [{ extra: 1 }] }] });
    assert.equal(result.valid, false);
    assert.equal(
      result.valid ? '' : result.message,
      'Missing required parameter: `children[0].children[0].name`; Unknown parameter: `children[0].children[0].extra`',
    );
  });

  it('merges allOf object branches into one closed object', () => {
    const [op] = operations(
      openapi30(
        {
          '/pets': {
            post: {
              operationId: 'addPet',
              requestBody: {
                required: true,
                content: {
                  'application/json': {
                    schema: {
                      allOf: [
                        { $ref: '#/components/schemas/Base' },
                        { type: 'object', required: ['tag'], properties: { tag: { type: 'string' } } },
                      ],
                    },
                  },
                },
              },
              responses: OK,
            },
          },
        },
        { schemas: { Base: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } } },
      ),
    );
    assert.deepEqual(op.inputSpec, {
      name: { type: 'string', required: true },
      tag: { type: 'string', required: true },
    });
  });

  it('closes an allOf it cannot merge with unevaluatedProperties, so an unknown field is still refused', () => {
    const schema = queryParamBody({
      allOf: [
        {
          type: 'object',
          properties: { kind: { type: 'string' } },
          oneOf: [{ required: ['kind'] }, { required: ['id'] }],
        },
        { type: 'object', properties: { id: { type: 'integer' } } },
      ],
    });
    const compiled = compileToolSchema(schema);
    assert.ok(compiled.ok);
    const refused = compiled.validator.validate({ body: { kind: 'a', extra: 1 } });
    assert.equal(refused.valid ? '' : refused.message, 'Unknown parameter: `body.extra`');
    assert.deepEqual(compiled.validator.validate({ body: { kind: 'a' } }), { valid: true });
  });

  it('declares the first 2xx JSON object schema as output: the document meaning kept, writeOnly left out', () => {
    const [op] = operations(TICKETS);
    assert.deepEqual(op.outputSchema, {
      type: 'object',
      required: ['id', 'title'],
      properties: { id: { type: 'string' }, title: { type: 'string' }, priority: { type: ['integer', 'null'] } },
    });
    const compiled = compileToolSchema(op.outputSchema!);
    assert.ok(compiled.ok);
    // undocumented fields pass (the document leaves the object open); a wrong type is named with its path
    assert.deepEqual(compiled.validator.validate({ id: 'T-1', title: 'x', priority: null, undocumented: true }), {
      valid: true,
    });
    const wrong = compiled.validator.validate({ id: 'T-1', title: 'x', priority: 'high' });
    assert.equal(wrong.valid ? '' : wrong.message, 'Invalid type for `priority`: expected integer or null');
  });

  it('declares no output for a 2xx that is not a JSON object', () => {
    const [op] = operations(
      openapi30({
        '/list': {
          get: {
            operationId: 'list',
            responses: {
              '200': { description: 'ok', content: { 'application/json': { schema: { type: 'array', items: {} } } } },
            },
          },
        },
      }),
    );
    assert.equal(op.outputSchema, undefined);
  });

  it('refuses a keyword outside JSON Schema with its pointer', () => {
    const translator = new SchemaTranslator({}, '3.0', 'input');
    assert.throws(() => translator.translate({ type: 'string', frobnicate: 1 }, '#/x'), {
      message: '#/x/frobnicate: the keyword "frobnicate" is not supported',
    });
  });
});
