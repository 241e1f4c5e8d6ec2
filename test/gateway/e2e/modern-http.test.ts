/**
 * The 2026-07-28 era over raw HTTP (docs/gateway.md, issue 12): each modern refusal with its status, code and message,
 * the results (`resultType`, server info in `_meta`, cache hints), `subscriptions/listen`, the era rule (a session
 * id keeps the 2025 rules), and the order of checks: Origin/Host → token → body → JSON → shape → `_meta`/headers →
 * method → tool → validation. A request refused at one step never reaches the next (no backend call, no audit).
 */
import assert from 'node:assert/strict';
import { readAuditText, waitForAuditRecords } from '../../helpers/audit-log';
import { startFakeService, type FakeService } from '../../helpers/backend';
import { botConfig, supportDeskTools } from '../../helpers/config';
import { within } from '../../helpers/eventually';
import type { OpenStream } from '../../helpers/http';
import { startInProcessGateway, type InProcessGateway } from '../../helpers/in-process-gateway';
import { initializeSession, postMcp } from '../../helpers/mcp';
import { modernMeta, modernRequest, openListen, postModern, sseMessages } from '../../helpers/modern';
import { BOT } from '../../helpers/tokens';

const SERVER_INFO = { name: 'cdktf-mcp-gateway', title: 'test', version: require('../../../package.json').version };
const SUPPORTED = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'];

describe('the 2026-07-28 era over raw HTTP', function () {
  this.timeout(20_000);
  let service: FakeService;
  let gw: InProcessGateway;
  const streams: OpenStream[] = [];
  const post = (body: Parameters<typeof postModern>[1], headers: Record<string, string | null> = {}) =>
    postModern(gw.url, body, BOT.token, headers);
  // A reload that changes the config (an unchanged one notifies nobody): the body limit, which no test here nears.
  let reloads = 0;
  const reloadChanged = () =>
    gw.gateway.reload(
      botConfig(supportDeskTools(service.url), { validation_errors: 'auto', max_body_bytes: 1_048_576 + ++reloads }),
    );
  const error = (code: number, message: string, id: unknown, data?: unknown) => ({
    jsonrpc: '2.0',
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  });

  before(async () => {
    service = await startFakeService();
    gw = await startInProcessGateway(botConfig(supportDeskTools(service.url), { validation_errors: 'auto' }));
  });
  after(async () => {
    for (const s of streams) s.destroy();
    await gw.close();
    await service.close();
  });

  describe('results', () => {
    it('answers server/discover with versions, capabilities, cache hints, resultType and serverInfo in _meta', async () => {
      const res = await post(modernRequest('server/discover', {}, 'd1'));
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('mcp-session-id'), null);
      assert.deepEqual(JSON.parse(res.text), {
        jsonrpc: '2.0',
        id: 'd1',
        result: {
          supportedVersions: SUPPORTED,
          capabilities: { tools: { listChanged: true } },
          ttlMs: 0,
          cacheScope: 'private',
          resultType: 'complete',
          _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
        },
      });
    });

    it('answers tools/list in declaration order with ttlMs, cacheScope and resultType', async () => {
      const res = await post(modernRequest('tools/list'));
      const { result } = res.message!;
      assert.deepEqual(
        result.tools.map((t: { name: string }) => t.name),
        ['get_customer', 'create_ticket', 'create_task', 'health'],
      );
      assert.equal(result.ttlMs, 0);
      assert.equal(result.cacheScope, 'private');
      assert.equal(result.resultType, 'complete');
      assert.deepEqual(result._meta, { 'io.modelcontextprotocol/serverInfo': SERVER_INFO });
    });

    it('answers tools/call with the service result plus resultType and serverInfo, audited with session null', async () => {
      const res = await post(
        modernRequest('tools/call', {
          name: 'get_customer',
          arguments: { customer_id: 'C-0042' },
          _meta: modernMeta({ name: 'raw\u2028modern', version: 'v'.repeat(300) }),
        }),
      );
      const { result } = res.message!;
      assert.equal(result.resultType, 'complete');
      assert.deepEqual(result._meta, { 'io.modelcontextprotocol/serverInfo': SERVER_INFO });
      assert.equal(result.structuredContent.url, '/customers/C-0042');
      const [audit] = await waitForAuditRecords(gw.auditLogPath, 1, {
        where: (r) => r.client?.version === 'v'.repeat(128),
      });
      assert.equal(audit.session, null);
      assert.equal(audit.principal, 'bot');
      assert.deepEqual(audit.client, { name: 'raw\u2028modern', version: 'v'.repeat(128) });
    });

    it('answers tools/call without clientInfo (it is optional)', async () => {
      const res = await post(modernRequest('tools/call', { name: 'health', _meta: modernMeta(null) }));
      assert.equal(res.message?.result?.resultType, 'complete');
    });

    it('refuses invalid arguments as a tool result (validation_errors auto → tool_result for modern callers)', async () => {
      const res = await post(modernRequest('tools/call', { name: 'get_customer', arguments: { customer_id: 'nope' } }));
      assert.equal(res.status, 200);
      const { result } = res.message!;
      assert.equal(result.isError, true);
      assert.equal(result.content[0].text, 'Invalid value for `customer_id`: expected to match pattern ^C-[0-9]{4}$');
      assert.equal(result.resultType, 'complete');
    });

    it('answers an unknown tool with JSON-RPC -32602 at HTTP 200 (as in 2025)', async () => {
      const res = await post(modernRequest('tools/call', { name: 'nope', arguments: {} }, 5));
      assert.equal(res.status, 200);
      assert.deepEqual(JSON.parse(res.text), error(-32602, 'Unknown tool: `nope`', 5));
    });

    it('accepts a notification (no id) with 202 and no body', async () => {
      const res = await post({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { _meta: modernMeta(), requestId: 1 },
      } as never);
      assert.equal(res.status, 202);
      assert.equal(res.text, '');
    });
  });

  describe('refusals of the revision (HTTP status, JSON-RPC code, message, id echoed)', () => {
    const cases: readonly [string, () => Promise<{ status: number; text: string }>, number, object][] = [
      [
        'a missing MCP-Protocol-Version header',
        () => post(modernRequest('tools/list', {}, 1), { 'mcp-protocol-version': null }),
        400,
        error(-32020, 'Header mismatch: MCP-Protocol-Version header is missing or malformed', 1),
      ],
      [
        'a missing _meta',
        () => post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} } as never),
        400,
        error(
          -32602,
          'Invalid params: _meta is required (io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientCapabilities)',
          2,
        ),
      ],
      [
        '_meta without clientCapabilities',
        () =>
          post(modernRequest('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }, 3)),
        400,
        error(-32602, 'Invalid params: _meta io.modelcontextprotocol/clientCapabilities must be an object', 3),
      ],
      [
        'a header that differs from _meta',
        () => post(modernRequest('tools/list', { _meta: modernMeta(null, 'v999.0.0') }, 4)),
        400,
        error(-32020, 'Header mismatch: MCP-Protocol-Version header does not match _meta protocol version', 4),
      ],
      [
        'an unsupported version',
        () =>
          post(modernRequest('tools/list', { _meta: modernMeta(null, 'v999.0.0') }, 'u'), {
            'mcp-protocol-version': 'v999.0.0',
          }),
        400,
        error(-32022, 'Unsupported protocol version', 'u', { supported: SUPPORTED, requested: 'v999.0.0' }),
      ],
      [
        'a missing Mcp-Method',
        () => post(modernRequest('tools/list', {}, 6), { 'mcp-method': null }),
        400,
        error(-32020, 'Header mismatch: Mcp-Method header is missing or malformed', 6),
      ],
      [
        'a mismatched Mcp-Method',
        () => post(modernRequest('tools/list', {}, 7), { 'mcp-method': 'TOOLS/LIST' }),
        400,
        error(-32020, 'Header mismatch: Mcp-Method header does not match the body method', 7),
      ],
      [
        'a missing Mcp-Name',
        () => post(modernRequest('tools/call', { name: 'health' }, 8), { 'mcp-name': null }),
        400,
        error(-32020, 'Header mismatch: Mcp-Name header is missing or malformed', 8),
      ],
      [
        'a mismatched Mcp-Name',
        () => post(modernRequest('tools/call', { name: 'health' }, 9), { 'mcp-name': 'get_customer' }),
        400,
        error(-32020, 'Header mismatch: Mcp-Name header does not match the body params.name', 9),
      ],
      ['ping (removed)', () => post(modernRequest('ping', {}, 10)), 404, error(-32601, 'Method not found: ping', 10)],
      [
        'logging/setLevel (removed)',
        () => post(modernRequest('logging/setLevel', { level: 'info' }, 11)),
        404,
        error(-32601, 'Method not found: logging/setLevel', 11),
      ],
      [
        'initialize with modern _meta',
        () => post(modernRequest('initialize', { protocolVersion: '2025-11-25' }, 12)),
        404,
        error(-32601, 'Method not found: initialize', 12),
      ],
      [
        'an unknown method',
        () => post(modernRequest('x'.repeat(100), {}, 13)),
        404,
        error(-32601, `Method not found: ${'x'.repeat(64)}…`, 13),
      ],
      [
        'listen without notifications',
        () => post(modernRequest('subscriptions/listen', {}, 14)),
        400,
        error(-32602, 'Invalid params: notifications must be an object', 14),
      ],
    ];
    for (const [what, send, status, body] of cases) {
      it(`refuses ${what}: HTTP ${status}`, async () => {
        const before = service.received.length;
        const res = await send();
        assert.equal(res.status, status, res.text);
        assert.deepEqual(JSON.parse(res.text), body);
        assert.equal(service.received.length, before, 'no service call');
      });
    }

    it('accepts an Mcp-Name sent as =?base64?…?= and surrounded by whitespace', async () => {
      const body = modernRequest('tools/call', { name: 'health' });
      assert.equal(
        (await post(body, { 'mcp-name': `=?base64?${Buffer.from('health').toString('base64')}?=` })).message?.result
          ?.resultType,
        'complete',
      );
      assert.equal(
        (await post({ ...body, id: 99 }, { 'mcp-name': '  health  ' })).message?.result?.resultType,
        'complete',
      );
    });
  });

  describe('which era a request belongs to', () => {
    it('keeps the 2025 rules for a request with Mcp-Session-Id, even with modern _meta and header', async () => {
      const bogus = await post(modernRequest('tools/list', {}, 1), { 'mcp-session-id': 'not-a-session' });
      assert.equal(bogus.status, 404);
      assert.equal(bogus.message?.error?.message, 'Session not found');
      const session = await initializeSession(gw.url, '2025-06-18');
      const res = await post(modernRequest('tools/list', {}, 2), {
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-06-18',
      });
      assert.equal(res.status, 200);
      assert.equal(res.message?.result?.resultType, undefined, '2025 results have no resultType');
    });

    it('keeps the 2025 rules for a request without _meta and without a modern header', async () => {
      const res = await postMcp(gw.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { token: BOT.token });
      assert.equal(res.status, 400);
      assert.equal(res.message?.error?.message, 'Bad Request: Mcp-Session-Id header is required');
    });
  });

  describe('order of checks', () => {
    const broken = () =>
      post(
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'get_customer', arguments: { customer_id: 'nope' } },
        } as never,
        { 'mcp-method': 'ping' },
      );

    it('Origin before everything: a foreign Origin gets 403 even with a valid modern call', async () => {
      const auditBefore = await settledAuditText(gw.auditLogPath);
      const res = await post(
        modernRequest('tools/call', { name: 'get_customer', arguments: { customer_id: 'nope' } }),
        { origin: 'http://evil.example.com' },
      );
      assert.equal(res.status, 403);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(readAuditText(gw.auditLogPath), auditBefore, 'never reached validation or audit');
    });

    it('the token next: no token → 401 with WWW-Authenticate, whatever the _meta or headers say', async () => {
      const auditBefore = await settledAuditText(gw.auditLogPath);
      const res = await postModern(
        gw.url,
        modernRequest('tools/call', { name: 'get_customer', arguments: { customer_id: 'nope' } }),
        undefined,
        { 'mcp-method': 'ping' },
      );
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('www-authenticate'), 'Bearer');
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(readAuditText(gw.auditLogPath), auditBefore);
    });

    it('then the body: invalid JSON → -32700 before any header check', async () => {
      const res = await postMcp(gw.url, '{"jsonrpc":', {
        token: BOT.token,
        headers: { 'mcp-protocol-version': 'v999', 'mcp-method': 'x' },
      });
      assert.equal(res.status, 400);
      assert.equal(res.message?.error?.code, -32700);
    });

    it('then the JSON-RPC shape: -32600 before the _meta check', async () => {
      const res = await post({ jsonrpc: '1.0', id: 3, method: 'tools/list', params: {} } as never);
      assert.equal(res.status, 400);
      assert.equal(res.message?.error?.code, -32600);
    });

    it('then _meta and the headers: -32602 before the method mismatch and before validation', async () => {
      const res = await broken();
      assert.equal(res.status, 400);
      assert.equal(res.message?.error?.code, -32602);
    });

    it('then the method (404) before the tool lookup', async () => {
      const res = await post(modernRequest('tools/call2', { name: 'nope' }, 4));
      assert.equal(res.status, 404);
    });
  });

  describe('subscriptions/listen', () => {
    it('acknowledges first (tagged with the request id), then sends tagged list_changed on reload', async () => {
      const s = await openListen(gw.url, BOT.token, 'sub-1', { toolsListChanged: true, promptsListChanged: true });
      streams.push(s);
      assert.equal(s.status, 200);
      assert.equal(s.contentType, 'text/event-stream');
      await s.waitFor(/acknowledged/);
      await reloadChanged();
      await s.waitFor(/list_changed/);
      assert.deepEqual(sseMessages(s.text()), [
        {
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: {
            _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' },
            notifications: { toolsListChanged: true },
          },
        },
        {
          jsonrpc: '2.0',
          method: 'notifications/tools/list_changed',
          params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' } },
        },
      ]);
    });

    it('honours the filter: without toolsListChanged, the ack is empty and no list_changed is sent', async () => {
      const s = await openListen(gw.url, BOT.token, 77, { promptsListChanged: true });
      streams.push(s);
      await s.waitFor(/acknowledged/);
      await reloadChanged();
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(sseMessages(s.text()), [
        {
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 77 }, notifications: {} },
        },
      ]);
    });

    it('ends listen streams on shutdown with the closing response', async () => {
      const own = await startInProcessGateway(botConfig(supportDeskTools(service.url)));
      const s = await openListen(own.url, BOT.token, 'bye');
      streams.push(s);
      await s.waitFor(/acknowledged/);
      await own.close();
      await within(s.ended, 5_000, 'the listen stream ended');
      const last = sseMessages(s.text()).at(-1);
      assert.deepEqual(last, {
        jsonrpc: '2.0',
        id: 'bye',
        result: {
          _meta: { 'io.modelcontextprotocol/subscriptionId': 'bye', 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
          resultType: 'complete',
        },
      });
    });
  });
});

/** The audit file once earlier tests' records are written (it is flushed off the hot path): unchanged over 100 ms. */
async function settledAuditText(file: string): Promise<string> {
  let text = readAuditText(file);
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const next = readAuditText(file);
    if (next === text) return text;
    text = next;
  }
  return text;
}
