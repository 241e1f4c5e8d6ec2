/**
 * Secrets through the built CLI (`npm run build` first): `serve` reads a secret from the secrets directory
 * (`/run/secrets` in the image; `CDKTF_MCP_GATEWAY_SECRETS_DIR` here) or the environment at start, refuses to
 * start without it in one line naming it, and never prints its value (a canary in the serve logs).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { ToolConfig } from '../../../src/config';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { botConfig, tool } from '../../helpers/config';
import { killAllGatewayProcesses, runCli, startGatewayProcess, writeTempConfig } from '../../helpers/gateway-process';
import { openSession } from '../../helpers/mcp';
import { BOT } from '../../helpers/tokens';

const CANARY = `cli-canary-${process.pid}-4f2a9c`;
const SECRET = 'CLI_TEST_CRM_API_KEY';

function crmTool(url: string): ToolConfig {
  const t = tool('crm', url);
  return { ...t, backend: { ...t.backend, headers: { Authorization: { secret: SECRET } } } };
}

describe('serve with backend secrets (built CLI)', function () {
  this.timeout(30_000);
  let backend: TestBackend;
  let secretsDir: string;

  before(async () => {
    backend = await startBackend();
    secretsDir = mkdtempSync(path.join(tmpdir(), 'cli-secrets-'));
  });

  after(async () => {
    Reflect.deleteProperty(process.env, SECRET);
    delete process.env.CDKTF_MCP_GATEWAY_SECRETS_DIR;
    await killAllGatewayProcesses();
    await backend?.close();
    rmSync(secretsDir, { recursive: true, force: true });
  });

  it('refuses to start without the secret: exit 1, one line naming the field and the secret', async () => {
    Reflect.deleteProperty(process.env, SECRET);
    process.env.CDKTF_MCP_GATEWAY_SECRETS_DIR = secretsDir;
    const { configPath } = writeTempConfig(botConfig([crmTool(`${backend.url}/crm`)]));
    const result = await runCli(['serve', '--config', configPath, '--port', '0']);
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      `cdktf-mcp-gateway: tools[0].backend.headers.Authorization: secret ${SECRET} is not set: give the gateway the file ` +
        `${path.join(secretsDir, SECRET)} (a Docker secret) or the environment variable ${SECRET}\n`,
    );
  });

  it('reads the secret file at start, sends it to the backend and never prints it', async () => {
    process.env.CDKTF_MCP_GATEWAY_SECRETS_DIR = secretsDir;
    writeFileSync(path.join(secretsDir, SECRET), `Bearer ${CANARY}\n`);
    const gw = await startGatewayProcess({
      config: botConfig([crmTool(`${backend.url}/crm`), { ...crmTool(`${backend.url}/status/503`), name: 'broken' }]),
    });
    const session = await openSession(gw.url, { token: BOT.token });
    const ok = await session.callTool('crm', {});
    assert.equal(ok.message?.result?.isError, undefined, ok.text);
    assert.equal(backend.received.at(-1)?.headers.authorization, `Bearer ${CANARY}`);
    const broken = await session.callTool('broken', {});
    assert.equal(broken.message?.result?.isError, true, broken.text);
    gw.signal('SIGHUP');
    await gw.waitForOutput(/config reloaded/);
    const status = await gw.stop();
    assert.equal(status.code, 0);
    const printed = gw.stdout() + gw.stderr();
    // the shutdown lines name the gateway (a host may run several)
    const lines = gw.logLines() as { msg?: string; gateway?: string }[];
    for (const msg of ['shutting down', 'stopped']) {
      assert.equal(lines.find((l) => l.msg === msg)?.gateway, 'test', `${msg}: ${printed}`);
    }
    assert.ok(!printed.includes(CANARY), 'serve logs');
    assert.ok(!readFileSync(gw.auditLogPath, 'utf8').includes(CANARY), 'audit log');
    assert.ok(!broken.text.includes(CANARY), 'the error of a failing backend call');
  });
});
