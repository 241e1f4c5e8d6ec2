/**
 * SPEC §4 "Order of checks", step by step, against the built CLI over real sockets:
 * Origin/Host → authentication → body size and JSON parse → JSON-RPC shape → session → tool lookup.
 */
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readAuditLog, readAuditText, unexpectedAuditKeys, waitForAuditRecords } from '../../helpers/audit-log';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { gatewayConfig, supportDeskTools } from '../../helpers/config';
import { type GatewayProcess, killAllGatewayProcesses, startGatewayProcess } from '../../helpers/gateway-process';
import { rawRequest } from '../../helpers/http';
import { initializeRequest, type McpSession, openSession, postMcp, toolsCallRequest } from '../../helpers/mcp';
import { makeToken } from '../../helpers/tokens';

const MAX_BODY_BYTES = 64 * 1024;

describe('gateway e2e: order of checks', function () {
  this.timeout(20_000);
  const bot = makeToken('support-bot');
  const other = makeToken('other-bot');
  let backend: TestBackend;
  let gw: GatewayProcess;
  let session: McpSession;

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
  });

  after(async () => {
    await killAllGatewayProcesses();
    await backend?.close();
  });

  describe('Origin and Host (DNS-rebinding protection)', () => {
    it('refuses a foreign Origin with 403 even with a valid token', async () => {
      const res = await postMcp(gw.url, initializeRequest(), { token: bot.token, headers: { origin: 'http://evil.example' } });
      assert.equal(res.status, 403);
    });

    it('refuses a foreign Origin with 403 before authentication (no token: 403, not 401)', async () => {
      const res = await postMcp(gw.url, initializeRequest(), { headers: { origin: 'http://evil.example' } });
      assert.equal(res.status, 403);
    });

    it('accepts a localhost Origin on a gateway bound to loopback', async () => {
      const res = await postMcp(gw.url, initializeRequest(), { token: bot.token, headers: { origin: `http://localhost:${gw.port}` } });
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
        headers: { host: 'rebind.attacker.test', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
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
    it('answers 401 with WWW-Authenticate: Bearer when the token is missing', async () => {
      const res = await postMcp(gw.url, initializeRequest());
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer\b/);
    });

    it('answers 401 with WWW-Authenticate: Bearer when the token is wrong', async () => {
      const res = await postMcp(gw.url, initializeRequest(), { token: `${bot.token}x` });
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer\b/);
    });

    it('answers 401 when the Authorization scheme is not Bearer', async () => {
      const res = await postMcp(gw.url, initializeRequest(), { headers: { authorization: `Basic ${bot.token}` } });
      assert.equal(res.status, 401);
    });

    it('answers 401, not 413, to an unauthenticated oversized body (authentication comes first)', async () => {
      const res = await postMcp(gw.url, 'x'.repeat(MAX_BODY_BYTES + 1024));
      assert.equal(res.status, 401);
    });
  });

  describe('body and JSON-RPC shape', () => {
    it('answers 413 to a body over max_body_bytes', async () => {
      const big = toolsCallRequest('get_customer', { customer_id: 'C-0001', query: 'q'.repeat(MAX_BODY_BYTES) });
      const res = await postMcp(gw.url, big, session.options());
      assert.equal(res.status, 413);
    });

    it('answers JSON-RPC -32700 with id null to a body that is not JSON', async () => {
      const res = await postMcp(gw.url, '{"jsonrpc":"2.0","id":1,', session.options());
      assert.equal(res.message?.error?.code, -32700, res.text);
      assert.equal(res.message?.id, null);
    });

    it('answers -32700 before looking at the session (no Mcp-Session-Id: still -32700, not 400)', async () => {
      const res = await postMcp(gw.url, 'not json at all', { token: bot.token });
      assert.equal(res.message?.error?.code, -32700, res.text);
    });

    it('answers JSON-RPC -32600 to a message that is not a JSON-RPC request', async () => {
      const res = await postMcp(gw.url, { jsonrpc: '2.0', id: 7 }, session.options());
      assert.equal(res.message?.error?.code, -32600, res.text);
    });

    it('answers JSON-RPC -32600 to a request with the wrong jsonrpc version', async () => {
      const res = await postMcp(gw.url, { jsonrpc: '1.0', id: 8, method: 'ping' }, session.options());
      assert.equal(res.message?.error?.code, -32600, res.text);
    });

    it('answers JSON-RPC -32601 to an unknown method', async () => {
      const res = await session.request('tools/explode', {});
      assert.equal(res.status, 200);
      assert.equal(res.message?.error?.code, -32601, res.text);
    });
  });

  describe('session', () => {
    it('answers 400 to a request without Mcp-Session-Id', async () => {
      const res = await postMcp(gw.url, { jsonrpc: '2.0', id: 9, method: 'tools/list' }, { token: bot.token, protocolVersion: '2025-11-25' });
      assert.equal(res.status, 400);
    });

    it('answers 404 to an unknown session id', async () => {
      const res = await postMcp(gw.url, { jsonrpc: '2.0', id: 10, method: 'tools/list' }, { ...session.options(), sessionId: 'no-such-session-0000' });
      assert.equal(res.status, 404);
    });

    it('answers 404 to a session presented with another valid token than the one that opened it', async () => {
      const res = await postMcp(gw.url, { jsonrpc: '2.0', id: 11, method: 'tools/list' }, { ...session.options(), token: other.token });
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
        headers: { authorization: `Bearer ${bot.token}`, 'mcp-session-id': s.sessionId, 'mcp-protocol-version': s.protocolVersion },
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

  describe('a refused request never reaches validation, the audit log or the backend', () => {
    async function assertNeverReached(send: (canary: string) => Promise<number>, expectedStatus: number): Promise<void> {
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
        const res = await postMcp(gw.url, toolsCallRequest('get_customer', invalidArgs(canary)), { sessionId: session.sessionId, protocolVersion: session.protocolVersion });
        assert.equal(res.message?.error?.code === -32602, false);
        return res.status;
      }, 401);
    });

    it('with a wrong token: 401, not -32602', async () => {
      await assertNeverReached(async (canary) => {
        const res = await postMcp(gw.url, toolsCallRequest('get_customer', invalidArgs(canary)), { ...session.options(), token: 'wrong-token' });
        assert.equal(res.message?.error?.code === -32602, false);
        return res.status;
      }, 401);
    });

    it('without a session: 400, not -32602', async () => {
      await assertNeverReached(async (canary) => {
        const res = await postMcp(gw.url, toolsCallRequest('get_customer', invalidArgs(canary)), { token: bot.token, protocolVersion: '2025-11-25' });
        assert.equal(res.message?.error?.code === -32602, false);
        return res.status;
      }, 400);
    });

    it('with another token\'s session: 404, not -32602', async () => {
      await assertNeverReached(async (canary) => {
        const res = await postMcp(gw.url, toolsCallRequest('get_customer', invalidArgs(canary)), { ...session.options(), token: other.token });
        assert.equal(res.message?.error?.code === -32602, false);
        return res.status;
      }, 404);
    });
  });
});
