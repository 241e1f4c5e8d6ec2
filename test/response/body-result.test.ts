import * as assert from 'node:assert/strict';
import { BODY_FAILED, bodyResult, compileResponseControls, MAX_RESPONSE_DEPTH, toolResult } from '../../src/response';

const nested = (levels: number): string => `{"a":${'['.repeat(levels - 1)}1${']'.repeat(levels - 1)}}`;

describe('a 2xx body as a tool result', () => {
  it('does not parse JSON nested deeper than the shaping limit: declared, an error; undeclared, text', () => {
    const refusal = {
      ok: false,
      code: 'SERVICE_BAD_RESPONSE',
      message: `Service error: JSON response nested deeper than ${MAX_RESPONSE_DEPTH} levels`,
    };
    const valid = '['.repeat(1 << 20) + ']'.repeat(1 << 20);
    const invalid = `${'['.repeat(600)}<html>oops`; // an error page behind brackets: an error, as shallow ones are
    for (const body of [nested(MAX_RESPONSE_DEPTH + 1), valid, invalid]) {
      assert.deepEqual(toolResult(body, 'application/json'), refusal);
      const undeclared = toolResult(body, '');
      assert.ok(undeclared.ok);
      assert.deepEqual(JSON.parse(String(undeclared.resultJson)), { content: [{ type: 'text', text: body }] });
    }
    assert.deepEqual(toolResult('[[[<html>oops', 'application/json'), {
      ok: false,
      code: 'SERVICE_BAD_RESPONSE',
      message: 'Service error: invalid JSON response',
    });
  });

  it('answers a body it fails to work out (an exception while shaping) as an error result, never a throw', () => {
    const throwing = {
      advertisedSchema: undefined,
      source: { config: {}, validateOutput: true },
      searches: false,
      shape: (): never => {
        throw new RangeError('Invalid string length');
      },
    };
    assert.deepEqual(bodyResult(Buffer.from('{}'), 'application/json', 1 << 20, throwing), BODY_FAILED);
    assert.deepEqual(BODY_FAILED, {
      ok: false,
      code: 'SERVICE_BAD_RESPONSE',
      message: 'Service error: response could not be processed',
    });
  });

  it('ignores a byte order mark before the body: JSON stays JSON, and redact paths still apply', () => {
    const bom = (text: string) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    const plain = bodyResult(bom('{"email":"ada@example.com"}'), 'application/json', 1 << 20, undefined);
    assert.ok(plain.ok, JSON.stringify(plain));
    assert.deepEqual(JSON.parse(String(plain.resultJson)).structuredContent, { email: 'ada@example.com' });
    const compiled = compileResponseControls({ response: { redact: ['email'] } }, true);
    assert.ok('shaper' in compiled && compiled.shaper !== undefined);
    for (const type of ['application/json', 'text/plain', '']) {
      const shaped = bodyResult(bom('{"email":"ada@example.com"}'), type, 1 << 20, compiled.shaper);
      assert.ok(shaped.ok, `${type}: ${JSON.stringify(shaped)}`);
      assert.deepEqual(JSON.parse(String(shaped.resultJson)).structuredContent, { email: '[redacted]' }, type);
    }
  });

  it('still parses JSON nested exactly as deep as the limit into structuredContent', () => {
    const body = nested(MAX_RESPONSE_DEPTH);
    const outcome = toolResult(body, 'application/json');
    assert.ok(outcome.ok);
    const result = JSON.parse(String(outcome.resultJson)) as { structuredContent: unknown };
    assert.deepEqual(result.structuredContent, JSON.parse(body));
  });

  it('does not count brackets inside strings as nesting', () => {
    const body = JSON.stringify({ a: '['.repeat(10_000) });
    const outcome = toolResult(body, '');
    assert.ok(outcome.ok);
    assert.deepEqual(JSON.parse(String(outcome.resultJson)).structuredContent, { a: '['.repeat(10_000) });
  });
});
