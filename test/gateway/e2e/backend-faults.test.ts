/**
 * SPEC §4 "Service call": a refused connection, a non-2xx, a timeout, an oversized response and a body that is
 * not the JSON it claims each become `isError: true` with a short reason — never a crash, never a hang — and the
 * gateway keeps serving.
 */
import * as assert from 'node:assert/strict';
import { readAuditLog, waitForAuditRecords } from '../../helpers/audit-log';
import { downBackendUrl, startBackend, type TestBackend } from '../../helpers/backend';
import { gatewayConfig, supportDeskTools, tool } from '../../helpers/config';
import { type InProcessGateway, startInProcessGateway } from '../../helpers/in-process-gateway';
import { type McpSession, openSession } from '../../helpers/mcp';
import { makeToken } from '../../helpers/tokens';

const SLOW_BACKEND_MS = 5_000;
const SERVICE_TIMEOUT_MS = 300;

describe('gateway e2e: backend faults', function () {
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
