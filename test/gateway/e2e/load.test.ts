/**
 * Load against the built CLI: 5,000 `tools/call` with 50 in flight, valid and invalid mixed. Every call is
 * answered, every call is audited exactly once, refusals are audited as `refused`, and no argument value (unique
 * canaries) reaches the audit log or the logs.
 */
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readAuditText, waitForAuditRecords } from '../../helpers/audit-log';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { gatewayConfig, supportDeskTools } from '../../helpers/config';
import { type GatewayProcess, killAllGatewayProcesses, startGatewayProcess } from '../../helpers/gateway-process';
import { type McpSession, openSession } from '../../helpers/mcp';
import { sleep } from '../../helpers/eventually';
import { runPool } from '../../helpers/pool';
import { makeToken } from '../../helpers/tokens';

const CALLS = 5_000;
const IN_FLIGHT = 50;
const SESSIONS = 5;

describe('gateway e2e: load', function () {
  this.timeout(180_000); // 5,000 calls on a shared 2-core machine: a hang guard, not a speed budget
  const bot = makeToken('load-bot');
  let backend: TestBackend;
  let gw: GatewayProcess;

  before(async () => {
    backend = await startBackend({ keepReceived: 10 });
    gw = await startGatewayProcess({ config: gatewayConfig({ tokens: [bot], tools: supportDeskTools(backend.url) }) });
  });

  after(async () => {
    await killAllGatewayProcesses();
    await backend?.close();
  });

  it(`answers and audits all ${CALLS} calls (every 3rd invalid) with ${IN_FLIGHT} in flight, without argument values`, async () => {
    const sessions: McpSession[] = [];
    for (let i = 0; i < SESSIONS; i++) sessions.push(await openSession(gw.url, { token: bot.token }));
    // Unique per call, so any leak is found by the run's prefix.
    const canaryPrefix = `cnry${randomBytes(6).toString('hex')}`;
    const isInvalid = (i: number) => i % 3 === 2;
    const backendBefore = backend.requests;

    const results = await runPool(CALLS, IN_FLIGHT, (i) => {
      const canary = `${canaryPrefix}-${i}`;
      const args = isInvalid(i)
        ? { customer_id: 'C-0001', query: canary, limit: 0 }
        : { customer_id: `C-${String(i % 10_000).padStart(4, '0')}`, query: canary };
      return sessions[i % SESSIONS].callTool('get_customer', args, { timeoutMs: 30_000 });
    });

    let ok = 0;
    let refused = 0;
    const failures: string[] = [];
    for (const [i, r] of results.entries()) {
      if (!('value' in r)) {
        failures.push(`#${i}: ${String(r.error)}`);
        continue;
      }
      const res = r.value;
      if (isInvalid(i)) {
        if (
          res.message?.error?.code === -32602 &&
          res.message.error.message === 'Invalid value for `limit`: expected >= 1'
        )
          refused++;
        else failures.push(`#${i} (invalid): HTTP ${res.status} ${res.text.slice(0, 200)}`);
      } else if (
        res.message?.result?.structuredContent?.path === `/customers/C-${String(i % 10_000).padStart(4, '0')}`
      ) {
        ok++;
      } else {
        failures.push(`#${i} (valid): HTTP ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
    assert.deepEqual(failures.slice(0, 5), [], `${failures.length} calls failed`);
    const invalidCount = Array.from({ length: CALLS }, (_, i) => i).filter(isInvalid).length;
    assert.equal(refused, invalidCount);
    assert.equal(ok, CALLS - invalidCount);
    assert.equal(backend.requests - backendBefore, CALLS - invalidCount, 'a refused call reached the backend');

    await waitForAuditRecords(gw.auditLogPath, CALLS, { timeoutMs: 15_000 });
    await sleep(200); // a late extra record would show up here
    const settled = await waitForAuditRecords(gw.auditLogPath, CALLS);
    assert.equal(settled.length, CALLS, 'audit lines != calls');
    assert.equal(settled.filter((r) => r.outcome === 'refused').length, invalidCount);
    assert.equal(settled.filter((r) => r.outcome === 'ok').length, CALLS - invalidCount);
    assert.equal(new Set(settled.map((r) => r.session)).size, SESSIONS);
    assert.ok(!readAuditText(gw.auditLogPath).includes(canaryPrefix), 'an argument value reached the audit log');
    assert.ok(
      !gw.stdout().includes(canaryPrefix) && !gw.stderr().includes(canaryPrefix),
      'an argument value reached the logs',
    );
  });
});
