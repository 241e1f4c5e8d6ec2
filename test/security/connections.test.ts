/**
 * Attack suite (issue 20): slow and greedy clients. A client that stops reading a large answer has its connection
 * closed after `write_timeout_ms` and the answer's memory is freed; one address cannot hold more than
 * `max_connections_per_address` connections; headers that trickle are cut at `header_timeout_ms`; and one
 * principal with slow calls cannot take every `max_concurrent_calls` slot from another.
 */
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startBackend, type TestBackend } from '../helpers/backend';
import { botConfig, tool } from '../helpers/config';
import { eventually, sleep } from '../helpers/eventually';
import { modernPostText, modernRequest, postModern } from '../helpers/modern';
import { BOT, OTHER } from '../helpers/tokens';
import { startOn, type GatewayOnPort } from '../helpers/gateway-on-port';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Bytes the test process holds (JS heap, buffers), after a full collection. */
function heldBytes(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

/** A raw HTTP request on its own socket; resolves once written. */
function rawSocket(port: number, request: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(request);
      resolve(socket);
    });
    socket.on('error', () => undefined);
    socket.once('error', reject);
  });
}

function modernCall(name: string, port: number, token: string): string {
  return modernPostText(port, modernRequest('tools/call', { name, arguments: {} }), token);
}

describe('attack: slow readers, connection floods, trickled headers, a principal hogging the call slots', function () {
  this.timeout(90_000);
  let backend: TestBackend;
  let gw: GatewayOnPort;
  let port: number;

  before(async () => {
    backend = await startBackend();
    gw = await startOn(
      botConfig(
        [
          tool('big', `${backend.url}/huge?bytes=12000000`),
          tool('slow', `${backend.url}/slow/1500`),
          tool('health', `${backend.url}/health`),
        ],
        {
          max_response_bytes: 16 * 1024 * 1024,
          write_timeout_ms: 1_000,
          header_timeout_ms: 500,
          request_timeout_ms: 1_000,
          max_connections_per_address: 12,
          max_concurrent_calls: 4,
          max_concurrent_calls_per_principal: 2,
        },
      ),
    );
    port = Number(new URL(gw.url).port);
  });

  after(async () => {
    await gw?.close();
    await backend?.close();
  });

  it('closes the connection of a client that stops reading a large answer, and its memory is freed', async () => {
    const before = heldBytes();
    const readers = await Promise.all([BOT, OTHER].map((t) => rawSocket(port, modernCall('big', port, t.token))));
    for (const r of readers) r.pause();
    // Each answer is about 24 MB (text and structured content): far more than the socket buffers take.
    await eventually(
      () => gw.logs.filter((l) => l.msg === 'connection closed' && l.reason === 'write_timeout').length >= 2,
      { timeoutMs: 20_000, what: 'both stalled connections closed for write_timeout' },
    );
    for (const r of readers) r.destroy();
    await sleep(100);
    const grown = heldBytes() - before;
    assert.ok(grown < 16 * 1024 * 1024, `memory held after the slow readers went: ${(grown / 1048576).toFixed(1)} MiB`);
    const ok = await postModern(gw.url, modernRequest('tools/call', { name: 'health', arguments: {} }), BOT.token);
    assert.equal(ok.status, 200, 'the gateway serves others meanwhile');
  });

  it('answers the connection past max_connections_per_address with 503 naming the limit, and closes it', async () => {
    const held = await Promise.all(Array.from({ length: 12 }, () => rawSocket(port, '')));
    try {
      const extra = await rawSocket(port, '');
      const answer = await new Promise<string>((resolve) => {
        let text = '';
        extra.setEncoding('utf8');
        extra.on('data', (c: string) => (text += c));
        extra.on('close', () => resolve(text));
      });
      assert.match(answer, /^HTTP\/1\.1 503 Service Unavailable\r\n/);
      assert.match(
        answer,
        /"message":"Service Unavailable: at most 12 open connections per client address \(max_connections_per_address\); close one first"/,
      );
    } finally {
      for (const s of held) s.destroy();
    }
    await eventually(
      async () => (await postModern(gw.url, modernRequest('server/discover'), BOT.token)).status === 200,
      {
        timeoutMs: 3_000,
        what: 'a new connection once the others closed',
      },
    );
  });

  it('cuts a client that trickles its headers at header_timeout_ms', async () => {
    const socket = await rawSocket(port, 'POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n');
    const started = Date.now();
    const closed = new Promise<string>((resolve) => {
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (c: string) => (text += c));
      socket.on('close', () => resolve(text));
    });
    const timer = setInterval(() => socket.write('x-slow: 1\r\n'), 200);
    try {
      const answer = await closed;
      assert.match(answer, /^HTTP\/1\.1 408/);
      assert.ok(Date.now() - started < 5_000, `closed after ${Date.now() - started} ms`);
    } finally {
      clearInterval(timer);
    }
  });

  it("one principal saturating its share of slow calls leaves another principal's calls succeeding", async () => {
    const call = (token: string) =>
      postModern(gw.url, modernRequest('tools/call', { name: 'slow', arguments: {} }), token, {}).then((r) => r);
    const hog = Array.from({ length: 6 }, () => call(BOT.token));
    await sleep(200);
    const other = await Promise.all([call(OTHER.token), call(OTHER.token)]);
    for (const res of other) {
      assert.equal(res.status, 200);
      assert.equal(res.message?.error, undefined, JSON.stringify(res.message));
      assert.notEqual(res.message?.result?.isError, true);
    }
    const hogged = await Promise.all(hog);
    const refused = hogged.filter((r) => r.message?.error !== undefined);
    assert.equal(refused.length, 4, 'two in flight, four refused');
    for (const r of refused) {
      assert.deepEqual(r.message?.error, {
        code: -32603,
        message:
          'Gateway busy: at most 2 concurrent calls per principal (max_concurrent_calls_per_principal); wait for one to finish',
      });
    }
  });

  it('without authentication the one anonymous caller is not held to a per-principal share, only to max_concurrent_calls', async () => {
    const open = await startOn(
      botConfig([tool('slow', `${backend.url}/slow/500`)], {
        auth: 'none',
        max_concurrent_calls: 4,
        max_concurrent_calls_per_principal: 2,
      }),
    );
    try {
      const call = () =>
        postModern(open.url, modernRequest('tools/call', { name: 'slow', arguments: {} }), undefined, {});
      const answers = await Promise.all(Array.from({ length: 5 }, call));
      const busy = answers.filter((r) => r.message?.error !== undefined);
      // four in flight (the gateway's cap), the fifth refused by that cap, none by a share
      assert.equal(busy.length, 1, JSON.stringify(answers.map((r) => r.message)));
      assert.deepEqual(busy[0].message?.error, { code: -32603, message: 'Gateway busy: too many concurrent calls' });
      for (const r of answers.filter((a) => a.message?.error === undefined)) {
        assert.notEqual(r.message?.result?.isError, true, JSON.stringify(r.message));
      }
    } finally {
      await open.close();
    }
  });
});
