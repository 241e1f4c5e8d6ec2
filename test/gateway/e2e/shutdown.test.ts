/**
 * SIGTERM / SIGINT against the built CLI: in-flight calls complete (none reset), no audit record is lost, the
 * process exits 0 — also with an SDK client holding its GET stream open.
 */
import * as assert from 'node:assert/strict';
import { readAuditLog } from '../../helpers/audit-log';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { gatewayConfig, supportDeskTools } from '../../helpers/config';
import { killAllGatewayProcesses, startGatewayProcess } from '../../helpers/gateway-process';
import { connectSdkClient, openSession, type SdkConnection } from '../../helpers/mcp';
import { eventually } from '../../helpers/eventually';
import { makeToken } from '../../helpers/tokens';

const BACKEND_DELAY_MS = 400;
const IN_FLIGHT = 60;

describe('gateway e2e: graceful shutdown', function () {
  this.timeout(30_000);
  const bot = makeToken('shutdown-bot');
  let backend: TestBackend;
  const connections: SdkConnection[] = [];

  before(async () => {
    backend = await startBackend({ delayMs: BACKEND_DELAY_MS });
  });

  after(async () => {
    await Promise.all(connections.map((c) => c.close()));
    await killAllGatewayProcesses();
    await backend?.close();
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} during load: every in-flight call completes, every one is audited, exit code 0`, async () => {
      const gw = await startGatewayProcess({
        config: gatewayConfig({ tokens: [bot], tools: supportDeskTools(backend.url) }),
      });
      const sdk = await connectSdkClient(gw.url, bot.token); // an open GET stream must not block the exit
      connections.push(sdk);
      const sessions = await Promise.all([
        openSession(gw.url, { token: bot.token }),
        openSession(gw.url, { token: bot.token }),
      ]);
      const backendBefore = backend.requests;

      const calls = Array.from({ length: IN_FLIGHT }, (_, i) =>
        sessions[i % 2]
          .callTool('get_customer', { customer_id: `C-${String(i).padStart(4, '0')}` }, { timeoutMs: 20_000 })
          .then(
            (res) => ({ res }),
            (error: unknown) => ({ error }),
          ),
      );
      // Every call has reached the backend, which holds it for BACKEND_DELAY_MS: all are in flight at the gateway.
      await eventually(() => backend.requests - backendBefore >= IN_FLIGHT, {
        timeoutMs: 10_000,
        what: `${IN_FLIGHT} calls at the backend`,
      });
      gw.signal(signal);
      const outcomes = await Promise.all(calls);
      const status = await gw.waitForExit(15_000);

      const errors = outcomes.filter((o) => 'error' in o).map((o) => String((o as { error: unknown }).error));
      assert.deepEqual(errors, [], 'in-flight calls were reset');
      const withResult = outcomes.filter(
        (o) => 'res' in o && o.res.message?.result?.structuredContent?.method === 'GET',
      ).length;
      assert.equal(withResult, IN_FLIGHT);
      assert.deepEqual(status, { code: 0, signal: null });
      const records = readAuditLog(gw.auditLogPath);
      assert.equal(
        records.filter((r) => r.tool === 'get_customer' && r.outcome === 'ok').length,
        withResult,
        'audit records lost',
      );
    });
  }
});
