/**
 * An OpenAPI document that reuses a definition twice per level, 18 levels deep (2.5 KB), took 46 s and 3.2 GB at
 * synthesis before crashing: shared `$ref`s are inlined at every use. Synthesis now refuses it with a reason,
 * naming the operation and where, before the parser inlines it, naming where (a generous time bound below; it takes milliseconds).
 */
import * as assert from 'node:assert/strict';
import { OpenApiServices } from '../../constructs';
import { newStack, thrown } from '../constructs/synth';
import { documentFile, OK, openapi30 } from '../openapi/fixtures';

function doubling(levels: number): unknown {
  const schemas: Record<string, unknown> = { L0: { type: 'string' } };
  for (let i = 1; i <= levels; i++) {
    schemas[`L${i}`] = {
      type: 'object',
      properties: { a: { $ref: `#/components/schemas/L${i - 1}` }, b: { $ref: `#/components/schemas/L${i - 1}` } },
    };
  }
  return openapi30(
    {
      '/x': {
        post: {
          operationId: 'bomb',
          requestBody: { content: { 'application/json': { schema: { $ref: `#/components/schemas/L${levels}` } } } },
          responses: OK,
        },
      },
    },
    { schemas },
  );
}

describe('security: shared OpenAPI $refs that would expand past any useful size', () => {
  for (const levels of [16, 18, 30]) {
    it(`refuses ${levels} levels of a definition reused twice per level, quickly, naming where`, () => {
      const started = Date.now();
      const message = thrown(
        () => new OpenApiServices(newStack(), 'api', { document: documentFile(doubling(levels)) }),
      ).message;
      assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
      assert.match(message, /#\/components\/schemas\/L\d+/);
      assert.match(message, /expands to more than 50,000 schema nodes once its shared \$refs are inlined/);
    });
  }

  it('still synthesizes reuse that stays small (10 levels: about 2,000 nodes)', () => {
    const api = new OpenApiServices(newStack(), 'api', { document: documentFile(doubling(10)) });
    assert.equal(api.services.length, 1);
  });
});
