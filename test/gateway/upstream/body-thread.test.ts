import * as assert from 'node:assert/strict';
import { BodyThread, OFFLOAD_BYTES } from '../../../src/gateway/upstream/body-thread';
import { bodyResult } from '../../../src/gateway/upstream/service-outcome';
import { compileResponseControls, type ResponseShaper } from '../../../src/response';
import { generateOutputSchema } from '../../../src/schema';

const OUTPUT = generateOutputSchema({
  id: { type: 'string', required: true },
  items: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer' } } } },
});

function shaperOf(config: Parameters<typeof compileResponseControls>[0]): ResponseShaper {
  const compiled = compileResponseControls(config, true);
  if (!('shaper' in compiled) || compiled.shaper === undefined) throw new Error('no shaper');
  return compiled.shaper;
}

/** A body of `items` padded with whole items to at least `bytes`. */
function itemsBody(bytes: number, item: (i: number) => unknown, head: Record<string, unknown> = { id: 'C-1' }): string {
  const items: unknown[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    items.push(item(i));
    size += JSON.stringify(item(i)).length + 1;
  }
  return JSON.stringify({ ...head, items });
}

describe('the body thread: large bodies worked out off the gateway thread', function () {
  this.timeout(60_000);
  const thread = new BodyThread();
  after(() => thread.close());

  it('answers exactly what the gateway thread answers, with and without response controls', async () => {
    const shaped = shaperOf({
      output_schema: OUTPUT,
      response: { fields: 'declared', redact_patterns: { card: '\\b[0-9]{13,16}\\b' } },
    });
    const cases: [string, string, ResponseShaper | undefined][] = [
      [itemsBody(OFFLOAD_BYTES, (i) => ({ n: i, card: '4111111111111111' })), 'application/json', shaped],
      [itemsBody(OFFLOAD_BYTES, (i) => ({ n: i, note: `4111111111111111 ${i}` })), 'application/json', shaped],
      [itemsBody(OFFLOAD_BYTES, (i) => ({ n: `${i}` })), 'application/json', shaped], // refused: n is no integer
      [itemsBody(OFFLOAD_BYTES, (i) => ({ n: i, é: 'ü😀' })), 'application/json; charset=utf-8', undefined],
      [`[${'1,'.repeat(OFFLOAD_BYTES)}1]`, 'application/json', undefined],
      [`${'{"a":'.repeat(600)}1${'}'.repeat(600)}`, 'application/json', shaped], // too deep
      ['x'.repeat(OFFLOAD_BYTES), 'text/plain', shaped],
      ['{"id": "C-1", ', 'application/json', undefined], // does not parse
      ['{}', 'image/png', undefined],
    ];
    for (const [text, contentType, shaper] of cases) {
      const expected = bodyResult(text, contentType, 1 << 24, shaper);
      const actual = await thread.result(Buffer.from(text), contentType, 1 << 24, shaper);
      assert.deepEqual(actual, expected, `${contentType}: ${text.slice(0, 60)}`);
    }
  });

  it('measures a shaped result against the limit it is given', async () => {
    const text = itemsBody(OFFLOAD_BYTES, (i) => ({ n: i }));
    const actual = await thread.result(
      Buffer.from(text),
      'application/json',
      1000,
      shaperOf({ output_schema: OUTPUT }),
    );
    assert.deepEqual(actual, {
      ok: false,
      code: 'RESPONSE_TOO_LARGE',
      message: `Service response too large: ${Buffer.byteLength(text)} bytes (limit 1000)`,
    });
  });

  it('works a body out in place when the thread fails, and starts a fresh thread for the next', async () => {
    // Settings the thread cannot compile (the gateway thread would have refused them): the thread throws and exits.
    const broken: ResponseShaper = {
      advertisedSchema: undefined,
      source: { config: { output_schema: { type: 'object', properties: 5 } }, validateOutput: true },
      shape: () => ({ ok: true, resultJson: '{"content":[],"in_place":true}', counts: undefined }),
    };
    const outcome = await thread.result(Buffer.from('{}'), 'application/json', 1 << 20, broken);
    assert.deepEqual(outcome, { ok: true, resultJson: '{"content":[],"in_place":true}', counts: undefined });
    const next = await thread.result(Buffer.from('{"id":"C-1"}'), 'application/json', 1 << 20, undefined);
    assert.deepEqual(next, bodyResult('{"id":"C-1"}', 'application/json', 1 << 20, undefined));
  });

  it('answers in place once closed', async () => {
    const closed = new BodyThread();
    await closed.close();
    const outcome = await closed.result(Buffer.from('[1]'), 'application/json', 1 << 20, undefined);
    assert.deepEqual(outcome, { ok: true, resultJson: '{"content":[{"type":"text","text":"[1]"}]}' });
  });
});
