import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import type { ToolConfig } from '../../../src/contract';
import { ServiceClient } from '../../../src/gateway/upstream/service-client';
import { planServiceCall } from '../../../src/gateway/upstream/request-plan';
import { eventually } from '../../helpers/eventually';

/**
 * A loopback backend speaking raw HTTP/1.1, so a test can misbehave in ways node:http will not: trickle a body
 * forever, close mid-body, declare a gigabyte. Every timer it starts is cleared when the test closes it.
 */
interface RawBackend {
  readonly origin: string;
  /** Sockets accepted so far and whether each has closed. */
  readonly sockets: { socket: Socket; closed: boolean; closedAt: number }[];
  close(): Promise<void>;
}

async function rawBackend(onRequest: (socket: Socket, every: (ms: number, tick: () => void) => void) => void): Promise<RawBackend> {
  const timers = new Set<NodeJS.Timeout>();
  const sockets: RawBackend['sockets'] = [];
  const server: Server = createServer((socket) => {
    const entry = { socket, closed: false, closedAt: 0 };
    sockets.push(entry);
    socket.on('close', () => {
      entry.closed = true;
      entry.closedAt = Date.now();
    });
    socket.on('error', () => undefined);
    let seen = '';
    socket.on('data', (chunk) => {
      if (seen.includes('\r\n\r\n')) return;
      seen += chunk.toString('latin1');
      if (!seen.includes('\r\n\r\n')) return;
      onRequest(socket, (ms, tick) => {
        const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : tick()), ms);
        timers.add(timer);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    sockets,
    close: async () => {
      for (const timer of timers) clearInterval(timer);
      for (const { socket } of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function planFor(url: string, timeoutMs: number, method: ToolConfig['backend']['method'] = 'GET') {
  return planServiceCall({ name: 't', description: 'd', input_schema: { type: 'object' }, backend: { url, method, timeout_ms: timeoutMs } });
}

describe('service client: misbehaving backends (SPEC §4: never a crash, never a hang)', () => {
  let backend: RawBackend | undefined;
  let client: ServiceClient;
  beforeEach(() => {
    client = new ServiceClient(1024 * 1024);
  });
  afterEach(async () => {
    await client.close();
    await backend?.close();
    backend = undefined;
  });

  it('closes the connection of a non-2xx body that trickles forever once timeout_ms is over', async () => {
    backend = await rawBackend((socket, every) => {
      socket.write('HTTP/1.1 500 Internal Server Error\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n');
      every(100, () => socket.write('1\r\nx\r\n'));
    });
    const started = Date.now();
    const outcome = await client.call(planFor(`${backend.origin}/x`, 400), {});
    assert.deepEqual(outcome, { ok: false, code: 'SERVICE_HTTP_STATUS', message: 'Service error: HTTP 500' });
    assert.ok(Date.now() - started < 400 + 1000, 'the call answers within timeout_ms');
    const socket = await eventually(() => backend!.sockets[0]?.closed === true && backend!.sockets[0], {
      timeoutMs: 3000,
      what: 'the backend connection to be closed by the gateway',
    });
    assert.ok(socket.closedAt - started >= 350, 'kept until the deadline (a short body would have kept the connection)');
  });

  it('answers a 2xx body that trickles forever with a timeout at timeout_ms, and closes the connection', async () => {
    backend = await rawBackend((socket, every) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n1\r\n[\r\n');
      every(50, () => socket.write('2\r\n1,\r\n'));
    });
    const started = Date.now();
    const outcome = await client.call(planFor(`${backend.origin}/x`, 300), {});
    assert.deepEqual(outcome, { ok: false, code: 'SERVICE_TIMEOUT', message: 'Service timed out after 300 ms' });
    assert.ok(Date.now() - started < 300 + 1000);
    await eventually(() => backend!.sockets[0]?.closed === true, { timeoutMs: 3000, what: 'the connection closed' });
  });

  it('times out a backend that accepts and never answers', async () => {
    backend = await rawBackend(() => undefined);
    const outcome = await client.call(planFor(`${backend.origin}/x`, 200), {});
    assert.equal(outcome.ok ? 'ok' : outcome.code, 'SERVICE_TIMEOUT');
    await eventually(() => backend!.sockets[0]?.closed === true, { timeoutMs: 3000, what: 'the connection closed' });
  });

  it('refuses a declared 1 GiB body at once, without reading it', async () => {
    backend = await rawBackend((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${2 ** 30}\r\n\r\n{"a":`);
    });
    const outcome = await client.call(planFor(`${backend.origin}/x`, 5000), {});
    assert.equal(outcome.ok ? 'ok' : outcome.code, 'SERVICE_RESPONSE_TOO_LARGE');
    await eventually(() => backend!.sockets[0]?.closed === true, { timeoutMs: 3000, what: 'the connection closed' });
  });

  it('stops reading an undeclared endless body at the response cap and closes the connection', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    backend = await rawBackend((socket, every) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n');
      every(1, () => socket.write(`${chunk.length.toString(16)}\r\n${chunk.toString('latin1')}\r\n`));
    });
    const outcome = await client.call(planFor(`${backend.origin}/x`, 10_000), {});
    assert.equal(outcome.ok ? 'ok' : outcome.code, 'SERVICE_RESPONSE_TOO_LARGE');
    await eventually(() => backend!.sockets[0]?.closed === true, { timeoutMs: 3000, what: 'the connection closed' });
  });

  it('answers invalid JSON declared as JSON with a short reason', async () => {
    backend = await rawBackend((socket) => {
      socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 9\r\nconnection: close\r\n\r\n{"a":1,,}');
    });
    const outcome = await client.call(planFor(`${backend.origin}/x`, 5000), {});
    assert.deepEqual(outcome, { ok: false, code: 'SERVICE_BAD_RESPONSE', message: 'Service error: invalid JSON response' });
  });

  it('answers a backend that closes mid-body with connection reset, not a partial result', async () => {
    backend = await rawBackend((socket) => {
      socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a":');
    });
    const outcome = await client.call(planFor(`${backend.origin}/x`, 5000), {});
    assert.equal(outcome.ok, false);
    assert.match(outcome.ok ? '' : outcome.message, /^Service unavailable: /);
  });

  it('answers a non-2xx whose body closes mid-way with the status, once', async () => {
    backend = await rawBackend((socket) => {
      socket.end('HTTP/1.1 503 Service Unavailable\r\ncontent-length: 100\r\n\r\npartial');
    });
    const outcome = await client.call(planFor(`${backend.origin}/x`, 5000), {});
    assert.deepEqual(outcome, { ok: false, code: 'SERVICE_HTTP_STATUS', message: 'Service error: HTTP 503' });
  });

  it('keeps the connection of a short non-2xx body for the next call (the fix closes only at the deadline)', async () => {
    backend = await rawBackend((socket) => {
      socket.write('HTTP/1.1 404 Not Found\r\ncontent-length: 2\r\n\r\n{}');
      socket.removeAllListeners('data');
      let seen = '';
      socket.on('data', (chunk) => {
        seen += chunk.toString('latin1');
        if (seen.includes('\r\n\r\n')) socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 8\r\n\r\n{"ok":1}');
      });
    });
    const plan = planFor(`${backend.origin}/x`, 200);
    assert.equal((await client.call(plan, {})).ok, false);
    await new Promise((resolve) => setTimeout(resolve, 400)); // past the first call's deadline
    assert.deepEqual(await client.call(plan, {}), { ok: true, resultJson: '{"content":[{"type":"text","text":"{\\"ok\\":1}"}],"structuredContent":{"ok":1}}' });
    assert.equal(backend.sockets.length, 1, 'one kept-alive connection served both calls');
  });

  it('close() cuts off a call still in flight instead of waiting for a backend that never answers', async () => {
    backend = await rawBackend(() => undefined);
    const pending = client.call(planFor(`${backend.origin}/x`, 600_000), {});
    await eventually(() => backend!.sockets.length === 1, { what: 'the request at the backend' });
    const closing = client.close();
    const first = await Promise.race([closing.then(() => 'closed'), new Promise((resolve) => setTimeout(resolve, 3000, 'still waiting'))]);
    assert.equal(first, 'closed');
    const outcome = await pending;
    assert.equal(outcome.ok, false, 'the cut-off call is answered (and so audited), not lost');
  });
});
