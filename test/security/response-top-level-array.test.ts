/**
 * A top-level array answer (a list operation's) is redacted like an object's fields: `[].email` reaches every
 * element. An OpenAPI list operation whose override names `email` (which could never match an array) is refused at
 * synthesis with the path to write instead.
 */
import * as assert from 'node:assert/strict';
import { OpenApiServices } from '../../constructs';
import { compileResponseControls } from '../../src/response';
import { newStack, thrown } from '../constructs/synth';
import { documentFile, openapi30 } from '../openapi/fixtures';

const LIST = JSON.stringify([
  { id: 't1', email: 'ada@example.com', tags: ['a'] },
  { id: 't2', email: 'bob@example.com', owner: { email: 'carol@example.com' } },
]);

function shaped(redact: string[]): string {
  const compiled = compileResponseControls({ response: { redact } }, true);
  assert.ok('shaper' in compiled && compiled.shaper !== undefined);
  const outcome = compiled.shaper.shape(LIST, 'application/json', 1 << 20);
  assert.equal(outcome.ok, true, JSON.stringify(outcome));
  return (outcome as { resultJson: string }).resultJson;
}

const listDocument = openapi30({
  '/tickets': {
    get: {
      operationId: 'listTickets',
      responses: {
        '200': {
          description: 'ok',
          content: {
            'application/json': {
              schema: { type: 'array', items: { type: 'object', properties: { email: { type: 'string' } } } },
            },
          },
        },
      },
    },
  },
});

describe('security: redaction of a top-level array', () => {
  it('redacts [].email in every element, and [].owner.email inside them, in the text content too', () => {
    const result = JSON.parse(shaped(['[].email', '[].owner.email'])) as { content: { text: string }[] };
    const shown = JSON.parse(result.content[0].text) as Record<string, unknown>[];
    assert.deepEqual(shown, [
      { id: 't1', email: '[redacted]', tags: ['a'] },
      { id: 't2', email: '[redacted]', owner: { email: '[redacted]' } },
    ]);
    assert.ok(!JSON.stringify(result).includes('@example.com'));
  });

  it('refuses an OpenAPI list operation whose redact path names a field instead of [].field', () => {
    const message = thrown(
      () =>
        new OpenApiServices(newStack(), 'api', {
          document: documentFile(listDocument),
          overrides: { listTickets: { response: { redact: ['email'] } } },
        }),
    ).message;
    assert.equal(
      message,
      "OpenApiServices 'api': response.redact 'email' of operation listTickets (GET /tickets) names a field, but " +
        "the operation answers a JSON array: write '[].email' to redact it in every element",
    );
    new OpenApiServices(newStack(), 'api', {
      document: documentFile(listDocument),
      overrides: { listTickets: { response: { redact: ['[].email'] } } },
    });
  });
});
