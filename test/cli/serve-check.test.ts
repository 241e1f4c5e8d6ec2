import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync, existsSync } from 'node:fs';
import * as path from 'node:path';
import { botConfig, tool } from '../helpers/config';
import { cliNodeArgs, writeTempConfig } from '../helpers/gateway-process';
import { tempDir } from '../helpers/temp-dir';

function check(configPath: string, env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, cliNodeArgs(['serve', '--config', configPath, '--check']), {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, ...env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('serve --check (what a deploy runs before it replaces a gateway)', () => {
  it('exits 0 with one line for a config the gateway would start with, binding no port it keeps', () => {
    const { configPath } = writeTempConfig(botConfig([tool('get_customer', 'http://127.0.0.1:9/customers')]));
    const { code, stdout, stderr } = check(configPath);
    assert.equal(stderr, '');
    assert.equal(code, 0);
    assert.equal(stdout, `cdktf-mcp-gateway: config ok (${configPath})\n`);
  });

  it("exits 1 with the gateway's own one-line reason for a secret without a value", () => {
    const config = botConfig([
      {
        ...tool('get_customer', 'http://127.0.0.1:9/customers'),
        backend: {
          url: 'http://127.0.0.1:9/customers',
          method: 'GET',
          headers: { 'X-Api-Key': { secret: 'CRM_KEY' } },
        },
      },
    ]);
    const secrets = tempDir('check-secrets-');
    writeFileSync(path.join(secrets, 'CRM_KEY'), '');
    const { configPath } = writeTempConfig(config);
    const { code, stdout, stderr } = check(configPath, { CDKTF_MCP_GATEWAY_SECRETS_DIR: secrets });
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.equal(stderr, 'cdktf-mcp-gateway: tools[0].backend.headers["X-Api-Key"]: secret CRM_KEY is empty\n');
  });

  it('writes neither the audit log nor the generated-key store of the gateway it checks', () => {
    const dir = tempDir('check-state-');
    const store = path.join(dir, 'session-key');
    const audit = path.join(dir, 'audit.jsonl');
    const { configPath } = writeTempConfig(
      botConfig([tool('get_customer', 'http://127.0.0.1:9/customers')], {
        session_key_store: store,
        audit_log: { path: audit },
      }),
    );
    assert.equal(check(configPath).code, 0);
    assert.equal(existsSync(store), false);
    assert.equal(existsSync(audit), false);
  });

  it('names a tool whose schema does not compile on stderr, and exits 0: the gateway would start and refuse its calls', () => {
    const broken = tool('get_customer', 'http://127.0.0.1:9/customers', {
      inputSchema: { type: 'object', properties: { id: { type: 'string', pattern: '(a)\\1' } } },
    });
    const { configPath } = writeTempConfig(botConfig([broken, tool('health', 'http://127.0.0.1:9/health')]));
    const { code, stdout, stderr } = check(configPath);
    assert.equal(code, 0);
    assert.equal(stdout, `cdktf-mcp-gateway: config ok (${configPath})\n`);
    assert.equal(
      stderr,
      'cdktf-mcp-gateway: warning: tool `get_customer` will be unavailable (its calls refused with -32603 ' +
        '`Tool unavailable`): input schema: pattern "(a)\\\\1" at #/properties/id/pattern uses a backreference \\1, ' +
        "which the gateway's linear-time regular expression engine does not support; rewrite the pattern without it\n",
    );
  });
});
