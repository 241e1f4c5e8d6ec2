/**
 * Regression tests from a SPEC and security review of the running gateway: each pins behaviour the first
 * runtime got wrong (path traversal through placeholders, empty path segments, lone surrogates, unbounded
 * names in the audit log, placeholders in the host, loopback binds other than 127.0.0.1, a hanging audit path).
 */
import * as assert from 'node:assert/strict';
import { readAuditLog } from '../../helpers/audit-log';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { gatewayConfig, objectSchema, tool } from '../../helpers/config';
import { type InProcessGateway, startInProcessGateway } from '../../helpers/in-process-gateway';
import { type McpHttpResponse, type McpSession, openSession } from '../../helpers/mcp';
import { makeToken } from '../../helpers/tokens';
import { parseGatewayConfig, silentLogger, startGateway } from '../../../src/gateway';

/** Whether a `tools/call` was answered as a failure: a JSON-RPC error or an `isError` result. */
function answeredAsFailure(res: McpHttpResponse): boolean {
  return res.message?.error !== undefined || res.message?.result?.isError === true;
}

/**
 * Waits (bounded) for `count` audit records of one session. Records land after the answer (the log is written off
 * the hot path), so a test selects its own by session instead of counting lines written before it.
 */
async function auditRecordsOf(file: string, session: string, count: number, timeoutMs = 2_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mine = readAuditLog(file).filter((r) => r.session === session);
    if (mine.length >= count || Date.now() > deadline) return mine;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Paths the backend received after `from` requests. */
function pathsSince(backend: TestBackend, from: number): string[] {
  return backend.received.slice(from).map((r) => r.url.split('?')[0]);
}

describe('SPEC review: behaviour the first runtime got wrong', function () {
  this.timeout(20_000);
  const bot = makeToken('review-bot');
  let backend: TestBackend;
  let gw: InProcessGateway;
  let offGw: InProcessGateway;
  let session: McpSession;
  let offSession: McpSession;

  const tools = (url: string) => [
    // `id` is an optional placeholder field: SPEC §2 lets any forwarded field be a placeholder, required or not.
    tool('customer_orders', `${url}/customers/{id}/orders`, {
      inputSchema: objectSchema({ id: { type: 'string', maxLength: 64 }, q: { type: 'string' } }),
    }),
    tool('get_customer', `${url}/customers/{customer_id}`, {
      inputSchema: objectSchema({ customer_id: { type: 'string' } }, ['customer_id']),
    }),
  ];

  before(async () => {
    backend = await startBackend();
    gw = await startInProcessGateway(gatewayConfig({ tokens: [bot], tools: tools(backend.url) }));
    offGw = await startInProcessGateway(
      gatewayConfig({ name: 'legacy', tokens: [bot], tools: tools(backend.url), settings: { validate_input: false } }),
    );
    session = await openSession(gw.url, { token: bot.token });
    offSession = await openSession(offGw.url, { token: bot.token });
  });

  after(async () => {
    await gw?.close();
    await offGw?.close();
    await backend?.close();
  });

  describe('service call: URL placeholders (SPEC §4 "filled URL-encoded")', () => {
    for (const value of ['..', '.']) {
      it(`a placeholder value ${JSON.stringify(value)} never moves the service call outside the declared path`, async () => {
        const before = backend.received.length;
        const res = await session.callTool('customer_orders', { id: value });
        assert.equal(res.status, 200, res.text);
        // Encoding cannot help here: WHATWG URL parsing (undici) removes `.`/`..` segments, also as `%2e`.
        // Either the gateway refuses the value, or the backend sees it inside /customers/…/orders.
        for (const path of pathsSince(backend, before)) {
          assert.match(path, /^\/customers\/[^/]+\/orders$/, `the call reached ${path}`);
        }
        if (pathsSince(backend, before).length === 0) assert.ok(answeredAsFailure(res), res.text);
      });
    }

    it('a call without a placeholder\'s field is refused, not sent with an empty path segment (validate_input on)', async () => {
      const before = backend.received.length;
      const res = await session.callTool('customer_orders', {});
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(pathsSince(backend, before), [], 'the backend was called with an empty path segment');
      assert.ok(answeredAsFailure(res), res.text);
    });

    it('a call without a placeholder\'s field is refused, not sent to the collection URL (validate_input off)', async () => {
      const before = backend.received.length;
      const res = await offSession.callTool('get_customer', {});
      assert.equal(res.status, 200, res.text);
      // `/customers/` is a different endpoint (typically "list all") than the one the tool declares.
      assert.deepEqual(pathsSince(backend, before), [], 'the backend was called without the placeholder');
      assert.ok(answeredAsFailure(res), res.text);
    });
  });

  describe('service call: values that encodeURIComponent cannot encode', () => {
    const loneSurrogate = '\ud800';
    const cases: Array<[string, Record<string, unknown>]> = [
      ['the query of a GET', { id: 'C-1', q: `x${loneSurrogate}` }],
      ['a URL placeholder', { id: `\udc00` }],
    ];
    for (const [where, args] of cases) {
      it(`a lone surrogate in ${where} is answered with the request's id (not HTTP 500 "Internal error") and audited`, async () => {
        const own = await openSession(gw.url, { token: bot.token });
        const res = await own.callTool('customer_orders', args);
        // SPEC §4: a service call fault is "never a crash"; every tools/call has one audit line.
        assert.equal(res.status, 200, res.text);
        assert.equal(typeof res.message?.id, 'number', res.text);
        assert.ok(res.message?.result !== undefined || res.message?.error !== undefined, res.text);
        const records = await auditRecordsOf(gw.auditLogPath, own.sessionId, 1);
        assert.deepEqual(records.map((r) => r.tool), ['customer_orders']);
      });
    }
  });

  describe('audit log', () => {
    it('an unknown tool name is cut at 64 characters in the audit record, as in the message', async () => {
      const own = await openSession(gw.url, { token: bot.token });
      const name = 'n'.repeat(100_000);
      const res = await own.callTool(name, {});
      assert.equal(res.message?.error?.message, `Unknown tool: \`${'n'.repeat(64)}…\``);
      const records = await auditRecordsOf(gw.auditLogPath, own.sessionId, 1);
      assert.equal(records.length, 1);
      const tool = records[0].tool!;
      // A caller can otherwise write 1 MiB lines into the audit log and stdout pipelines with one request.
      assert.ok([...tool].length <= 65, `audit tool field is ${tool.length} characters long`);
    });
  });

  describe('config: where placeholders may stand', () => {
    for (const url of ['http://{host}/customers', 'http://{host}:8080/customers']) {
      it(`refuses a backend URL with a placeholder before the path (${url}), which lets a caller pick the host`, () => {
        // A caller-chosen authority is a server-side request forgery: 169.254.169.254, 127.0.0.1:2375, ….
        assert.throws(
          () => parseGatewayConfig(gatewayConfig({ tokens: [bot], tools: [tool('t', url)] })),
          (err: Error) => err.name === 'ConfigError' && /^tools\[0\]\.backend\.url: /.test(err.message),
        );
      });
    }
  });

  describe('Origin/Host defaults', () => {
    it('a gateway bound to a loopback address other than 127.0.0.1 accepts its own URL (Host 127.0.0.2:PORT)', async () => {
      const local = await startGateway({
        config: gatewayConfig({ tokens: [bot], tools: tools(backend.url), settings: { audit_log: false } }),
        port: 0,
        host: '127.0.0.2',
        logger: silentLogger,
      });
      try {
        assert.match(local.url, /^http:\/\/127\.0\.0\.2:\d+\/mcp$/);
        // isLoopback('127.0.0.2') turns the localhost-only Host check on, but its allowlist lacks the bound address.
        const opened = await openSession(local.url, { token: bot.token });
        const res = await opened.request('ping');
        assert.equal(res.status, 200, res.text);
      } finally {
        await local.close();
      }
    });
  });
});

