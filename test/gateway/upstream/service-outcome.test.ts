import * as assert from 'node:assert/strict';
import { toolResult } from '../../../src/gateway/upstream/service-outcome';
import { MAX_RESPONSE_DEPTH } from '../../../src/response';

const nested = (levels: number): string => `{"a":${'['.repeat(levels - 1)}1${']'.repeat(levels - 1)}}`;

describe('a 2xx body as a tool result (no response controls)', () => {
  it('passes JSON nested deeper than the shaping limit on as text, without structuredContent', () => {
    for (const body of [nested(MAX_RESPONSE_DEPTH + 1), '['.repeat(1 << 20) + ']'.repeat(1 << 20)]) {
      const outcome = toolResult(body, 'application/json');
      assert.ok(outcome.ok);
      assert.deepEqual(JSON.parse(outcome.resultJson), { content: [{ type: 'text', text: body }] });
    }
  });

  it('still parses JSON nested exactly as deep as the limit into structuredContent', () => {
    const body = nested(MAX_RESPONSE_DEPTH);
    const outcome = toolResult(body, 'application/json');
    assert.ok(outcome.ok);
    const result = JSON.parse(outcome.resultJson) as { structuredContent: unknown };
    assert.deepEqual(result.structuredContent, JSON.parse(body));
  });

  it('does not count brackets inside strings as nesting', () => {
    const body = JSON.stringify({ a: '['.repeat(10_000) });
    const outcome = toolResult(body, '');
    assert.ok(outcome.ok);
    assert.deepEqual(JSON.parse(outcome.resultJson).structuredContent, { a: '['.repeat(10_000) });
  });
});
