/**
 * docs/gateway.md "Order of checks", end to end against the built CLI over real sockets: Origin/Host → authentication →
 * body size and JSON parse → JSON-RPC shape → session → tool lookup → aliases → validation → service → audit.
 * First requests that fail several checks at once (the earliest check answers, with its exact status and message,
 * and nothing after it ran: no audit record, no backend request), then each step on its own. The modules that own
 * a step test it in detail in test/gateway/<room>/.
 */
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readAuditLog, readAuditText, unexpectedAuditKeys, waitForAuditRecords } from '../../helpers/audit-log';
import { sleep } from '../../helpers/eventually';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { gatewayConfig, supportDeskTools } from '../../helpers/config';
import { type GatewayProcess, killAllGatewayProcesses, startGatewayProcess } from '../../helpers/gateway-process';
import { rawRequest } from '../../helpers/http';
import { initializeRequest, type McpSession, openSession, postMcp, toolsCallRequest } from '../../helpers/mcp';
import { makeToken } from '../../helpers/tokens';
import { sessionDigest } from '../../../src/gateway/audit/session-digest';

const MAX_BODY_BYTES = 2048;

interface Row {
  readonly name: string;
  readonly headers: () => Record<string, string>;
  readonly body: () => string;
  readonly status: number;
  /** The JSON-RPC error of the answer. */
  readonly error: { code: number; message: string };
  /** Whether the answer carries `WWW-Authenticate: Bearer`. @default false */
  readonly challenge?: boolean;
  /** The id the answer echoes: a -32600 echoes a readable request id. @default null */
  readonly id?: string | number;
}

describe('gateway e2e: order of checks', function () {
  this.timeout(20_000);
  const bot = makeToken('support-bot');
  const other = makeToken('other-bot');
  let backend: TestBackend;
  let gw: GatewayProcess;
  let session: McpSession;
  let otherSession: McpSession;

  before(async () => {
    backend = await startBackend();
    gw = await startGatewayProcess({
      config: gatewayConfig({
        tokens: [bot, other],
        tools: supportDeskTools(backend.url),
        settings: { max_body_bytes: MAX_BODY_BYTES },
      }),
    });
    session = await openSession(gw.url, { token: bot.token });
    otherSession = await openSession(gw.url, { token: other.token });
  });

  after(async () => {
    await killAllGatewayProcesses();
    await backend?.close();
  });

  const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
  const host = () => ({ host: new URL(gw.url).host });
  // An invalid call of a real tool: a missing required field and a wrong type.
  const invalidCall = (id = 41) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'get_customer', arguments: { limit: 'x' } },
    });
  const oversized = () =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_customer', arguments: { query: 'q'.repeat(4096) } },
    });

  const rows: Row[] = [
    {
      name: 'foreign Origin + no token + oversized body → 403 (Origin first)',
      headers: () => ({ ...json, ...host(), origin: 'https://evil.example' }),
      body: oversized,
      status: 403,
      error: { code: -32600, message: 'Forbidden: Origin not allowed' },
    },
    {
      name: 'foreign Host + wrong token + not JSON → 403 (Host first)',
      headers: () => ({ ...json, host: 'rebind.example', ...bearer('nope') }),
      body: () => '{"jsonrpc":',
      status: 403,
      error: { code: -32600, message: 'Forbidden: Host not allowed' },
    },
    {
      name: 'no token + oversized body + not JSON → 401 with WWW-Authenticate',
      headers: () => ({ ...json, ...host() }),
      body: () => `{${'x'.repeat(5000)}`,
      status: 401,
      error: { code: -32600, message: 'Unauthorized: a valid bearer token is required' },
      challenge: true,
    },
    {
      name: 'a Basic Authorization header + valid session → 401 with WWW-Authenticate',
      headers: () => ({ ...json, ...host(), authorization: 'Basic dXNlcjpwYXNz', 'mcp-session-id': session.sessionId }),
      body: () => invalidCall(),
      status: 401,
      error: { code: -32600, message: 'Unauthorized: a valid bearer token is required' },
      challenge: true,
    },
    {
      name: 'valid token + oversized body that is not JSON, no session → 413',
      headers: () => ({ ...json, ...host(), ...bearer(bot.token) }),
      body: () => `{${'x'.repeat(5000)}`,
      status: 413,
      error: { code: -32600, message: `Payload Too Large: the body exceeds ${MAX_BODY_BYTES} bytes` },
    },
    {
      name: 'valid token + not JSON + unknown session → -32700 (parse before session)',
      headers: () => ({ ...json, ...host(), ...bearer(bot.token), 'mcp-session-id': 'no-such-session' }),
      body: () => '{"jsonrpc":"2.0",',
      status: 400,
      error: { code: -32700, message: 'Parse error: the body is not valid JSON' },
    },
    {
      name: 'valid token + wrong jsonrpc version + no session → -32600 (shape before session)',
      headers: () => ({ ...json, ...host(), ...bearer(bot.token) }),
      body: () => JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'tools/call', params: { name: 'get_customer' } }),
      status: 400,
      error: { code: -32600, message: 'Invalid Request: jsonrpc must be "2.0"' },
      id: 1,
    },
    {
      name: 'valid token + id null → -32600 (MCP forbids a null request id)',
      headers: () => ({ ...json, ...host(), ...bearer(bot.token), 'mcp-session-id': session.sessionId }),
      body: () => JSON.stringify({ jsonrpc: '2.0', id: null, method: 'ping' }),
      status: 400,
      error: { code: -32600, message: 'Invalid Request: id must be a string or a number' },
    },
    {
      name: 'valid token + params that are not an object → -32600',
      headers: () => ({ ...json, ...host(), ...bearer(bot.token), 'mcp-session-id': session.sessionId }),
      body: () => JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: ['get_customer'] }),
      status: 400,
      error: { code: -32600, message: 'Invalid Request: params must be an object' },
      id: 9,
    },
    {
      name: "valid token + another token's session + invalid call → 404 (session before validation)",
      headers: () => ({ ...json, ...host(), ...bearer(bot.token), 'mcp-session-id': otherSession.sessionId }),
      body: () => invalidCall(),
      status: 404,
      error: { code: -32600, message: 'Session not found' },
    },
    {
      name: 'valid token + no session + invalid call → 400 (session before validation)',
      headers: () => ({ ...json, ...host(), ...bearer(bot.token) }),
      body: () => invalidCall(),
      status: 400,
      error: { code: -32600, message: 'Bad Request: Mcp-Session-Id header is required' },
    },
  ];

  describe('a request failing several checks at once: the earliest answers, nothing after it runs', () => {
    for (const row of rows) {
      it(`${row.name}; no audit record, no backend call`, async () => {
        const auditBefore = readAuditLog(gw.auditLogPath).length;
        const backendBefore = backend.requests;
        const res = await rawRequest({ url: gw.url, headers: row.headers(), body: row.body() });
        assert.equal(res.status, row.status, res.text);
        assert.deepEqual(JSON.parse(res.text), { jsonrpc: '2.0', id: row.id ?? null, error: row.error });
        assert.equal(res.headers['www-authenticate'], row.challenge === true ? 'Bearer' : undefined);
        // Give a (wrongly) scheduled audit flush the chance to land before concluding there is none.
        await sleep(50);
        assert.equal(readAuditLog(gw.auditLogPath).length, auditBefore, 'an audit record was written');
        assert.equal(backend.requests, backendBefore, 'the backend was called');
      });
    }
  });

  describe('Origin and Host (DNS-rebinding protection)', () => {
    it('refuses a foreign Origin with 403 even with a valid token', async () => {
      const res = await postMcp(gw.url, initializeRequest(), {
        token: bot.token,
        headers: { origin: 'http://evil.example' },
      });
      assert.equal(res.status, 403);
    });

    it('accepts a localhost Origin on a gateway bound to loopback', async () => {
      const res = await postMcp(gw.url, initializeRequest(), {
        token: bot.token,
        headers: { origin: `http://localhost:${gw.port}` },
      });
      assert.equal(res.status, 200);
      assert.ok(res.message?.result, res.text);
    });

    it('refuses a foreign Host header with 403', async () => {
      const res = await rawRequest({
        url: gw.url,
        headers: {
          host: `evil.example:${gw.port}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${bot.token}`,
        },
        body: JSON.stringify(initializeRequest()),
      });
      assert.equal(res.status, 403);
    });

    it('refuses a foreign Host header with 403 before authentication (no token: 403, not 401)', async () => {
      const res = await rawRequest({
        url: gw.url,
        headers: {
          host: 'rebind.attacker.test',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(initializeRequest()),
      });
      assert.equal(res.status, 403);
    });

    it('accepts the Host header localhost:PORT on a gateway bound to loopback', async () => {
      const res = await rawRequest({
        url: gw.url,
        headers: {
          host: `localhost:${gw.port}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${bot.token}`,
        },
        body: JSON.stringify(initializeRequest()),
      });
      assert.equal(res.status, 200, res.text);
    });
  });

  describe('authentication', () => {
    it('answers 401 with WWW-Authenticate: Bearer when the token is wrong', async () => {
      const res = await postMcp(gw.url, initializeRequest(), { token: `${bot.token}x` });
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer\b/);
    });
  });

  describe('body and JSON-RPC shape', () => {
    it('answers -32700 before looking at the session (no Mcp-Session-Id: still -32700, not 400)', async () => {
      const res = await postMcp(gw.url, 'not json at all', { token: bot.token });
      assert.equal(res.message?.error?.code, -32700, res.text);
    });

    it('answers JSON-RPC -32600 to a message that is not a JSON-RPC request', async () => {
      const res = await postMcp(gw.url, { jsonrpc: '2.0', id: 7 }, session.options());
      assert.equal(res.message?.error?.code, -32600, res.text);
    });
  });

  describe('session', () => {
    it('answers 404 to an unknown session id', async () => {
      const res = await postMcp(
        gw.url,
        { jsonrpc: '2.0', id: 10, method: 'tools/list' },
        { ...session.options(), sessionId: 'no-such-session-0000' },
      );
      assert.equal(res.status, 404);
    });

    it('still serves the session with the token that opened it', async () => {
      const res = await session.request('ping');
      assert.equal(res.status, 200);
      assert.deepEqual(res.message?.result, {});
    });

    it('answers 404 to a session after it was deleted', async () => {
      const s = await openSession(gw.url, { token: bot.token });
      const del = await fetch(gw.url, {
        method: 'DELETE',
        headers: {
          authorization: `Bearer ${bot.token}`,
          'mcp-session-id': s.sessionId,
          'mcp-protocol-version': s.protocolVersion,
        },
        signal: AbortSignal.timeout(5_000),
      });
      assert.ok(del.status === 200 || del.status === 204, `DELETE answered ${del.status}`);
      const res = await s.request('ping');
      assert.equal(res.status, 404);
    });
  });

  describe('tool lookup', () => {
    it('answers JSON-RPC -32602 "Unknown tool: `x`" to an unknown tool', async () => {
      const res = await session.callTool('x', {});
      assert.equal(res.status, 200);
      assert.equal(res.message?.error?.code, -32602);
      assert.equal(res.message?.error?.message, 'Unknown tool: `x`');
    });

    it('cuts a long unknown tool name to 64 characters in the message', async () => {
      const res = await session.callTool('y'.repeat(100), {});
      assert.equal(res.message?.error?.code, -32602);
      const message = res.message?.error?.message ?? '';
      // How the cut is marked (an ellipsis or nothing) is the messages module's choice; the length is the contract.
      assert.ok(message.startsWith(`Unknown tool: \`${'y'.repeat(64)}`), message);
      assert.equal(message.match(/y/g)?.length, 64, message);
    });
  });

  describe('inside a valid session, the earliest failing step answers', () => {
    it('unknown tool + non-object arguments → -32602 "Unknown tool" (tool lookup first)', async () => {
      const res = await session.callTool('get_custmer', 'not an object');
      assert.deepEqual(res.message?.error, { code: -32602, message: 'Unknown tool: `get_custmer`' });
    });

    it('alias conflict + a wrong type of the parameter → the conflict (alias normalization before validation)', async () => {
      const res = await session.callTool('create_task', { title: 5, prompt: 'a', description: 'b' });
      assert.equal(res.message?.error?.code, -32602);
      assert.equal(res.message?.error?.message, 'Conflicting parameters: `prompt` and `description`');
    });

    it('an unknown method with an id is -32601 naming the method, before the session check', async () => {
      const res = await rawRequest({
        url: gw.url,
        headers: { ...json, ...host(), ...bearer(bot.token) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'r-1', method: 'resources/list' }),
      });
      assert.equal(res.status, 200);
      assert.deepEqual(JSON.parse(res.text), {
        jsonrpc: '2.0',
        id: 'r-1',
        error: { code: -32601, message: 'Method not found: resources/list' },
      });
    });

    it('tools/call without a name is -32602 and audited as refused', async () => {
      const own = await openSession(gw.url, { token: bot.token });
      const res = await own.request('tools/call', { arguments: {} });
      assert.deepEqual(res.message?.error, { code: -32602, message: 'Invalid params: `name` must be a string' });
      // The audit log is written after the answer: wait for this session's record, then for any stray second one.
      await waitForAuditRecords(gw.auditLogPath, 1, { where: (r) => r.session === sessionDigest(own.sessionId) });
      await sleep(50);
      const records = readAuditLog(gw.auditLogPath).filter((r) => r.session === sessionDigest(own.sessionId));
      assert.deepEqual(
        records.map((r) => [r.tool, r.outcome, r.error]),
        [['', 'refused', { code: 'INVALID_PARAMS', message: 'Invalid params: `name` must be a string' }]],
      );
    });

    it('an unknown tool name with a backtick and a newline is escaped in the message (one line, quote intact)', async () => {
      const res = await session.callTool('a`b\nc', {});
      // The validation module's escaping: JSON string escapes, a backtick as \u0060 (see src/validation/path.ts).
      assert.deepEqual(res.message?.error, { code: -32602, message: 'Unknown tool: `a\\u0060b\\nc`' });
    });
  });

  describe('a refused request never reaches validation, the audit log or the backend', () => {
    async function assertNeverReached(
      send: (canary: string) => Promise<number>,
      expectedStatus: number,
    ): Promise<void> {
      const canary = `canary-${randomBytes(8).toString('hex')}`;
      const backendBefore = backend.requests;
      const auditBefore = readAuditLog(gw.auditLogPath).length;
      // An invalid call (pattern and minimum violated) that validation would refuse with -32602.
      const status = await send(canary);
      assert.equal(status, expectedStatus);
      assert.equal(backend.requests, backendBefore, 'the refused call reached the backend');
      // A valid control call: once its record is written, any record of the refused call would be too.
      const ok = await session.callTool('get_customer', { customer_id: 'C-0001' });
      assert.equal(ok.message?.result?.isError, undefined, ok.text);
      assert.equal(backend.requests, backendBefore + 1);
      const records = await waitForAuditRecords(gw.auditLogPath, auditBefore + 1);
      assert.ok(!readAuditText(gw.auditLogPath).includes(canary), 'an argument value reached the audit log');
      for (const record of records) assert.deepEqual(unexpectedAuditKeys(record), []);
    }

    const invalidArgs = (canary: string) => ({ customer_id: canary, limit: 0 });

    it('without a token: 401, not -32602', async () => {
      await assertNeverReached(async (canary) => {
        const res = await postMcp(gw.url, toolsCallRequest('get_customer', invalidArgs(canary)), {
          sessionId: session.sessionId,
          protocolVersion: session.protocolVersion,
        });
        assert.equal(res.message?.error?.code === -32602, false);
        return res.status;
      }, 401);
    });

    it('with a wrong token: 401, not -32602', async () => {
      await assertNeverReached(async (canary) => {
        const res = await postMcp(gw.url, toolsCallRequest('get_customer', invalidArgs(canary)), {
          ...session.options(),
          token: 'wrong-token',
        });
        assert.equal(res.message?.error?.code === -32602, false);
        return res.status;
      }, 401);
    });

    it('without a session: 400, not -32602', async () => {
      await assertNeverReached(async (canary) => {
        const res = await postMcp(gw.url, toolsCallRequest('get_customer', invalidArgs(canary)), {
          token: bot.token,
          protocolVersion: '2025-11-25',
        });
        assert.equal(res.message?.error?.code === -32602, false);
        return res.status;
      }, 400);
    });

    it("with another token's session: 404, not -32602", async () => {
      await assertNeverReached(async (canary) => {
        const res = await postMcp(gw.url, toolsCallRequest('get_customer', invalidArgs(canary)), {
          ...session.options(),
          token: other.token,
        });
        assert.equal(res.message?.error?.code === -32602, false);
        return res.status;
      }, 404);
    });
  });
});
