/**
 * Round-2 SPEC review: SPEC §4's order of checks in combination. Each row sends a request that fails several
 * checks at once and asserts that the earliest check answers, with its exact status and message, and that
 * nothing after it ran (no audit record, no backend request).
 */
import * as assert from 'node:assert/strict';
import { readAuditLog } from '../../helpers/audit-log';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { gatewayConfig, supportDeskTools } from '../../helpers/config';
import { rawRequest } from '../../helpers/http';
import { type InProcessGateway, startInProcessGateway } from '../../helpers/in-process-gateway';
import { type McpSession, openSession } from '../../helpers/mcp';
import { makeToken } from '../../helpers/tokens';

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

describe('SPEC review: order of checks in combination', function () {
  this.timeout(20_000);
  const bot = makeToken('matrix-bot');
  const other = makeToken('matrix-other');
  let backend: TestBackend;
  let gw: InProcessGateway;
  let session: McpSession;
  let otherSession: McpSession;

  before(async () => {
    backend = await startBackend();
    gw = await startInProcessGateway(
      gatewayConfig({ tokens: [bot, other], tools: supportDeskTools(backend.url), settings: { max_body_bytes: 2048 } }),
    );
    session = await openSession(gw.url, { token: bot.token });
    otherSession = await openSession(gw.url, { token: other.token });
  });

  after(async () => {
    await gw?.close();
    await backend?.close();
  });

  const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
  const host = () => ({ host: new URL(gw.url).host });
  // An invalid call of a real tool: a missing required field and a wrong type.
  const invalidCall = (id = 41) =>
    JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_customer', arguments: { limit: 'x' } } });
  const oversized = () =>
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_customer', arguments: { query: 'q'.repeat(4096) } } });

  const rows: Row[] = [
    {
      name: 'foreign Origin + no token + oversized body → 403 (Origin first)',
      headers: () => ({ ...json, ...host(), origin: 'https://evil.example' }),
      body: oversized,
      status: 403,
      error: { code: -32000, message: 'Forbidden: Origin not allowed' },
    },
    {
      name: 'foreign Host + wrong token + not JSON → 403 (Host first)',
      headers: () => ({ ...json, host: 'rebind.example', ...bearer('nope') }),
      body: () => '{"jsonrpc":',
      status: 403,
      error: { code: -32000, message: 'Forbidden: Host not allowed' },
    },
    {
      name: 'no token + oversized body + not JSON → 401 with WWW-Authenticate',
      headers: () => ({ ...json, ...host() }),
      body: () => `{${'x'.repeat(5000)}`,
      status: 401,
      error: { code: -32001, message: 'Unauthorized: a valid bearer token is required' },
      challenge: true,
    },
    {
      name: 'a Basic Authorization header + valid session → 401 with WWW-Authenticate',
      headers: () => ({ ...json, ...host(), authorization: 'Basic dXNlcjpwYXNz', 'mcp-session-id': session.sessionId }),
      body: () => invalidCall(),
      status: 401,
      error: { code: -32001, message: 'Unauthorized: a valid bearer token is required' },
      challenge: true,
    },
    {
      name: 'valid token + oversized body that is not JSON, no session → 413',
      headers: () => ({ ...json, ...host(), ...bearer(bot.token) }),
      body: () => `{${'x'.repeat(5000)}`,
      status: 413,
      error: { code: -32000, message: 'Payload Too Large: the body exceeds 2048 bytes' },
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
      name: 'valid token + another token\'s session + invalid call → 404 (session before validation)',
      headers: () => ({ ...json, ...host(), ...bearer(bot.token), 'mcp-session-id': otherSession.sessionId }),
      body: () => invalidCall(),
      status: 404,
      error: { code: -32001, message: 'Session not found' },
    },
    {
      name: 'valid token + no session + invalid call → 400 (session before validation)',
      headers: () => ({ ...json, ...host(), ...bearer(bot.token) }),
      body: () => invalidCall(),
      status: 400,
      error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' },
    },
  ];

  for (const row of rows) {
    it(`${row.name}; no audit record, no backend call`, async () => {
      const auditBefore = readAuditLog(gw.auditLogPath).length;
      const backendBefore = backend.requests;
      const res = await rawRequest({ url: gw.url, headers: row.headers(), body: row.body() });
      assert.equal(res.status, row.status, res.text);
      assert.deepEqual(JSON.parse(res.text), { jsonrpc: '2.0', id: row.id ?? null, error: row.error });
      assert.equal(res.headers['www-authenticate'], row.challenge === true ? 'Bearer' : undefined);
      // Give a (wrongly) scheduled audit flush the chance to land before concluding there is none.
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(readAuditLog(gw.auditLogPath).length, auditBefore, 'an audit record was written');
      assert.equal(backend.requests, backendBefore, 'the backend was called');
    });
  }

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
      assert.deepEqual(JSON.parse(res.text), { jsonrpc: '2.0', id: 'r-1', error: { code: -32601, message: 'Method not found: resources/list' } });
    });

    it('tools/call without a name is -32602 and audited as refused', async () => {
      const own = await openSession(gw.url, { token: bot.token });
      const res = await own.request('tools/call', { arguments: {} });
      assert.deepEqual(res.message?.error, { code: -32602, message: 'Invalid params: `name` must be a string' });
      // The audit log is written after the answer: wait for this session's record, then for any stray second one.
      const deadline = Date.now() + 2_000;
      while (!readAuditLog(gw.auditLogPath).some((r) => r.session === own.sessionId) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
      }
      await new Promise((r) => setTimeout(r, 50));
      const records = readAuditLog(gw.auditLogPath).filter((r) => r.session === own.sessionId);
      assert.deepEqual(records.map((r) => [r.tool, r.outcome, r.error]), [
        ['', 'refused', { code: 'INVALID_PARAMS', message: 'Invalid params: `name` must be a string' }],
      ]);
    });

    it('an unknown tool name with a backtick and a newline is escaped in the message (one line, quote intact)', async () => {
      const res = await session.callTool('a`b\nc', {});
      // The validation module's escaping: JSON string escapes, a backtick as \u0060 (see src/validation/path.ts).
      assert.deepEqual(res.message?.error, { code: -32602, message: 'Unknown tool: `a\\u0060b\\nc`' });
    });
  });
});
