/**
 * SPEC §4 "Service call": the answer of a service becomes the tool result; a refused connection, a non-2xx, a
 * timeout, an oversized response and a body that is not the JSON it claims each become `isError: true` with a
 * short reason — never a crash, never a hang — and the gateway keeps serving.
 */
import * as assert from 'node:assert/strict';
import type { RunningGateway } from '../../../src/gateway';
import { readAuditLog, waitForAuditRecords } from '../../helpers/audit-log';
import { downBackendUrl, startBackend, startFakeService, type FakeService, type TestBackend } from '../../helpers/backend';
import { botConfig, gatewayConfig, supportDeskTools, tool } from '../../helpers/config';
import { type InProcessGateway, startInProcessGateway, startSilentGateway } from '../../helpers/in-process-gateway';
import { initializeSession, type McpSession, openSession, rawCall } from '../../helpers/mcp';
import { makeToken } from '../../helpers/tokens';

describe('the service answer over /mcp: results, faults and response caps', () => {
  let service: FakeService;
  let gateway: RunningGateway;
  let session: string;
  const OPEN = { type: 'object' };

  before(async () => {
    service = await startFakeService();
    const down = await downBackendUrl();
    const o = service.url;
    gateway = await startSilentGateway(botConfig([
      tool('get_customer', `${o}/customers/{customer_id}`, { inputSchema: OPEN }),
      tool('slow', `${o}/slow`, { inputSchema: OPEN, timeoutMs: 100 }),
      tool('down', `${down}/down`, { inputSchema: OPEN }),
    ], { max_response_bytes: 1024 }));
    session = await initializeSession(gateway.url);
  });
  after(async () => {
    await gateway.close();
    await service.close();
  });
  beforeEach(() => {
    service.respond = (req) => ({ body: JSON.stringify({ ok: true, url: req.url }) });
  });

  const call = (name: string, args?: unknown): Promise<any> => rawCall(gateway.url, session, name, args);

  it('turns a 2xx JSON object into structuredContent plus a text content', async () => {
    service.respond = () => ({ body: '{"id":"C-1"}' });
    assert.deepEqual((await call('get_customer', { customer_id: 'C-1' })).result, {
      content: [{ type: 'text', text: '{"id":"C-1"}' }],
      structuredContent: { id: 'C-1' },
    });
  });

  it('turns a 2xx JSON array into a text content only', async () => {
    service.respond = () => ({ body: '[1,2]' });
    assert.deepEqual((await call('get_customer', { customer_id: 'C-1' })).result, { content: [{ type: 'text', text: '[1,2]' }] });
  });

  it('turns a 2xx plain text response into a text content', async () => {
    service.respond = () => ({ type: 'text/plain', body: 'pong' });
    assert.deepEqual((await call('get_customer', { customer_id: 'C-1' })).result, { content: [{ type: 'text', text: 'pong' }] });
  });

  it('reports a response declared JSON that does not parse', async () => {
    service.respond = () => ({ body: '{oops' });
    assert.deepEqual((await call('get_customer', { customer_id: 'C-1' })).result, {
      isError: true,
      content: [{ type: 'text', text: 'Service error: invalid JSON response' }],
    });
  });

  it('reports a non-2xx status', async () => {
    service.respond = () => ({ status: 500, body: '{"secret":"stack trace"}' });
    assert.deepEqual((await call('get_customer', { customer_id: 'C-1' })).result, {
      isError: true,
      content: [{ type: 'text', text: 'Service error: HTTP 500' }],
    });
  });

  it('reports a timeout after the tool\'s timeout_ms', async () => {
    service.respond = () => ({ delayMs: 1000, body: '{}' });
    assert.deepEqual((await call('slow', {})).result, {
      isError: true,
      content: [{ type: 'text', text: 'Service timed out after 100 ms' }],
    });
  });

  it('reports a refused connection', async () => {
    assert.deepEqual((await call('down', {})).result, {
      isError: true,
      content: [{ type: 'text', text: 'Service unavailable: connection refused' }],
    });
  });

  it('reads the Content-Type whatever its case and parameters', async () => {
    service.respond = () => ({ type: 'Application/JSON; charset=utf-8', body: '{"id":"C-1"}' });
    assert.deepEqual((await call('get_customer', { customer_id: 'C-1' })).result.structuredContent, { id: 'C-1' });
  });

  it('keeps serving calls after non-2xx responses, small or large', async () => {
    service.respond = () => ({ status: 404, body: '{"error":"no such customer"}' });
    assert.equal((await call('get_customer', { customer_id: 'C-1' })).result.content[0].text, 'Service error: HTTP 404');
    service.respond = () => ({ status: 500, body: 'x'.repeat(300_000) });
    assert.equal((await call('get_customer', { customer_id: 'C-1' })).result.content[0].text, 'Service error: HTTP 500');
    service.respond = () => ({ body: '{"id":"C-2"}' });
    assert.deepEqual((await call('get_customer', { customer_id: 'C-2' })).result.structuredContent, { id: 'C-2' });
  });

  it('reports a response whose Content-Length is over max_response_bytes', async () => {
    const body = JSON.stringify({ data: 'x'.repeat(2000) });
    service.respond = () => ({ body, headers: { 'content-length': String(Buffer.byteLength(body)) } });
    assert.deepEqual((await call('get_customer', { customer_id: 'C-1' })).result, {
      isError: true,
      content: [{ type: 'text', text: 'Service response too large' }],
    });
    service.respond = () => ({ body: '{"id":"C-3"}' });
    assert.deepEqual((await call('get_customer', { customer_id: 'C-3' })).result.structuredContent, { id: 'C-3' });
  });

  it('reports a streamed response over max_response_bytes', async () => {
    service.respond = () => ({ body: JSON.stringify({ data: 'x'.repeat(2000) }) });
    assert.deepEqual((await call('get_customer', { customer_id: 'C-1' })).result, {
      isError: true,
      content: [{ type: 'text', text: 'Service response too large' }],
    });
  });

});

const SLOW_BACKEND_MS = 5_000;
const SERVICE_TIMEOUT_MS = 300;

describe('service faults over /mcp: each an isError result with a short reason, never a crash or a hang', function () {
  this.timeout(20_000);
  const bot = makeToken('support-bot');
  let backend: TestBackend;
  let gw: InProcessGateway;
  let session: McpSession;

  before(async () => {
    backend = await startBackend();
    const down = await downBackendUrl();
    gw = await startInProcessGateway(gatewayConfig({
      tokens: [bot],
      tools: [
        ...supportDeskTools(backend.url),
        tool('down', `${down}/anything`),
        tool('fail', `${backend.url}/status/500`),
        tool('not_found', `${backend.url}/status/404`),
        tool('slow', `${backend.url}/slow/${SLOW_BACKEND_MS}`, { timeoutMs: SERVICE_TIMEOUT_MS }),
        tool('huge', `${backend.url}/huge`),
        tool('bad_json', `${backend.url}/bad-json`),
        tool('text', `${backend.url}/text`),
      ],
    }));
    session = await openSession(gw.url, { token: bot.token });
  });

  after(async () => {
    await gw?.close();
    await backend?.close();
  });

  /** Calls `name`, asserts an isError result whose one text content is a short reason matching `reason`. */
  async function assertFaultResult(name: string, reason: RegExp): Promise<string> {
    const res = await session.callTool(name, {});
    assert.equal(res.status, 200);
    assert.equal(res.message?.error, undefined, `expected a result, got ${res.text}`);
    const result = res.message?.result;
    assert.equal(result?.isError, true, res.text);
    assert.equal(result.content.length, 1);
    assert.equal(result.content[0].type, 'text');
    const text: string = result.content[0].text;
    assert.match(text, reason);
    assert.ok(text.length > 0 && text.length <= 200, `reason is not short: ${text}`);
    assert.ok(!/\n\s+at /.test(text), `reason carries a stack trace: ${text}`);
    return text;
  }

  /** A valid call right after a fault succeeds. */
  async function assertStillServing(): Promise<void> {
    const res = await session.callTool('get_customer', { customer_id: 'C-0001' });
    assert.equal(res.message?.result?.structuredContent?.path, '/customers/C-0001', res.text);
  }

  it('answers isError with a short reason when the backend refuses the connection, and keeps serving', async () => {
    await assertFaultResult('down', /./);
    await assertStillServing();
  });

  it('answers isError naming the status when the backend answers 500, and keeps serving', async () => {
    await assertFaultResult('fail', /500/);
    await assertStillServing();
  });

  it('answers isError naming the status when the backend answers 404', async () => {
    await assertFaultResult('not_found', /404/);
  });

  it('answers isError when the backend is slower than the tool timeout, without waiting for it', async () => {
    const started = Date.now();
    await assertFaultResult('slow', /time/i);
    // Functional bound (not a speed claim): the answer came from the timeout, long before the backend's reply.
    assert.ok(Date.now() - started < SLOW_BACKEND_MS - 1_000, `answered after ${Date.now() - started} ms`);
    await assertStillServing();
  });

  it('answers isError when the response is over the response size cap, and keeps serving', async () => {
    await assertFaultResult('huge', /large|size|limit|exceed/i);
    await assertStillServing();
  });

  it('answers isError when a body declared JSON does not parse, and keeps serving', async () => {
    await assertFaultResult('bad_json', /./);
    await assertStillServing();
  });

  it('answers a 2xx text/plain body as a result (not a JSON-RPC error), and keeps serving', async () => {
    const res = await session.callTool('text', {});
    assert.equal(res.message?.error, undefined, res.text);
    assert.equal(res.message?.result?.content?.[0]?.type, 'text', res.text);
    await assertStillServing();
  });

  it('survives every fault at once, concurrently, and keeps serving', async () => {
    const names = ['down', 'fail', 'slow', 'huge', 'bad_json', 'text', 'down', 'fail'];
    const results = await Promise.all(names.map((n) => session.callTool(n, {})));
    for (const [i, res] of results.entries()) {
      assert.equal(res.status, 200, `${names[i]}: ${res.text}`);
      assert.ok(res.message?.result, `${names[i]}: ${res.text}`);
    }
    await assertStillServing();
  });

  it('audits a backend fault with outcome "error"', async () => {
    const before = readAuditLog(gw.auditLogPath).length;
    await session.callTool('fail', {});
    const records = await waitForAuditRecords(gw.auditLogPath, before + 1);
    const fault = records.find((r) => r.tool === 'fail' && r.outcome === 'error');
    assert.ok(fault, JSON.stringify(records.slice(-5)));
    assert.equal(typeof fault.error?.message, 'string');
  });

  describe('max_concurrent_calls', () => {
    it('refuses calls over the limit with a clear error, answers every call, and serves again afterwards', async () => {
      const limited = await startInProcessGateway(gatewayConfig({
        tokens: [bot],
        tools: [...supportDeskTools(backend.url), tool('slow', `${backend.url}/slow/600`)],
        settings: { max_concurrent_calls: 2 },
      }));
      try {
        const s = await openSession(limited.url, { token: bot.token });
        const backendBefore = backend.requests;
        const results = await Promise.all(Array.from({ length: 6 }, () => s.callTool('slow', {})));
        const succeeded = results.filter((r) => r.message?.result?.structuredContent?.path === '/slow/600');
        const refused = results.filter((r) => r.message?.result?.structuredContent?.path !== '/slow/600');
        assert.equal(succeeded.length, 2, results.map((r) => r.text.slice(0, 200)).join('\n'));
        assert.equal(backend.requests - backendBefore, 2, 'a call over the limit reached the backend');
        for (const r of refused) {
          const reason = r.message?.error?.message ?? r.message?.result?.content?.[0]?.text ?? '';
          assert.match(reason, /concurren|busy|limit|capacity|too many/i, `HTTP ${r.status} ${r.text.slice(0, 200)}`);
        }
        const after = await s.callTool('get_customer', { customer_id: 'C-0003' });
        assert.equal(after.message?.result?.structuredContent?.path, '/customers/C-0003', after.text);
      } finally {
        await limited.close();
      }
    });
  });
});
