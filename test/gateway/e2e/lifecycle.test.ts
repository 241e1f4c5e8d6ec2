/**
 * The `serve` command as a process: listening line, `/healthz` and `/readyz`, flag overrides (docs/gateway.md "Listening",
 * the CLI), JSON or YAML config, and start-up failures (a bad config or flag, a port in use, an audit log that cannot be
 * opened: a non-zero exit with one line on stderr naming the field or flag).
 */
import * as assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import * as path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { readAuditLog, waitForAuditRecords } from '../../helpers/audit-log';
import { downBackendUrl, startBackend, type TestBackend } from '../../helpers/backend';
import { gatewayConfig, supportDeskTools } from '../../helpers/config';
import {
  type GatewayProcess,
  killAllGatewayProcesses,
  runCli,
  startGatewayProcess,
  writeTempConfig,
} from '../../helpers/gateway-process';
import { reusePortSupport } from '../../../src/gateway';
import { openSession } from '../../helpers/mcp';
import { makeToken } from '../../helpers/tokens';

/** Asserts a failed start: non-zero exit, nothing listening, exactly one line on stderr matching `pattern`. */
function assertOneLineFailure(r: { code: number | null; stdout: string; stderr: string }, pattern: RegExp): void {
  assert.notEqual(r.code, 0, `exit code ${r.code}; stderr: ${r.stderr}`);
  assert.notEqual(r.code, null, 'killed, not exited');
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `expected one line on stderr, got:\n${r.stderr}`);
  assert.match(lines[0], pattern);
  assert.ok(!r.stdout.includes('"msg":"listening"'), 'it listened anyway');
}

describe('gateway e2e: serve command lifecycle', function () {
  this.timeout(20_000);
  const bot = makeToken('lifecycle-bot');
  let backend: TestBackend;
  let gw: GatewayProcess;
  const validConfig = () => gatewayConfig({ tokens: [bot], tools: supportDeskTools(backend.url) });

  before(async () => {
    backend = await startBackend();
    gw = await startGatewayProcess({ config: validConfig() });
  });

  after(async () => {
    await killAllGatewayProcesses();
    await backend?.close();
  });

  it('prints one JSON "listening" line with the MCP URL', () => {
    const listening = gw
      .logLines()
      .find((l) => typeof l === 'object' && l !== null && (l as { msg?: unknown }).msg === 'listening') as {
      url: string;
    };
    assert.ok(listening, gw.stdout());
    assert.match(listening.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.notEqual(gw.port, 0);
  });

  it('answers GET /healthz 200 and GET /readyz 200 without a token', async () => {
    for (const route of ['/healthz', '/readyz']) {
      const res = await fetch(`${gw.origin}${route}`, { signal: AbortSignal.timeout(5_000) });
      assert.equal(res.status, 200, route);
      await res.arrayBuffer();
    }
  });

  it('writes only JSON lines on stdout and no argument values', async () => {
    const canary = 'canary-log-4b1d';
    const session = await openSession(gw.url, { token: bot.token });
    await session.callTool('get_customer', { customer_id: 'C-0001', query: canary });
    await session.callTool('get_customer', { customer_id: canary });
    await waitForAuditRecords(gw.auditLogPath, 2);
    for (const line of gw
      .stdout()
      .split('\n')
      .filter((l) => l.trim() !== '')) {
      assert.doesNotThrow(() => JSON.parse(line), `not JSON: ${line}`);
    }
    assert.ok(!gw.stdout().includes(canary) && !gw.stderr().includes(canary));
  });

  it('listens on the port given with --port', async () => {
    const port = Number(new URL(await downBackendUrl()).port);
    const other = await startGatewayProcess({ config: validConfig(), port });
    assert.equal(other.url, `http://127.0.0.1:${port}/mcp`);
    const res = await fetch(`${other.origin}/healthz`, { signal: AbortSignal.timeout(5_000) });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  });

  it('exits 0 on SIGTERM sent the moment the listening line appears (signal handlers installed before it)', async () => {
    // A supervisor may stop the gateway as soon as it reports listening; that must be a graceful stop too.
    for (let i = 0; i < 3; i++) {
      const quick = await startGatewayProcess({ config: validConfig() });
      assert.deepEqual(await quick.stop('SIGTERM'), { code: 0, signal: null }, `attempt ${i + 1}: ${quick.stdout()}`);
    }
  });

  it('reads a YAML config', async () => {
    const yamlGw = await startGatewayProcess({ config: toYaml(validConfig()) });
    const session = await openSession(yamlGw.url, { token: bot.token });
    const res = await session.callTool('get_customer', { customer_id: 'C-0002' });
    assert.equal(res.message?.result?.structuredContent?.path, '/customers/C-0002', res.text);
    await yamlGw.stop();
  });

  it('writes the audit log to the file given with --audit-log', async () => {
    const session = await openSession(gw.url, { token: bot.token });
    const before = readAuditLog(gw.auditLogPath).length;
    await session.callTool('health');
    const records = await waitForAuditRecords(gw.auditLogPath, before + 1);
    assert.equal(records[records.length - 1].tool, 'health');
    assert.equal(records[records.length - 1].principal, 'lifecycle-bot');
  });

  it('writes the audit log to audit_log.path from the config when no --audit-log is given', async () => {
    const base = validConfig();
    const { dir } = writeTempConfig('{}');
    const auditPath = path.join(dir, 'nested', 'from-config.jsonl');
    const cfgGw = await startGatewayProcess({
      config: { ...base, gateway: { ...base.gateway, audit_log: { path: auditPath } } },
      auditLog: false,
    });
    const session = await openSession(cfgGw.url, { token: bot.token });
    await session.callTool('health');
    const records = await waitForAuditRecords(auditPath, 1);
    assert.equal(records[0].tool, 'health');
    await cfgGw.stop();
  });

  describe('start-up failures', () => {
    async function serveWith(configText: string, ...flags: string[]) {
      const { configPath } = writeTempConfig(configText);
      return runCli(['serve', '--config', configPath, '--port', '0', ...flags]);
    }
    const withGateway = (patch: Record<string, unknown>) => {
      const c = validConfig();
      return JSON.stringify({ ...c, gateway: { ...c.gateway, ...patch } });
    };

    it('exits non-zero naming gateway.validation_errors when it is not protocol, tool_result or auto', async () => {
      assertOneLineFailure(await serveWith(withGateway({ validation_errors: 'loud' })), /gateway\.validation_errors/);
    });

    it('exits non-zero naming gateway.port when it is out of range (no --port)', async () => {
      const { configPath } = writeTempConfig(withGateway({ port: 70000 }));
      assertOneLineFailure(await runCli(['serve', '--config', configPath]), /gateway\.port/);
    });

    it('exits non-zero naming the sha256 of a token that is not a hex digest', async () => {
      assertOneLineFailure(
        await serveWith(withGateway({ auth: { tokens: [{ id: 'x', sha256: 'not-hex' }] } })),
        /gateway\.auth\.tokens\[0\]\.sha256/,
      );
    });

    it('exits non-zero naming the tool field when a tool has no backend', async () => {
      const c = validConfig();
      const [first, ...rest] = c.tools;
      const { backend: _dropped, ...noBackend } = first;
      assertOneLineFailure(
        await serveWith(JSON.stringify({ ...c, tools: [noBackend, ...rest] })),
        /tools\[0\]\.backend/,
      );
    });

    it('exits non-zero with one line when the config is neither JSON nor YAML', async () => {
      assertOneLineFailure(await serveWith('{ "version": 1, "gateway": '), /./);
    });

    it('exits non-zero naming the file when the config file does not exist', async () => {
      assertOneLineFailure(
        await runCli(['serve', '--config', '/nonexistent/gateway.json']),
        /\/nonexistent\/gateway\.json/,
      );
    });

    it('exits non-zero naming --config when it is missing', async () => {
      assertOneLineFailure(await runCli(['serve', '--port', '0']), /--config/);
    });

    it('exits non-zero naming an unknown flag', async () => {
      assertOneLineFailure(await serveWith(JSON.stringify(validConfig()), '--bogus'), /--bogus/);
    });

    it('exits non-zero naming --port when it is not a port number', async () => {
      const { configPath } = writeTempConfig(JSON.stringify(validConfig()));
      assertOneLineFailure(await runCli(['serve', '--config', configPath, '--port', 'abc']), /--port/);
    });
  });

  describe('flags over the config, and failures that leave nothing listening', function () {
    this.timeout(30_000);
    it('--host overrides gateway.host', async () => {
      // The config says 127.0.0.1; the flag binds localhost (still loopback, so the default Host check applies).
      const gw = await startGatewayProcess({ config: validConfig(), extraArgs: ['--host', 'localhost'] });
      assert.match(gw.url, /^http:\/\/localhost:\d+\/mcp$/);
      const session = await openSession(gw.url, { token: bot.token });
      assert.equal((await session.request('ping')).status, 200);
      assert.equal((await gw.stop()).code, 0);
    });

    it('--audit-log turns the audit log on even when the config says audit_log: false', async () => {
      const config = gatewayConfig({
        tokens: [bot],
        tools: supportDeskTools(backend.url),
        settings: { audit_log: false },
      });
      const gw = await startGatewayProcess({ config });
      const session = await openSession(gw.url, { token: bot.token });
      await session.callTool('health', {});
      const records = await waitForAuditRecords(gw.auditLogPath, 1);
      assert.equal(records[0].tool, 'health');
      assert.equal((await gw.stop()).code, 0);
      assert.equal(readAuditLog(gw.auditLogPath).length, 1);
    });

    it('exits non-zero with one line when another program holds the port', async () => {
      // Not another gateway: where Node binds with SO_REUSEPORT (>= 22.12), gateways share a port by design.
      const holder = createServer();
      await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
      const { port } = holder.address() as AddressInfo;
      try {
        const { configPath } = writeTempConfig(validConfig());
        const r = await runCli(['serve', '--config', configPath, '--port', String(port)]);
        assert.notEqual(r.code, 0);
        assert.notEqual(r.code, null);
        const lines = r.stderr.trimEnd().split('\n');
        assert.equal(lines.length, 1, r.stderr);
        assert.match(lines[0], /^cdktf-mcp-gateway: cannot listen: address already in use/);
      } finally {
        holder.close();
      }
    });

    it('shares the port with another gateway exactly where Node binds with SO_REUSEPORT', async () => {
      const first = await startGatewayProcess({ config: validConfig() });
      try {
        if (reusePortSupport().supported) {
          const second = await startGatewayProcess({ config: validConfig(), port: first.port });
          assert.equal(second.port, first.port);
          assert.equal((await second.stop()).code, 0);
        } else {
          const { configPath } = writeTempConfig(validConfig());
          const r = await runCli(['serve', '--config', configPath, '--port', String(first.port)]);
          assert.match(r.stderr, /^cdktf-mcp-gateway: cannot listen: address already in use/);
        }
      } finally {
        assert.equal((await first.stop()).code, 0);
      }
    });

    it('exits non-zero with one line when --port has no value', async () => {
      const { configPath } = writeTempConfig(validConfig());
      const r = await runCli(['serve', '--config', configPath, '--port']);
      assert.equal(r.code, 2);
      assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, /--port/);
    });

    it('exits non-zero with one line when the audit log cannot be opened (its parent is a file)', async () => {
      const { configPath } = writeTempConfig(validConfig());
      // The config file itself stands in for a parent directory that is not one (mkdir answers EEXIST or ENOTDIR).
      const r = await runCli([
        'serve',
        '--config',
        configPath,
        '--port',
        '0',
        '--audit-log',
        `${configPath}/audit.jsonl`,
      ]);
      assert.equal(r.code, 1);
      assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
      const expected = `cdktf-mcp-gateway: gateway.audit_log: cannot open ${configPath}/audit.jsonl: CODE (pass --audit-log FILE or set audit_log: false)`;
      assert.match(
        r.stderr.trimEnd(),
        new RegExp(`^${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('CODE', '(EEXIST|ENOTDIR)')}$`),
      );
    });

    it('exits non-zero with one line, instead of spinning at 100% CPU, when the audit log is under /proc', async () => {
      // procfs answers ENOENT to mkdir, and Node's recursive mkdirSync then retries forever (see src/gateway/audit/audit-log.ts).
      const { configPath } = writeTempConfig(validConfig());
      const r = await runCli(
        ['serve', '--config', configPath, '--port', '0', '--audit-log', '/proc/no-such-dir/audit.jsonl'],
        4_000,
      );
      assert.equal(r.code, 1);
      assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, /^cdktf-mcp-gateway: gateway\.audit_log: cannot open \/proc\/no-such-dir\/audit\.jsonl: /);
    });
  });
});
