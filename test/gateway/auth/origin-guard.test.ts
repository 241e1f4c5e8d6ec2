import assert from 'node:assert/strict';
import type { RunningGateway } from '../../../src/gateway';
import { createOriginGuard } from '../../../src/gateway/auth';
import { startFakeService, type FakeService } from '../../helpers/backend';
import { botConfig, objectSchema, tool } from '../../helpers/config';
import { rawRequest } from '../../helpers/http';
import { startSilentGateway } from '../../helpers/in-process-gateway';
import { initializeSession, openSession } from '../../helpers/mcp';
import { BOT } from '../../helpers/tokens';

/** The refusal message of a guard call, or `undefined` when it passes. */
function refusal(
  guard: ReturnType<typeof createOriginGuard>,
  host: string | undefined,
  origin?: string,
): string | undefined {
  try {
    guard(host, origin);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

describe('Origin/Host defaults of a loopback-bound gateway', () => {
  for (const [listenHost, ownHost] of [
    ['127.0.0.2', '127.0.0.2'],
    ['::1', '[::1]'],
    ['127.0.0.1', '127.0.0.1'],
  ] as const) {
    it(`accepts its own address when bound to ${listenHost}, with and without port, and the localhost names`, () => {
      const guard = createOriginGuard({ listenHost });
      for (const host of [ownHost, `${ownHost}:8080`, 'localhost', 'localhost:8080', '127.0.0.1:9', '[::1]:9']) {
        assert.equal(refusal(guard, host), undefined, host);
      }
      assert.equal(refusal(guard, `${ownHost}:8080`, `http://${ownHost}:8080`), undefined);
    });

    it(`refuses foreign hosts and origins when bound to ${listenHost}`, () => {
      const guard = createOriginGuard({ listenHost });
      for (const host of ['evil.example', 'evil.example:8080', '127.0.0.3:8080', '10.0.0.1', undefined]) {
        assert.equal(refusal(guard, host), 'Forbidden: Host not allowed', String(host));
      }
      assert.equal(refusal(guard, 'localhost', 'https://evil.example'), 'Forbidden: Origin not allowed');
      assert.equal(refusal(guard, 'localhost', 'http://127.0.0.3:8080'), 'Forbidden: Origin not allowed');
    });
  }

  it('keeps an explicit allowlist as written (the bound address is not added)', () => {
    const guard = createOriginGuard({ listenHost: '127.0.0.2', allowedHosts: ['gw.internal'] });
    assert.equal(refusal(guard, 'gw.internal:8080'), undefined);
    assert.equal(refusal(guard, '127.0.0.2:8080'), 'Forbidden: Host not allowed');
  });

  it('checks no Host on a gateway bound to all interfaces, and refuses any Origin', () => {
    const guard = createOriginGuard({ listenHost: '0.0.0.0' });
    assert.equal(refusal(guard, 'anything.example'), undefined);
    assert.equal(refusal(guard, 'anything.example', 'http://localhost'), 'Forbidden: Origin not allowed');
  });
});

describe('Origin and Host over /mcp (the first check, before the token)', () => {
  let service: FakeService;
  let gateway: RunningGateway;
  let session: string;
  const LIST = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' });
  const auth = { authorization: `Bearer ${BOT.token}`, 'content-type': 'application/json' };
  const send = (headers: Record<string, string>) =>
    rawRequest({ url: gateway.url, headers, body: LIST, timeoutMs: 5_000 });

  before(async () => {
    service = await startFakeService();
    gateway = await startSilentGateway(
      botConfig([tool('ping_service', `${service.url}/ping`, { inputSchema: objectSchema({}) })]),
    );
    session = await initializeSession(gateway.url);
  });
  after(async () => {
    await gateway.close();
    await service.close();
  });

  it('refuses a foreign Host with 403 before looking at the token', async () => {
    const res = await send({ host: 'evil.example:80' });
    assert.equal(res.status, 403);
    assert.deepEqual(res.json, {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Forbidden: Host not allowed' },
    });
  });

  it('refuses a foreign Origin with 403 even with a valid token', async () => {
    const res = await send({ ...auth, origin: 'https://evil.example', 'mcp-session-id': session });
    assert.equal(res.status, 403);
    assert.equal(res.json.error.message, 'Forbidden: Origin not allowed');
  });

  it('accepts a localhost Host and Origin on a loopback gateway', async () => {
    const port = new URL(gateway.url).port;
    const res = await send({
      ...auth,
      host: `localhost:${port}`,
      origin: 'http://localhost:3000',
      'mcp-session-id': session,
    });
    assert.equal(res.status, 200);
  });

  it('allowed_hosts and allowed_origins replace the loopback defaults', async () => {
    const own = await startSilentGateway(
      botConfig([], { allowed_hosts: ['mcp.internal'], allowed_origins: ['https://console.internal'] }),
    );
    try {
      const body = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
      const h = { authorization: `Bearer ${BOT.token}` };
      const post = (headers: Record<string, string>) =>
        rawRequest({ url: own.url, headers: { ...h, ...headers }, body, timeoutMs: 5_000 });
      assert.equal((await post({ host: 'localhost' })).status, 403);
      assert.equal((await post({ host: 'mcp.internal:8080', origin: 'http://localhost' })).status, 403);
      assert.equal((await post({ host: 'mcp.internal', origin: 'https://console.internal' })).status, 400);
    } finally {
      await own.close();
    }
  });

  it('a gateway bound to a loopback address other than 127.0.0.1 accepts its own URL (Host 127.0.0.2:PORT)', async () => {
    const local = await startSilentGateway(botConfig([]), { host: '127.0.0.2' });
    try {
      assert.match(local.url, /^http:\/\/127\.0\.0\.2:\d+\/mcp$/);
      // isLoopback('127.0.0.2') turns the localhost-only Host check on, but its allowlist lacked the bound address.
      const opened = await openSession(local.url, { token: BOT.token });
      const res = await opened.request('ping');
      assert.equal(res.status, 200, res.text);
    } finally {
      await local.close();
    }
  });
});
