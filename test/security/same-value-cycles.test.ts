/**
 * A `$ref` cycle that reads no part of the value (through `allOf`, `anyOf`, `oneOf`, `not`, …) made every call
 * recurse until the stack overflowed (7.5 ms of event loop for a 30-byte call). Such a schema is refused where it
 * is compiled, naming where the cycle is: a raw `inputSchema`, an OpenAPI document, a gateway config. Recursion
 * that descends into the value each turn still compiles.
 */
import * as assert from 'node:assert/strict';
import { OpenApiServices, Service } from '../../constructs';
import { compileToolSchema } from '../../src/validation';
import { newStack, thrown } from '../constructs/synth';
import { botConfig, tool } from '../helpers/config';
import { startInProcessGateway } from '../helpers/in-process-gateway';
import { initializeSession, rawCall } from '../helpers/mcp';
import { documentFile, OK, openapi30 } from '../openapi/fixtures';

const REASON =
  'refers back to itself without reading any part of the value (through $ref, allOf, anyOf, oneOf, not, ' +
  'if/then/else or dependentSchemas), so every call would recurse without end; let each turn of the recursion ' +
  'descend into properties or items';

const CYCLES: Record<string, Record<string, unknown>> = {
  allOf: { type: 'object', properties: { a: { $ref: '#/$defs/a' } }, $defs: { a: { allOf: [{ $ref: '#/$defs/a' }] } } },
  'anyOf through two': {
    type: 'object',
    properties: { a: { $ref: '#/$defs/a' } },
    $defs: { a: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/b' }] }, b: { not: { $ref: '#/$defs/a' } } },
  },
  'the root itself': { type: 'object', allOf: [{ $ref: '#' }] },
  'if/then': { type: 'object', if: { $ref: '#/$defs/x' }, $defs: { x: { then: { $ref: '#/$defs/x' } } } },
};

describe('security: schemas that recurse without reading the value', () => {
  for (const [name, schema] of Object.entries(CYCLES)) {
    it(`refuses a cycle through ${name}, naming where it is`, () => {
      const compiled = compileToolSchema(schema);
      assert.equal(compiled.ok, false);
      assert.match((compiled as { error: string }).error, new RegExp(`^input schema: #\\S* ${escape(REASON)}$`));
    });
  }

  it('still compiles recursion that descends into the value (a tree of items, properties)', () => {
    const tree = {
      type: 'object',
      properties: { root: { $ref: '#/$defs/node' } },
      $defs: {
        node: {
          type: 'object',
          properties: { children: { type: 'array', items: { $ref: '#/$defs/node' } }, next: { $ref: '#/$defs/node' } },
          anyOf: [{ required: ['children'] }, { required: ['next'] }, { type: 'object' }],
        },
      },
    };
    assert.equal(compileToolSchema(tree).ok, true);
  });

  it('refuses it at synthesis (inputSchema)', () => {
    const message = thrown(
      () =>
        new Service(newStack(), 'loop', { endpoint: { url: 'http://a/x', method: 'POST' }, inputSchema: CYCLES.allOf }),
    ).message;
    assert.match(message, new RegExp(escape(REASON)));
  });

  it('fails the tool closed when a config holds one: Tool unavailable, the reason logged, other tools served', async () => {
    const gw = await startInProcessGateway(
      botConfig([
        tool('loop', 'http://127.0.0.1:9/x', { inputSchema: CYCLES.allOf }),
        tool('ok', 'http://127.0.0.1:9/y'),
      ]),
    );
    try {
      const session = await initializeSession(gw.url);
      const reply = await rawCall(gw.url, session, 'loop', { a: 1 });
      assert.deepEqual(reply.error, { code: -32603, message: 'Tool unavailable: `loop`' });
      assert.ok(gw.logs.some((l) => JSON.stringify(l).includes('refers back to itself without reading')));
      const ok = await rawCall(gw.url, session, 'ok', {});
      assert.equal(ok.error, undefined);
    } finally {
      await gw.close();
    }
  });

  it('refuses it in an OpenAPI document, naming the operation', () => {
    const doc = openapi30(
      {
        '/x': {
          post: {
            operationId: 'loop',
            requestBody: {
              required: true,
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Loop' } } },
            },
            responses: OK,
          },
        },
      },
      {
        schemas: {
          Loop: { type: 'object', properties: { a: { $ref: '#/components/schemas/A' } } },
          A: { allOf: [{ $ref: '#/components/schemas/A' }] },
        },
      },
    );
    const message = thrown(() => new OpenApiServices(newStack(), 'api', { document: documentFile(doc) })).message;
    assert.match(message, /loop|\/paths\/~1x\/post/);
    assert.match(message, /refers back to itself without reading any part of the value/);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
