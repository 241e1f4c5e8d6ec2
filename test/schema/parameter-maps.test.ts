import * as assert from 'node:assert/strict';
import { aliasesOf, forwardAsOf } from '../../src/schema';

describe('aliasesOf and forwardAsOf', () => {
  const input = {
    title: { type: 'string', required: true },
    prompt: { type: 'string', required: true, aliases: ['description', 'text'], forwardAs: 'description' },
    due: { type: 'string', format: 'date', forwardAs: 'due_date' },
  } as const;
  it('maps every alias to its parameter', () => {
    assert.deepEqual(aliasesOf(input), { description: 'prompt', text: 'prompt' });
  });
  it('maps each parameter that declares forwardAs to its backend field', () => {
    assert.deepEqual(forwardAsOf(input), { prompt: 'description', due: 'due_date' });
  });
  it('returns {} when there are none or no input', () => {
    assert.deepEqual(aliasesOf({ a: { type: 'string' } }), {});
    assert.deepEqual(forwardAsOf(undefined), {});
    assert.deepEqual(aliasesOf(undefined), {});
  });
});
