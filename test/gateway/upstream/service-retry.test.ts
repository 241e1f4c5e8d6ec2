/**
 * docs/gateway.md "Service call": a request lost with its connection before the answer's headers (a backend
 * replica gone with the keep-alive connection the gateway reused) is sent again once, on a new connection, when the
 * call may be sent twice (GET, PUT, DELETE, or `idempotent: true`); otherwise it fails as `Service unavailable`.
 * A refused connection sent nothing: any call is sent again once, after a pause.
 * The backend here is real HTTP: it answers the first request of each connection and drops the connection under
 * every later one, as a backend that went away would.
 */
import * as assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ToolConfig } from '../../../src/config';
import { planServiceCall } from '../../../src/gateway/upstream/request-plan';
import { retryAfter, ServiceClient } from '../../../src/gateway/upstream/service-client';

interface DroppingBackend {
  readonly origin: string;
  /** Requests received, and how many of them were dropped. */
  readonly received: { method: string; dropped: boolean }[];
  /** Drop every later request of a connection (the default), or every request. */
  drop: 'reused' | 'all';
  /** Never answer the first request of a connection (a retry that hangs). */
  hang: boolean;
  /** Connections open now. */
  readonly open: () => number;
  close(): Promise<void>;
}

async function droppingBackend(): Promise<DroppingBackend> {
  const perSocket = new WeakMap<Socket, number>();
  const sockets = new Set<Socket>();
  const backend = {
    origin: '',
    received: [] as { method: string; dropped: boolean }[],
    drop: 'reused' as 'reused' | 'all',
    hang: false,
    open: () => sockets.size,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server: Server = createServer({ keepAlive: true }, (req: IncomingMessage, res) => {
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    const dropped = backend.drop === 'all' || n > 1;
    backend.received.push({ method: req.method ?? '', dropped });
    req.resume();
    req.on('end', () => {
      if (dropped) req.socket.destroy();
      else if (backend.hang) return;
      else res.setHeader('content-type', 'application/json').end(JSON.stringify({ n }));
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  backend.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return backend;
}

function planFor(url: string, method: ToolConfig['backend']['method'], idempotent?: boolean, timeoutMs = 2_000) {
  return planServiceCall({
    name: 't',
    description: 'd',
    input_schema: { type: 'object' },
    backend: { url, method, timeout_ms: timeoutMs, ...(idempotent === undefined ? {} : { idempotent }) },
  });
}

/** A backend back on the port of `origin` (gone before): it answers every request, and records its method. */
async function backOn(origin: string): Promise<{ received: string[]; close(): Promise<void> }> {
  const received: string[] = [];
  const server = createServer((req, res) => {
    received.push(req.method ?? '');
    res.setHeader('content-type', 'application/json').end('{"back":true}');
  });
  await new Promise<void>((resolve) => server.listen(Number(new URL(origin).port), '127.0.0.1', resolve));
  return { received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('service client: a call lost with its connection', () => {
  let backend: DroppingBackend;
  let client: ServiceClient;
  beforeEach(async () => {
    backend = await droppingBackend();
    client = new ServiceClient(1024 * 1024);
  });
  afterEach(async () => {
    await client.close();
    await backend.close();
  });

  /** A first call opens a pooled connection; the second is sent on it and dropped by the backend. */
  async function secondCall(plan: ReturnType<typeof planFor>) {
    const first = await client.call(plan, {});
    assert.equal(first.ok, true, JSON.stringify(first));
    // the pool takes the connection back once the response is over, a moment after the call has its answer
    await new Promise((resolve) => setTimeout(resolve, 20));
    return client.call(plan, {});
  }

  for (const method of ['GET', 'PUT', 'DELETE'] as const) {
    it(`sends a ${method} again, once, on a new connection, and answers with the second reply`, async () => {
      const outcome = await secondCall(planFor(`${backend.origin}/x`, method));
      assert.equal(outcome.ok, true, JSON.stringify(outcome));
      assert.equal(outcome.ok && JSON.parse(String(outcome.resultJson)).structuredContent.n, 1);
      assert.deepEqual(
        backend.received.map((r) => r.dropped),
        [false, true, false],
      );
    });
  }

  it('does not send a POST or a PATCH again: it fails as Service unavailable, and the backend saw it once', async () => {
    for (const method of ['POST', 'PATCH'] as const) {
      backend.received.length = 0;
      await client.close();
      client = new ServiceClient(1024 * 1024);
      const outcome = await secondCall(planFor(`${backend.origin}/x`, method));
      assert.equal(outcome.ok, false);
      assert.match(outcome.ok ? '' : outcome.message, /Service unavailable: connection reset/);
      assert.deepEqual(
        backend.received.map((r) => r.dropped),
        [false, true],
      );
    }
  });

  it('sends a POST again when the tool is declared idempotent, and a GET not when declared otherwise', async () => {
    const post = await secondCall(planFor(`${backend.origin}/x`, 'POST', true));
    assert.equal(post.ok, true, JSON.stringify(post));
    await client.close();
    client = new ServiceClient(1024 * 1024);
    backend.received.length = 0;
    const get = await secondCall(planFor(`${backend.origin}/x`, 'GET', false));
    assert.equal(get.ok, false);
    assert.equal(backend.received.length, 2);
  });

  it('sends it again once only: a second loss fails the call', async () => {
    const plan = planFor(`${backend.origin}/x`, 'GET');
    assert.equal((await client.call(plan, {})).ok, true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    backend.drop = 'all';
    const lost = await client.call(plan, {});
    assert.equal(lost.ok, false);
    assert.match(lost.ok ? '' : lost.message, /Service unavailable: connection reset/);
    assert.deepEqual(
      backend.received.map((r) => r.dropped),
      [false, true, true],
    );
  });

  it('a call sent again that hangs: it times out, and its connection goes with it', async () => {
    const plan = planFor(`${backend.origin}/x`, 'GET', undefined, 300);
    assert.equal((await client.call(plan, {})).ok, true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    backend.hang = true;
    const started = Date.now();
    const outcome = await client.call(plan, {});
    assert.equal(outcome.ok ? '' : outcome.message, 'Service timed out after 300 ms');
    assert.ok(Date.now() - started < 1_000);
    // the pooled connection was dropped by the backend; the one-off connection is closed with the call
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(backend.open(), 0);
  });

  it('close() ends a call sent again that is still waiting, at once', async () => {
    const plan = planFor(`${backend.origin}/x`, 'GET', undefined, 60_000);
    assert.equal((await client.call(plan, {})).ok, true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    backend.hang = true;
    const pending = client.call(plan, {});
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    await client.close();
    const outcome = await pending;
    assert.equal(outcome.ok, false);
    assert.ok(Date.now() - started < 1_000, `close() took ${Date.now() - started} ms`);
    client = new ServiceClient(1024 * 1024);
  });

  for (const method of ['GET', 'POST'] as const) {
    it(`sends a refused ${method} again once, after a pause (nothing was sent): a backend back by then answers`, async () => {
      const origin = backend.origin;
      await backend.close();
      const pending = client.call(planFor(`${origin}/x`, method), {});
      // back on the same port before the pause is over
      const again = await backOn(origin);
      try {
        const outcome = await pending;
        assert.equal(outcome.ok, true, JSON.stringify(outcome));
        assert.deepEqual(again.received, [method], 'sent once to the backend');
      } finally {
        await again.close();
        backend = await droppingBackend();
      }
    });
  }

  it('a refused call fails as Service unavailable when the second try is refused too, after its pause', async () => {
    const origin = backend.origin;
    await backend.close();
    for (const method of ['GET', 'POST'] as const) {
      const started = Date.now();
      const outcome = await client.call(planFor(`${origin}/x`, method), {});
      assert.equal(outcome.ok, false);
      assert.match(outcome.ok ? '' : outcome.message, /Service unavailable: connection refused/);
      assert.ok(Date.now() - started >= 90, `${method}: ${Date.now() - started} ms, no second try`);
    }
    backend = await droppingBackend();
  });

  it('sends nothing again once the client is closed, even a call whose retry was waiting', async () => {
    const origin = backend.origin;
    await backend.close();
    const pending = client.call(planFor(`${origin}/x`, 'POST'), {});
    await new Promise((resolve) => setTimeout(resolve, 30)); // refused; its second try waits 100 ms
    await client.close();
    const again = await backOn(origin);
    try {
      const outcome = await pending;
      assert.equal(outcome.ok, false);
      assert.deepEqual(again.received, [], 'sent after close()');
    } finally {
      await again.close();
      client = new ServiceClient(1024 * 1024);
      backend = await droppingBackend();
    }
  });
});

describe('service client: which failures send a call again', () => {
  it('a call whose connection could not open, after a pause: any call before the request started', () => {
    for (const code of ['ECONNREFUSED', 'ENETUNREACH', 'EHOSTUNREACH']) {
      // undici reports the socket's error as the cause of its own
      const err = Object.assign(new Error('connect failed'), { cause: { code } });
      assert.equal(retryAfter(err, false, false), 100, `${code}, not idempotent, nothing sent`);
      assert.equal(retryAfter(err, true, false), 100, `${code}, idempotent`);
      assert.equal(retryAfter(err, true, true), 100, `${code}, idempotent, sent`);
    }
    // no route can also end a connection the request went out on: that call may have reached the service
    for (const code of ['ENETUNREACH', 'EHOSTUNREACH']) {
      assert.equal(retryAfter({ code }, false, true), undefined, `${code}, not idempotent, sent`);
    }
  });

  it('an idempotent call lost with its connection, at once; never another', () => {
    for (const code of ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']) {
      assert.equal(retryAfter({ code }, true, true), 0, code);
      assert.equal(retryAfter({ code }, false, true), undefined, code);
    }
    for (const code of ['ENOTFOUND', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', undefined]) {
      assert.equal(retryAfter({ code }, true, true), undefined, String(code));
    }
  });
});
