/**
 * Attack suite (issue 20): a DNS-rebinding page. The attacker's name resolves to 127.0.0.1, so the browser
 * sends `Host: attacker.example:PORT` (and its own `Origin`) to a dashboard on loopback that needs no token, or
 * to a gateway's separate metrics port. Both answer only localhost names, as the gateway does.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DEFAULT_FLAG_RULE, DEFAULT_RETENTION_MS, startDashboard, type RunningDashboard } from '../../src/dashboard';
import { type RunningGateway, silentLogger } from '../../src/gateway';
import { auditRecord, lines, refusal } from '../dashboard/audit-fixtures';
import { botConfig, supportDeskTools } from '../helpers/config';
import { freePort } from '../helpers/free-port';
import { rawRequest } from '../helpers/http';
import { startSilentGateway } from '../helpers/in-process-gateway';

describe('attack: DNS rebinding against the dashboard and the metrics port', function () {
  this.timeout(30_000);
  let dir: string;
  let dashboard: RunningDashboard;
  let gateway: RunningGateway;
  let metricsPort: number;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'attack-rebind-'));
    writeFileSync(path.join(dir, 'audit.jsonl'), lines([auditRecord(), refusal('Invalid value for `x`')]));
    dashboard = await startDashboard(
      {
        auditDirs: [dir],
        port: 0,
        host: '127.0.0.1',
        auth: undefined,
        retentionMs: DEFAULT_RETENTION_MS,
        flag: DEFAULT_FLAG_RULE,
      },
      { logger: silentLogger },
    );
    metricsPort = await freePort();
    gateway = await startSilentGateway(
      botConfig(supportDeskTools('http://127.0.0.1:9'), { metrics: { port: metricsPort } }),
    );
  });

  after(async () => {
    await dashboard?.close();
    await gateway?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const dashboardGet = (p: string, headers: Record<string, string>) =>
    rawRequest({ url: `${dashboard.url.replace(/\/$/, '')}${p}`, method: 'GET', headers });

  for (const p of ['/api/summary?window=24h', '/', '/healthz']) {
    it(`the loopback dashboard refuses Host: attacker.example on ${p} (403), reading nothing`, async () => {
      const res = await dashboardGet(p, { host: `attacker.example:${dashboard.port}` });
      assert.equal(res.status, 403);
      assert.deepEqual(res.json, { error: 'Forbidden: Host not allowed' });
      assert.doesNotMatch(res.text, /support-bot|get_customer/);
    });
  }

  it('answers its own localhost names, and refuses a foreign Origin even with a local Host', async () => {
    for (const host of [`127.0.0.1:${dashboard.port}`, `localhost:${dashboard.port}`]) {
      const res = await dashboardGet('/api/summary?window=24h', { host });
      assert.equal(res.status, 200, host);
      assert.match(res.text, /support-bot/);
    }
    const foreign = await dashboardGet('/api/summary?window=24h', {
      host: `127.0.0.1:${dashboard.port}`,
      origin: 'http://attacker.example',
    });
    assert.equal(foreign.status, 403);
    assert.deepEqual(foreign.json, { error: 'Forbidden: Origin not allowed' });
    const own = await dashboardGet('/api/summary?window=24h', {
      host: `127.0.0.1:${dashboard.port}`,
      origin: `http://127.0.0.1:${dashboard.port}`,
    });
    assert.equal(own.status, 200, "the page's own origin");
  });

  it('the metrics port refuses Host: attacker.example (403) and answers 127.0.0.1', async () => {
    const url = `http://127.0.0.1:${metricsPort}/metrics`;
    const attack = await rawRequest({ url, method: 'GET', headers: { host: `attacker.example:${metricsPort}` } });
    assert.equal(attack.status, 403);
    assert.doesNotMatch(attack.text, /mcp_gateway/);
    const foreignOrigin = await rawRequest({
      url,
      method: 'GET',
      headers: { host: `127.0.0.1:${metricsPort}`, origin: 'http://attacker.example' },
    });
    assert.equal(foreignOrigin.status, 403);
    const ok = await rawRequest({ url, method: 'GET', headers: { host: `127.0.0.1:${metricsPort}` } });
    assert.equal(ok.status, 200);
    assert.match(ok.text, /mcp_gateway_build_info/);
  });
});
