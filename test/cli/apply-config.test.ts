/**
 * `apply-config`: a new config reaches a running gateway through its state directory, without a restart; a config
 * the gateway cannot run changes nothing there (docs/deploy.md "What a deploy does").
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import * as path from 'node:path';
import { applyConfig } from '../../src/cli/apply-config';
import {
  configDigest,
  readGatewayConfigFile,
  SECRETS_DIR_ENV,
  type GatewayConfig,
  type ToolConfig,
} from '../../src/config';
import { silentLogger, startGateway, type RunningGateway } from '../../src/gateway';
import { botConfig, tool } from '../helpers/config';
import { rawRequest } from '../helpers/http';
import { tempDir } from '../helpers/temp-dir';

const withSecret = (name: string, secret: string): ToolConfig => ({
  ...tool(name, 'http://127.0.0.1:9/x'),
  backend: { url: 'http://127.0.0.1:9/x', method: 'GET', headers: { 'X-Api-Key': { secret } } },
});

describe('apply-config (a new config for a running gateway, in place)', function () {
  this.timeout(20_000);
  let stateDir: string;
  let uploads: string;
  let gateway: RunningGateway | undefined;
  const savedSecretsDir = process.env[SECRETS_DIR_ENV];

  beforeEach(() => {
    stateDir = tempDir('apply-state-');
    uploads = tempDir('apply-uploads-');
    mkdirSync(path.join(uploads, 'secrets'));
    // what the deploy's one-shot container sees: the new config and the secrets uploaded beside it
    process.env[SECRETS_DIR_ENV] = path.join(uploads, 'secrets');
  });
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
    if (savedSecretsDir === undefined) delete process.env[SECRETS_DIR_ENV];
    else process.env[SECRETS_DIR_ENV] = savedSecretsDir;
  });

  function upload(config: GatewayConfig, secrets: Record<string, string> = {}): string {
    for (const [name, value] of Object.entries(secrets)) writeFileSync(path.join(uploads, 'secrets', name), value);
    const file = path.join(uploads, 'gateway.json');
    writeFileSync(file, JSON.stringify(config));
    return file;
  }

  /** The gateway as its container runs it: the config, status and secrets in the state directory, watching. */
  async function serveFromState(secretsDir = path.join(stateDir, 'secrets')): Promise<RunningGateway> {
    const configPath = path.join(stateDir, 'gateway.json');
    const { config, digest } = readGatewayConfigFile(configPath);
    gateway = await startGateway({
      config,
      configDigest: digest,
      configPath,
      watch: true,
      statusFile: path.join(stateDir, 'status.json'),
      secrets: { dir: secretsDir },
      port: 0,
      host: '127.0.0.1',
      logger: silentLogger,
    });
    return gateway;
  }

  async function readyDigest(gw: RunningGateway): Promise<string> {
    const res = await rawRequest({ url: gw.url.replace('/mcp', '/readyz'), method: 'GET' });
    return (res.json as { config_digest: string }).config_digest;
  }

  it('stores the config and its secrets (mode 0400) when no gateway serves yet', async () => {
    const file = upload(botConfig([withSecret('a', 'KEY')]), { KEY: 'k1\n' });
    const result = await applyConfig({ configPath: file, stateDir, timeoutMs: 1000 });
    assert.deepEqual(result, {
      outcome: 'stored',
      digest: configDigest(readFileSync(file)),
      why: 'no gateway has served from here yet',
    });
    assert.deepEqual(readFileSync(path.join(stateDir, 'gateway.json')), readFileSync(file));
    assert.equal(readFileSync(path.join(stateDir, 'secrets', 'KEY'), 'utf8'), 'k1\n');
    assert.equal(statSync(path.join(stateDir, 'secrets', 'KEY')).mode & 0o777, 0o400);
  });

  it('waits until the running gateway serves the new config, and /readyz reports its digest', async () => {
    await applyConfig({ configPath: upload(botConfig([tool('a', 'http://127.0.0.1:9/a')])), stateDir, timeoutMs: 1 });
    const gw = await serveFromState();
    const next = upload(botConfig([tool('a', 'http://127.0.0.1:9/a'), tool('b', 'http://127.0.0.1:9/b')]));
    const result = await applyConfig({ configPath: next, stateDir, timeoutMs: 10_000 });
    assert.equal(result.outcome, 'serving');
    // the deploy returns only once the gateway serves it: the first request after sees the new config
    assert.equal(await readyDigest(gw), configDigest(readFileSync(next)));
  });

  it('reloads for a secret whose value alone changed (the config bytes are the same)', async () => {
    const config = botConfig([withSecret('a', 'KEY')]);
    await applyConfig({ configPath: upload(config, { KEY: 'old' }), stateDir, timeoutMs: 1 });
    await serveFromState();
    const result = await applyConfig({ configPath: upload(config, { KEY: 'new' }), stateDir, timeoutMs: 10_000 });
    assert.equal(result.outcome, 'serving');
    assert.equal(readFileSync(path.join(stateDir, 'secrets', 'KEY'), 'utf8'), 'new\n');
  });

  it("refuses a config the gateway could not start with, with the gateway's reason, and changes nothing", async () => {
    await applyConfig({
      configPath: upload(botConfig([withSecret('a', 'KEY')]), { KEY: 'k1' }),
      stateDir,
      timeoutMs: 1,
    });
    const gw = await serveFromState();
    const servedBytes = readFileSync(path.join(stateDir, 'gateway.json'));
    const digestBefore = await readyDigest(gw);
    const bad = upload(botConfig([withSecret('a', 'KEY'), tool('b', 'http://127.0.0.1:9/b')]), { KEY: '' });
    const result = await applyConfig({ configPath: bad, stateDir, timeoutMs: 10_000 });
    assert.deepEqual(result, {
      outcome: 'refused',
      reason: 'tools[0].backend.headers["X-Api-Key"]: secret KEY is empty',
    });
    assert.deepEqual(readFileSync(path.join(stateDir, 'gateway.json')), servedBytes);
    assert.equal(readFileSync(path.join(stateDir, 'secrets', 'KEY'), 'utf8'), 'k1\n');
    assert.equal(await readyDigest(gw), digestBefore);
  });

  it("puts the previous config back when the running gateway refuses the reload, with the gateway's reason", async () => {
    await applyConfig({ configPath: upload(botConfig([tool('a', 'http://127.0.0.1:9/a')])), stateDir, timeoutMs: 1 });
    // this gateway reads secrets from a folder the new config's secret never reaches: its reload fails
    const gw = await serveFromState(tempDir('apply-elsewhere-'));
    const before = readFileSync(path.join(stateDir, 'gateway.json'));
    const digestBefore = await readyDigest(gw);
    const result = await applyConfig({
      configPath: upload(botConfig([withSecret('a', 'KEY')]), { KEY: 'k1' }),
      stateDir,
      timeoutMs: 10_000,
    });
    assert.equal(result.outcome, 'refused');
    assert.match(
      (result as { reason: string }).reason,
      /^tools\[0\]\.backend\.headers\["X-Api-Key"\]: secret KEY is not set/,
    );
    // the gateway names the config it refused
    const { refused } = JSON.parse(readFileSync(path.join(stateDir, 'status.json'), 'utf8')) as {
      refused: { digest: string };
    };
    assert.equal(refused.digest, configDigest(readFileSync(path.join(uploads, 'gateway.json'))));
    assert.deepEqual(readFileSync(path.join(stateDir, 'gateway.json')), before);
    assert.equal(existsSync(path.join(stateDir, 'secrets', 'KEY')), false);
    assert.equal(await readyDigest(gw), digestBefore);
  });

  it("takes only a refusal of its own config for its outcome, not another reload's refused meanwhile", async () => {
    const first = upload(botConfig([tool('a', 'http://127.0.0.1:9/a')]));
    await applyConfig({ configPath: first, stateDir, timeoutMs: 1 });
    const before = readFileSync(path.join(stateDir, 'gateway.json'));
    const status = path.join(stateDir, 'status.json');
    const next = botConfig([tool('b', 'http://127.0.0.1:9/b')]);
    const nextDigest = configDigest(JSON.stringify(next));
    // a reload that read the previous config (a SIGHUP before the swap) is refused after the swap; then the
    // gateway reloads for the swap and serves the new config
    writeFileSync(
      status,
      JSON.stringify({
        state: 'serving',
        build: '',
        digest: configDigest(before),
        loaded_at: 1,
        refused: { at: Date.now() + 60_000, reason: 'secret KEY is not set', digest: configDigest(before) },
      }),
    );
    const served = setTimeout(
      () =>
        writeFileSync(
          status,
          JSON.stringify({ state: 'serving', build: '', digest: nextDigest, loaded_at: Date.now() }),
        ),
      300,
    );
    try {
      const result = await applyConfig({ configPath: upload(next), stateDir, timeoutMs: 10_000 });
      assert.equal(result.outcome, 'serving', JSON.stringify(result));
      assert.equal(configDigest(readFileSync(path.join(stateDir, 'gateway.json'))), nextDigest);
    } finally {
      clearTimeout(served);
    }
  });

  it('gives up after the timeout when the status says a gateway serves but none answers, and puts the config back', async () => {
    const first = upload(botConfig([tool('a', 'http://127.0.0.1:9/a')]));
    await applyConfig({ configPath: first, stateDir, timeoutMs: 1 });
    const before = readFileSync(path.join(stateDir, 'gateway.json'));
    // a gateway killed without its shutdown (SIGKILL, out of memory) leaves its last status behind
    writeFileSync(
      path.join(stateDir, 'status.json'),
      JSON.stringify({ state: 'serving', build: '', digest: configDigest(before), loaded_at: 1 }),
    );
    const result = await applyConfig({
      configPath: upload(botConfig([tool('b', 'http://127.0.0.1:9/b')])),
      stateDir,
      timeoutMs: 300,
    });
    assert.deepEqual(result, {
      outcome: 'refused',
      reason: 'the gateway did not report serving the new config within 0.3 s; the previous config was put back',
    });
    assert.deepEqual(readFileSync(path.join(stateDir, 'gateway.json')), before);
  });

  it('stores without waiting once the gateway has stopped (it loads the config when it starts)', async () => {
    await applyConfig({ configPath: upload(botConfig([tool('a', 'http://127.0.0.1:9/a')])), stateDir, timeoutMs: 1 });
    await (await serveFromState()).close();
    gateway = undefined;
    const status = JSON.parse(readFileSync(path.join(stateDir, 'status.json'), 'utf8')) as { state: string };
    assert.equal(status.state, 'stopped');
    const result = await applyConfig({
      configPath: upload(botConfig([tool('b', 'http://127.0.0.1:9/b')])),
      stateDir,
      timeoutMs: 10_000,
    });
    assert.equal(result.outcome, 'stored');
  });

  describe('the command', () => {
    const CLI = path.resolve(__dirname, '../../dist/src/cli/main.js');
    const applyCommand = (file: string, ...flags: string[]) => {
      const result = spawnSync(
        process.execPath,
        [CLI, 'apply-config', '--config', file, '--state-dir', stateDir, '--timeout-ms', '1000', ...flags],
        {
          encoding: 'utf8',
          timeout: 15_000,
          env: { ...process.env, [SECRETS_DIR_ENV]: path.join(uploads, 'secrets') },
        },
      );
      return { code: result.status, stdout: result.stdout, stderr: result.stderr };
    };

    it('prints one line of what it did, and nothing with --quiet', () => {
      const file = upload(botConfig([tool('a', 'http://127.0.0.1:9/a')]));
      const digest = configDigest(readFileSync(file)).slice(0, 12);
      assert.deepEqual(applyCommand(file), {
        code: 0,
        stdout: `cdktf-mcp-gateway: config ${digest} stored (no gateway has served from here yet)\n`,
        stderr: '',
      });
      assert.deepEqual(applyCommand(file, '--quiet'), { code: 0, stdout: '', stderr: '' });
    });

    it("still prints the gateway's reason with --quiet when the config is refused", () => {
      const file = upload(botConfig([withSecret('a', 'KEY')]), { KEY: '' });
      assert.deepEqual(applyCommand(file, '--quiet'), {
        code: 1,
        stdout: '',
        stderr: 'cdktf-mcp-gateway: tools[0].backend.headers["X-Api-Key"]: secret KEY is empty\n',
      });
    });
  });
});
