/**
 * Round-2 SPEC review: sessions (bound to their token, ended by DELETE, expired session_ttl_ms after issue), the GET notification
 * stream, notifications and client responses (202, no body), and the MCP-Protocol-Version header, over raw HTTP.
 */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { gatewayConfig, supportDeskTools } from '../../helpers/config';
import { rawRequest } from '../../helpers/http';
import { type InProcessGateway, startInProcessGateway } from '../../helpers/in-process-gateway';
import { type McpSession, openSession, postMcp } from '../../helpers/mcp';
import { makeToken, type TestToken } from '../../helpers/tokens';

/** An open GET (SSE) stream: what arrived so far, and a promise that settles when the server ends it. */
interface OpenStream {
  readonly status: number;
  readonly contentType: string | undefined;
  text(): string;
  readonly ended: Promise<void>;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  destroy(): void;
}

function openStream(url: string, headers: Record<string, string>): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'GET', headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      const ended = new Promise<void>((done) => { res.on('end', done); res.on('close', done); });
      resolve({
        status: res.statusCode ?? 0,
        contentType: res.headers['content-type'],
        text: () => text,
        ended,
        waitFor: async (pattern, timeoutMs = 3_000) => {
          const deadline = Date.now() + timeoutMs;
          while (!pattern.test(text)) {
            if (Date.now() > deadline) throw new Error(`stream did not show ${pattern} within ${timeoutMs} ms: ${JSON.stringify(text)}`);
            await new Promise((r) => setTimeout(r, 20));
          }
        },
        destroy: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const within = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms).unref())]);

describe('SPEC review: sessions, the GET stream and notifications', function () {
  this.timeout(20_000);
  const bot = makeToken('stream-bot');
  const other = makeToken('stream-other');
  let backend: TestBackend;
  let gw: InProcessGateway;
  const streams: OpenStream[] = [];

  const sse = (t: TestToken, sessionId?: string) =>
    openStream(gw.url, {
      accept: 'text/event-stream',
      authorization: `Bearer ${t.token}`,
      ...(sessionId !== undefined ? { 'mcp-session-id': sessionId } : {}),
    }).then((s) => { streams.push(s); return s; });

  before(async () => {
    backend = await startBackend();
    gw = await startInProcessGateway(gatewayConfig({ tokens: [bot, other], tools: supportDeskTools(backend.url) }));
  });

  after(async () => {
    for (const s of streams) s.destroy();
    await gw?.close();
    await backend?.close();
  });

  describe('initialize', () => {
    it('issues a distinct signed Mcp-Session-Id (payload.mac, base64url) per initialize and advertises tools.listChanged', async () => {
      const a = await openSession(gw.url, { token: bot.token });
      const b = await openSession(gw.url, { token: bot.token });
      assert.match(a.sessionId, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
      assert.notEqual(a.sessionId, b.sessionId);
      assert.deepEqual(a.initializeResult.capabilities, { tools: { listChanged: true } });
    });
  });

  describe('notifications and client responses', () => {
    let session: McpSession;
    before(async () => { session = await openSession(gw.url, { token: bot.token }); });

    it('answers a notification with 202 and no body', async () => {
      const res = await session.notify('notifications/cancelled', { requestId: 1, reason: 'test' });
      assert.equal(res.status, 202);
      assert.equal(res.text, '');
      assert.equal(res.headers.get('content-type'), null);
    });

    it('answers a tools/call sent as a notification (no id) with 202 and never calls the service', async () => {
      const before = backend.requests;
      const res = await postMcp(gw.url, { jsonrpc: '2.0', method: 'tools/call', params: { name: 'health' } }, session.options());
      assert.equal(res.status, 202);
      assert.equal(res.text, '');
      assert.equal(backend.requests, before);
    });

    it('answers a client\'s JSON-RPC response (result, with id) with 202 and no body', async () => {
      const res = await postMcp(gw.url, { jsonrpc: '2.0', id: 'srv-1', result: {} }, session.options());
      assert.equal(res.status, 202);
      assert.equal(res.text, '');
    });

    it('refuses a notification without Mcp-Session-Id with 400', async () => {
      const res = await postMcp(gw.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { token: bot.token });
      assert.equal(res.status, 400);
      assert.equal(res.message?.error?.message, 'Bad Request: Mcp-Session-Id header is required');
    });
  });

  describe('the GET notification stream', () => {
    it('refuses a GET stream without Mcp-Session-Id with 400', async () => {
      const s = await sse(bot);
      assert.equal(s.status, 400);
      await within(s.ended, 2_000, 'the refusal ended');
      assert.equal(JSON.parse(s.text()).error.message, 'Bad Request: Mcp-Session-Id header is required');
    });

    it('refuses a GET stream of another token\'s session with 404', async () => {
      const session = await openSession(gw.url, { token: other.token });
      const s = await sse(bot, session.sessionId);
      assert.equal(s.status, 404);
    });

    it('refuses a GET stream without a token with 401 and WWW-Authenticate', async () => {
      const res = await rawRequest({ url: gw.url, method: 'GET', headers: { accept: 'text/event-stream' } });
      assert.equal(res.status, 401);
      assert.equal(res.headers['www-authenticate'], 'Bearer');
    });

    it('delivers notifications/tools/list_changed on reload as an SSE message', async () => {
      const session = await openSession(gw.url, { token: bot.token });
      const s = await sse(bot, session.sessionId);
      assert.equal(s.status, 200);
      assert.equal(s.contentType, 'text/event-stream');
      await gw.gateway.reload(gatewayConfig({ tokens: [bot, other], tools: supportDeskTools(backend.url) }));
      await s.waitFor(/"method":"notifications\/tools\/list_changed"/);
      const data = s.text().split('\n').find((l) => l.startsWith('data: '))!;
      assert.deepEqual(JSON.parse(data.slice(6)), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    });
  });

  describe('DELETE and expiry', () => {
    it('ends the session on DELETE: its open stream ends and later requests get 404', async () => {
      const session = await openSession(gw.url, { token: bot.token });
      const s = await sse(bot, session.sessionId);
      const del = await rawRequest({ url: gw.url, method: 'DELETE', headers: { authorization: `Bearer ${bot.token}`, 'mcp-session-id': session.sessionId } });
      assert.equal(del.status, 200);
      await within(s.ended, 2_000, 'the stream ended after DELETE');
      const after = await session.request('tools/list');
      assert.equal(after.status, 404);
      assert.equal(after.message?.error?.message, 'Session not found');
    });

    it('refuses a DELETE with another token (404) and keeps the session', async () => {
      const session = await openSession(gw.url, { token: bot.token });
      const del = await rawRequest({ url: gw.url, method: 'DELETE', headers: { authorization: `Bearer ${other.token}`, 'mcp-session-id': session.sessionId } });
      assert.equal(del.status, 404);
      assert.equal((await session.request('ping')).status, 200);
    });

    it('expires a session session_ttl_ms after it was issued (404), even one in use', async () => {
      const short = await startInProcessGateway(
        gatewayConfig({ tokens: [bot], tools: supportDeskTools(backend.url), settings: { session_ttl_ms: 300 } }),
      );
      try {
        const busy = await openSession(short.url, { token: bot.token });
        assert.equal((await busy.request('ping')).status, 200, 'a fresh session answers');
        await new Promise((r) => setTimeout(r, 350));
        const res = await busy.request('ping');
        assert.equal(res.status, 404);
        assert.equal(res.message?.error?.message, 'Session not found');
      } finally {
        await short.close();
      }
    });
  });

  describe('MCP-Protocol-Version', () => {
    it('accepts requests without the header (2025-03-26 clients send none)', async () => {
      const session = await openSession(gw.url, { token: bot.token, protocolVersion: '2025-03-26' });
      const res = await postMcp(gw.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { token: bot.token, sessionId: session.sessionId });
      assert.equal(res.status, 200);
      assert.equal(res.message?.result?.tools.length, 4);
    });

    it('refuses an unsupported version on the GET stream with 400', async () => {
      const session = await openSession(gw.url, { token: bot.token });
      const res = await rawRequest({
        url: gw.url,
        method: 'GET',
        headers: {
          accept: 'text/event-stream',
          authorization: `Bearer ${bot.token}`,
          'mcp-session-id': session.sessionId,
          'mcp-protocol-version': '2024-01-01',
        },
      });
      assert.equal(res.status, 400);
      assert.equal(
        JSON.parse(res.text).error.message,
        'Bad Request: unsupported MCP-Protocol-Version (supported: 2025-11-25, 2025-06-18, 2025-03-26)',
      );
    });
  });
});
