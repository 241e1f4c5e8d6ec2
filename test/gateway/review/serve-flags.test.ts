/**
 * Round-2 SPEC review: `serve` flags override the config (SPEC §4 "Listening", §6), and a start-up failure is
 * one line on stderr with a non-zero exit. Runs the built CLI (`npm run build` first).
 */
import * as assert from 'node:assert/strict';
import { readAuditLog, waitForAuditRecords } from '../../helpers/audit-log';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { gatewayConfig, supportDeskTools } from '../../helpers/config';
import { killAllGatewayProcesses, runCli, startGatewayProcess, writeTempConfig } from '../../helpers/gateway-process';
import { openSession } from '../../helpers/mcp';
import { makeToken } from '../../helpers/tokens';

describe('SPEC review: serve flags and start-up failures', function () {
  this.timeout(30_000);
  const bot = makeToken('flags-bot');
  let backend: TestBackend;

  before(async () => {
    backend = await startBackend();
  });

  after(async () => {
    await killAllGatewayProcesses();
    await backend?.close();
  });

  it('--host overrides gateway.host', async () => {
    // The config says 127.0.0.1; the flag binds localhost (still loopback, so the default Host check applies).
    const gw = await startGatewayProcess({ config: gatewayConfig({ tokens: [bot], tools: supportDeskTools(backend.url) }), extraArgs: ['--host', 'localhost'] });
    assert.match(gw.url, /^http:\/\/localhost:\d+\/mcp$/);
    const session = await openSession(gw.url, { token: bot.token });
    assert.equal((await session.request('ping')).status, 200);
    assert.equal((await gw.stop()).code, 0);
  });

  it('--audit-log turns the audit log on even when the config says audit_log: false', async () => {
    const config = gatewayConfig({ tokens: [bot], tools: supportDeskTools(backend.url), settings: { audit_log: false } });
    const gw = await startGatewayProcess({ config });
    const session = await openSession(gw.url, { token: bot.token });
    await session.callTool('health', {});
    const records = await waitForAuditRecords(gw.auditLogPath, 1);
    assert.equal(records[0].tool, 'health');
    assert.equal((await gw.stop()).code, 0);
    assert.equal(readAuditLog(gw.auditLogPath).length, 1);
  });

  it('exits non-zero with one line when the port is already in use', async () => {
    const first = await startGatewayProcess({ config: gatewayConfig({ tokens: [bot], tools: supportDeskTools(backend.url) }) });
    const { configPath } = writeTempConfig(gatewayConfig({ tokens: [bot], tools: supportDeskTools(backend.url) }));
    const r = await runCli(['serve', '--config', configPath, '--port', String(first.port)]);
    assert.notEqual(r.code, 0);
    assert.notEqual(r.code, null);
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /^cdktf-mcp-gateway: cannot listen: address already in use/);
    assert.equal((await first.stop()).code, 0);
  });

  it('exits non-zero with one line when --port has no value', async () => {
    const { configPath } = writeTempConfig(gatewayConfig({ tokens: [bot], tools: supportDeskTools(backend.url) }));
    const r = await runCli(['serve', '--config', configPath, '--port']);
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /--port/);
  });

  it('exits non-zero with one line when the audit log cannot be opened (its parent is a file)', async () => {
    const { configPath } = writeTempConfig(gatewayConfig({ tokens: [bot], tools: supportDeskTools(backend.url) }));
    // The config file itself stands in for a parent directory that is not one (mkdir answers EEXIST or ENOTDIR).
    const r = await runCli(['serve', '--config', configPath, '--port', '0', '--audit-log', `${configPath}/audit.jsonl`]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
    const expected = `cdktf-mcp-gateway: gateway.audit_log: cannot open ${configPath}/audit.jsonl: CODE (pass --audit-log FILE or set audit_log: false)`;
    assert.match(r.stderr.trimEnd(), new RegExp(`^${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('CODE', '(EEXIST|ENOTDIR)')}$`));
  });

  it('exits non-zero with one line, instead of spinning at 100% CPU, when the audit log is under /proc', async () => {
    // procfs answers ENOENT to mkdir, and Node's recursive mkdirSync then retries forever (src/gateway/audit-log.ts:43).
    const { configPath } = writeTempConfig(gatewayConfig({ tokens: [bot], tools: supportDeskTools(backend.url) }));
    const r = await runCli(['serve', '--config', configPath, '--port', '0', '--audit-log', '/proc/no-such-dir/audit.jsonl'], 4_000);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /^cdktf-mcp-gateway: gateway\.audit_log: cannot open \/proc\/no-such-dir\/audit\.jsonl: /);
  });
});
