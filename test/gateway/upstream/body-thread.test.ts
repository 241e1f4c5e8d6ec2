import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import {
  BodyThread,
  OFFLOAD_BRACKETS,
  OFFLOAD_BYTES,
  OFFLOAD_PACKED_MIN_BYTES,
  OFFLOAD_SEARCHED_BYTES,
  worksOffThread,
} from '../../../src/gateway/upstream/body-thread';
import { BODY_FAILED, bodyResult } from '../../../src/response';
import { compileResponseControls, type ResponseShaper } from '../../../src/response';
import { generateOutputSchema } from '../../../src/schema';
import { asText } from '../../helpers/outcome';

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

describe('which bodies leave the gateway thread', () => {
  const offThread = (text: string, searches = false, chunk = 1 << 30): boolean => {
    const bytes = Buffer.from(text);
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += chunk) chunks.push(bytes.subarray(i, i + chunk));
    return worksOffThread(chunks, bytes.length, searches);
  };

  it('a large body, or from 4 KiB up one a pattern searches', () => {
    assert.equal(offThread(itemsBody(OFFLOAD_BYTES, (i) => ({ n: i }))), true);
    assert.equal(offThread(itemsBody(OFFLOAD_BYTES - 1024, (i) => ({ n: i, note: `order ${i}` }))), false);
    assert.equal(
      offThread(
        itemsBody(OFFLOAD_SEARCHED_BYTES, (i) => ({ n: i })),
        true,
      ),
      true,
    );
    assert.equal(
      offThread(
        itemsBody(OFFLOAD_SEARCHED_BYTES - 1024, (i) => ({ n: i })),
        true,
      ),
      false,
    );
  });

  it('a smaller body packed with arrays and objects, counted across its chunks', () => {
    const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const packed = `{"items":[${Array.from({ length: 100 }, () => nested(500)).join(',')}]}`;
    assert.ok(packed.length < OFFLOAD_BYTES && packed.length >= OFFLOAD_PACKED_MIN_BYTES);
    assert.equal(offThread(packed), true);
    assert.equal(offThread(packed, false, 1000), true);
    const empties = (n: number) => JSON.stringify(Array.from({ length: n }, () => ({})));
    assert.equal(offThread(empties(OFFLOAD_BRACKETS)), true); // the array's own bracket is one more
    assert.equal(offThread(empties(OFFLOAD_BRACKETS - 1)), false);
    // under the packed minimum, in place whatever it holds
    assert.equal(offThread(nested(OFFLOAD_PACKED_MIN_BYTES / 2 - 1)), false);
  });
});

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
      const expected = bodyResult(Buffer.from(text), contentType, 1 << 24, shaper);
      const actual = await thread.result(Buffer.from(text), contentType, 1 << 24, shaper);
      assert.deepEqual(asText(actual), expected, `${contentType}: ${text.slice(0, 60)}`);
    }
  });

  it('moves a body to a thread that has loaded and the result back, without copying either', async () => {
    const text = itemsBody(OFFLOAD_BYTES, (i) => ({ n: i }));
    const fresh = new BodyThread();
    try {
      // a thread still loading gets a copy: the bytes stay here should it fail to start
      const first = Buffer.from(text);
      const copied = await fresh.result(first, 'application/json', 1 << 24, undefined);
      assert.equal(first.toString(), text);
      const body = Buffer.from(text);
      const moved = await fresh.result(body, 'application/json', 1 << 24, undefined);
      assert.equal(body.byteLength, 0, 'the body moved to the thread');
      for (const outcome of [copied, moved]) {
        assert.ok(outcome.ok && Buffer.isBuffer(outcome.resultJson), 'the result arrives as bytes');
        assert.deepEqual(asText(outcome), bodyResult(Buffer.from(text), 'application/json', 1 << 24, undefined));
      }
    } finally {
      await fresh.close();
    }
  });

  it('answers as failed a body whose memory moved already (sent twice), and serves the bodies behind it', async () => {
    const text = itemsBody(OFFLOAD_BYTES, (i) => ({ n: i }));
    const expected = bodyResult(Buffer.from(text), 'application/json', 1 << 24, undefined);
    await thread.result(Buffer.from(text), 'application/json', 1 << 24, undefined); // the thread has loaded
    const body = Buffer.from(text);
    const [first, again, behind] = await Promise.all([
      thread.result(body, 'application/json', 1 << 24, undefined),
      thread.result(body, 'application/json', 1 << 24, undefined),
      thread.result(Buffer.from(text), 'application/json', 1 << 24, undefined),
    ]);
    assert.deepEqual(asText(first), expected);
    assert.deepEqual(again, BODY_FAILED, 'never an empty result, never left waiting');
    assert.deepEqual(asText(behind), expected);
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

  it('answers the body a thread dies on as failed, and hands the bodies behind it to a fresh thread', async () => {
    // Settings the thread cannot compile (the gateway's thread would have refused them): it throws and exits.
    const broken: ResponseShaper = {
      advertisedSchema: undefined,
      source: { config: { output_schema: { type: 'object', properties: 5 } }, validateOutput: true },
      searches: false,
      shape: () => ({ ok: true, resultJson: '{"content":[]}', counts: undefined }),
    };
    const body = itemsBody(OFFLOAD_BYTES, (i) => ({ n: i }));
    const [dead, ...behind] = await Promise.all([
      thread.result(Buffer.from('{}'), 'application/json', 1 << 20, broken),
      ...[1, 2, 3].map(() => thread.result(Buffer.from(body), 'application/json', 1 << 24, undefined)),
    ]);
    assert.deepEqual(dead, BODY_FAILED);
    assert.equal(BODY_FAILED.ok || BODY_FAILED.message, 'Service error: response could not be processed');
    for (const outcome of behind)
      assert.deepEqual(asText(outcome), bodyResult(Buffer.from(body), 'application/json', 1 << 24, undefined));
  });

  it('drops a body whose call no longer waits for it, unworked, and works out the others in order', async () => {
    const body = itemsBody(OFFLOAD_BYTES, (i) => ({ n: i }));
    const expected = bodyResult(Buffer.from(body), 'application/json', 1 << 24, undefined);
    let secondWanted = true;
    const first = thread.result(Buffer.from(body), 'application/json', 1 << 24, undefined);
    const second = thread.result(Buffer.from(body), 'application/json', 1 << 24, undefined, () => secondWanted);
    const third = thread.result(Buffer.from(body), 'application/json', 1 << 24, undefined, () => false);
    secondWanted = false; // its call timed out while the first was on the thread
    thread.drop();
    // Dropped bodies get an outcome nobody reads: never the result, which would mean they were worked out.
    assert.deepEqual(await second, BODY_FAILED);
    assert.deepEqual(await third, BODY_FAILED);
    assert.deepEqual(asText(await first), expected);
    assert.deepEqual(asText(await thread.result(Buffer.from(body), 'application/json', 1 << 24, undefined)), expected);
  });

  it('answers the bodies it holds as failed requests once closed, and every later one', async () => {
    const closing = new BodyThread();
    const body = Buffer.from(itemsBody(4 * OFFLOAD_BYTES, () => [[[[[[[[]]]]]]]]));
    const held = [1, 2, 3].map(() => closing.result(body, 'application/json', 1 << 24, undefined));
    await closing.close();
    const failed = { ok: false, code: 'SERVICE_UNAVAILABLE', message: 'Service unavailable: request failed' };
    for (const outcome of await Promise.all(held)) assert.deepEqual(outcome, failed);
    assert.deepEqual(await closing.result(Buffer.from('[1]'), 'application/json', 1 << 20, undefined), failed);
  });

  it('works every body out in place where worker threads are not permitted', () => {
    const script = `
      const { BodyThread } = require('./src/gateway/upstream/body-thread');
      const { bodyResult } = require('./src/response/body-result');
      const text = JSON.stringify({ id: 'C-1', items: Array.from({ length: 30000 }, (_, i) => ({ n: i })) });
      new BodyThread().result(Buffer.from(text), 'application/json', 1 << 24, undefined).then((outcome) => {
        const same = JSON.stringify(outcome) === JSON.stringify(bodyResult(Buffer.from(text), 'application/json', 1 << 24, undefined));
        process.stdout.write(process.permission.has('worker') ? 'permitted, ' : 'refused, ');
        process.stdout.write(same ? 'same' : 'different');
      });`;
    // the permission model's flag: `--permission` from Node 22.13 on (Node 24 knows no other), before that experimental
    const permission = process.allowedNodeEnvironmentFlags.has('--permission')
      ? '--permission'
      : '--experimental-permission';
    const run = spawnSync(
      process.execPath,
      [permission, '--allow-fs-read=*', '-r', 'ts-node/register/transpile-only', '-e', script],
      { cwd: path.resolve(__dirname, '../../..'), encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, 'refused, same');
  });
});
