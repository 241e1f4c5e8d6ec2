/**
 * Many large answers at once: 64 concurrent 4 MiB bodies held 1.06 GB. The bytes of responses held over every
 * call are bounded (`max_held_response_bytes`): bodies being read, and large answers until the client has read
 * them. A call whose answer would pass the bound is refused with a clear result, the others are served, and the
 * count returns to zero; a client that stops reading its answer loses the connection after `write_timeout_ms`.
 */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { startGateway, type RunningGateway } from '../../src/gateway';
import { planServiceCall, ServiceClient } from '../../src/gateway/upstream';
import { BodyThread } from '../../src/gateway/upstream/body-thread';
import { botConfig, tool } from '../helpers/config';
import { eventually } from '../helpers/eventually';
import { modernPostText, modernRequest, postModern } from '../helpers/modern';
import { BOT, OTHER } from '../helpers/tokens';

const MIB = 1024 * 1024;

describe('security: response bytes held across calls are bounded', function () {
  this.timeout(30_000);
  let server: http.Server;
  let url = '';

  before(async () => {
    // 1 MiB of a JSON string, the last bytes after a pause: every call holds its body for a while
    server = http.createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.write(`{"a":"${'x'.repeat(MIB - 10)}`);
      setTimeout(() => res.end('"}'), 300);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('refuses the calls past the bound with a clear result, serves the rest, and holds nothing after', async () => {
    const client = new ServiceClient(4 * MIB, new BodyThread(), 3 * MIB);
    try {
      const plan = planServiceCall(tool('big', url));
      const outcomes = await Promise.all(Array.from({ length: 8 }, () => client.call(plan, {})));
      const refused = outcomes.filter((o) => !o.ok);
      const served = outcomes.filter((o) => o.ok);
      assert.ok(served.length >= 1 && served.length <= 3, `${served.length} served`);
      assert.ok(refused.length >= 5, `${refused.length} refused`);
      for (const o of refused) {
        assert.deepEqual(o, {
          ok: false,
          code: 'RESPONSES_HELD_FULL',
          message: `Service response refused: the gateway holds its limit of ${3 * MIB} bytes of responses for other calls (max_held_response_bytes); retry shortly`,
        });
      }
      assert.equal(client.heldBytes, 0);
      // the bound is per moment, not per lifetime: the next call is served
      assert.equal((await client.call(plan, {})).ok, true);
      assert.equal(client.heldBytes, 0);
    } finally {
      await client.close();
    }
  });

  describe('an answer a client does not read', () => {
    let gateway: RunningGateway;
    let bigServer: http.Server;
    const logs: string[] = [];
    // 4 MiB of JSON: the answer carries it twice (the text and structuredContent), past what sockets buffer
    const body = JSON.stringify({ a: 'x'.repeat(4 * MIB - 10) });
    // long enough for a few 4 MiB calls to finish on a loaded CI machine while the answer is held
    const WRITE_TIMEOUT_MS = 8_000;

    before(async () => {
      bigServer = http.createServer((_req, res) => {
        res.setHeader('content-type', 'application/json');
        res.end(body);
      });
      await new Promise<void>((resolve) => bigServer.listen(0, '127.0.0.1', resolve));
      const big = `http://127.0.0.1:${(bigServer.address() as AddressInfo).port}/big`;
      gateway = await startGateway({
        config: botConfig([tool('big', big)], {
          max_response_bytes: 8 * MIB,
          max_held_response_bytes: 10 * MIB,
          write_timeout_ms: WRITE_TIMEOUT_MS,
        }),
        port: 0,
        host: '127.0.0.1',
        logger: (_level, msg, fields) => logs.push(`${msg} ${JSON.stringify(fields ?? {})}`),
      });
    });
    after(async () => {
      await gateway?.close();
      bigServer.closeAllConnections();
      bigServer.close();
    });

    const bigCall = () =>
      postModern(gateway.url, modernRequest('tools/call', { name: 'big', arguments: {} }), BOT.token);

    it('counts it until read, refusing the next large bodies meanwhile, and the write timeout closes the connection', async () => {
      assert.equal(((await bigCall()).message as any).result.isError, undefined, 'a call alone is served');
      // a client that sends a call and never reads the answer
      const port = Number(new URL(gateway.url).port);
      const slow = net.connect(port, '127.0.0.1');
      let closedAt = 0;
      slow.on('close', () => (closedAt = Date.now()));
      slow.on('error', () => undefined);
      await new Promise<void>((resolve) => slow.once('connect', resolve));
      const sentAt = Date.now();
      slow.write(modernPostText(port, modernRequest('tools/call', { name: 'big', arguments: {} }), BOT.token));
      slow.pause();
      // while its answer waits, a second large body would pass the bound
      const refused = await eventually(
        async () => {
          const res = await bigCall();
          const result = (res.message as any).result;
          return result.isError === true ? result : false;
        },
        {
          timeoutMs: WRITE_TIMEOUT_MS - 500,
          intervalMs: 50,
          what: 'a large call refused while the unread answer is held',
        },
      );
      assert.deepEqual(refused.content, [
        {
          type: 'text',
          text: `Service response refused: the gateway holds its limit of ${10 * MIB} bytes of responses for other calls (max_held_response_bytes); retry shortly`,
        },
      ]);
      // the connection guard closes it once nothing was written for write_timeout_ms
      await eventually(() => logs.some((l) => l.startsWith('connection closed') && l.includes('"write_timeout"')), {
        timeoutMs: WRITE_TIMEOUT_MS + 10_000,
        what: 'the log of the unread answer',
      });
      assert.ok(
        Date.now() - sentAt >= WRITE_TIMEOUT_MS - 200,
        `closed after ${Date.now() - sentAt} ms, before the deadline`,
      );
      // what the client gets once it reads: part of the answer, then the end of the connection
      let received = 0;
      slow.on('data', (chunk: Buffer) => (received += chunk.length));
      slow.resume();
      await eventually(() => closedAt > 0, { what: 'the end of the connection' });
      assert.ok(received < 2 * body.length, `${received} bytes received: the whole answer`);
      // the hold ended with the connection: a large call is served again
      assert.equal(((await bigCall()).message as any).result.isError, undefined);
    });
  });

  // Found by an attack on the hold: each of these left it counted for good, refusing every later call.
  describe('connections that end or stall before a large answer is written', () => {
    let gateway: RunningGateway;
    let slowServer: http.Server;
    // 2 MiB of JSON after 300 ms: its answer (about 4 MiB) plus one more body passes the 5 MiB bound
    const body = JSON.stringify({ a: 'x'.repeat(2 * MIB - 10) });

    before(async () => {
      slowServer = http.createServer((req, res) => {
        res.setHeader('content-type', 'application/json');
        if (req.url === '/slow') setTimeout(() => res.end('{"ok":true}'), 1_500);
        else setTimeout(() => res.end(body), 300);
      });
      await new Promise<void>((resolve) => slowServer.listen(0, '127.0.0.1', resolve));
      const origin = `http://127.0.0.1:${(slowServer.address() as AddressInfo).port}`;
      gateway = await startGateway({
        config: botConfig([tool('big', `${origin}/big`), tool('slow', `${origin}/slow`)], {
          max_held_response_bytes: 5 * MIB,
          write_timeout_ms: 2_000,
        }),
        port: 0,
        host: '127.0.0.1',
        logger: () => undefined,
      });
    });
    after(async () => {
      await gateway?.close();
      slowServer.closeAllConnections();
      slowServer.close();
    });

    /** A raw connection that sends `requests` (pipelined) and reads whatever comes back. */
    async function rawConnection(...requests: { method: string; params: Record<string, unknown> }[]) {
      const port = Number(new URL(gateway.url).port);
      const socket = net.connect(port, '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      socket.on('error', () => undefined);
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      for (const { method, params } of requests)
        socket.write(modernPostText(port, modernRequest(method, params), BOT.token));
      return { socket, received: () => received };
    }
    const big = { method: 'tools/call', params: { name: 'big', arguments: {} } };
    const served = async (token = BOT.token): Promise<boolean> => {
      const res = await postModern(gateway.url, modernRequest('tools/call', { name: 'big', arguments: {} }), token);
      return (res.message as any).result.isError !== true;
    };

    it('never counts the answer of a client that left before it was ready', async () => {
      for (let i = 0; i < 3; i++) {
        const { socket } = await rawConnection(big);
        await new Promise((resolve) => setTimeout(resolve, 100));
        socket.destroy(); // a client that cancelled, or timed out
      }
      // the bodies of the calls left behind are held until worked out; then nothing may stay counted
      await eventually(served, { timeoutMs: 10_000, what: 'a large call served: an unsent answer is still counted' });
    });

    it('releases an answer queued behind another on a connection that then drops', async () => {
      const { socket } = await rawConnection({ method: 'tools/call', params: { name: 'slow', arguments: {} } }, big);
      await new Promise((resolve) => setTimeout(resolve, 700)); // big is answered, waiting behind slow
      socket.destroy();
      await eventually(served, { timeoutMs: 10_000, what: 'a large call served: the dropped answer is still counted' });
    });

    it('refuses requests behind an open stream on the same connection; they hold nothing', async () => {
      const listen = { method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true } } };
      const { socket, received } = await rawConnection(listen, big, big);
      try {
        await eventually(() => /text\/event-stream/.test(received()), { what: 'the stream open' });
        // the stream lives on, and other agents' large calls are served meanwhile
        await eventually(() => served(OTHER.token), {
          timeoutMs: 10_000,
          what: 'a large call served while the stream lives: answers queued behind it are counted',
        });
        assert.equal(socket.destroyed, false, 'the stream is still open');
      } finally {
        socket.destroy();
      }
    });
  });
});
