/**
 * `cdktf deploy` for real: the repository's cdktf CLI drives OpenTofu and the kreuzwerker/docker provider, both
 * built from Go modules by `npm run toolchain` and installed offline from a filesystem mirror, against the local
 * Docker daemon (loopback and host networking only; the local Node base image, since no registry is reachable).
 * Nothing here imitates the provider: every container, service, config, secret, volume and image is made and
 * removed by `tofu apply`.
 *
 * Required under CI=true and with `npm run test:deploy`; pending otherwise, with a title naming what is missing.
 */
import * as assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { Redis } from 'ioredis';
import { GATEWAY_STATE_DIR as STATE_DIR, STATE_CONFIG_FILE, STATE_STATUS_FILE } from '../../src/config';
import { startBackend, type TestBackend } from '../helpers/backend';
import { eventually } from '../helpers/eventually';
import { connectSdkClient, initializeRequest, type SdkConnection } from '../helpers/mcp';
import { openStream, type OpenStream } from '../helpers/http';
import { modernRequest, postModern } from '../helpers/modern';
import { reusePortNode } from '../helpers/reuse-port-node';
import { makeToken } from '../helpers/tokens';
import {
  command,
  docker,
  dockerDaemonAnswers,
  ensureDockerDaemon,
  freePort,
  type StartedDaemon,
} from '../image/docker';
import { ensureSwarm, healthyTasks, runningTasks, tasksByDesiredState, type SwarmHandle } from '../swarm/swarm';
import { CdktfApp, type CdktfRun } from './cdktf-app';
import { dockerObjects, imageTags, listeningAddresses } from './host';
import { deployTestRequirement, toolchainBuilt, toolchainEnv } from './toolchain';

const REPO = path.resolve(__dirname, '../..');
const BASE_IMAGE_SCRIPT = path.join(REPO, 'scripts', 'node-base-image.sh');
/** Node 22 (SO_REUSEPORT for replicas sharing a port); built locally, no image registry is reachable here. */
const BASE_IMAGE = 'local/node-base:node22';
/** Debian's redis-server as an image (scripts/redis-image.sh), for the LimitStore. */
const STORE_IMAGE = 'local/redis:deploy-test';
const STORE_IMAGE_SCRIPT = path.join(REPO, 'scripts', 'redis-image.sh');
const UPGRADE_MARKER = path.join(REPO, 'dist', 'image-context', 'deploy-test-upgrade.txt');

const requirement = deployTestRequirement();

function log(line: string): void {
  process.stdout.write(`      [deploy] ${line}\n`);
}

/** The figures the closing table reports (printed at the end, and written to $DEPLOY_REPORT when set). */
const report: { what: string; value: string }[] = [];
function record(what: string, value: string): void {
  report.push({ what, value });
  log(`${what}: ${value}`);
}

/** The tail of a cdktf run's output, for an assertion message. */
function tail(run: CdktfRun, chars = 4000): string {
  return run.output.slice(-chars);
}

let runs = 0;
/** Keeps the whole output of every cdktf run in $DEPLOY_LOG_DIR, when set (assertion messages show the tail). */
function keep(run: CdktfRun, what: string): CdktfRun {
  const dir = process.env.DEPLOY_LOG_DIR;
  if (dir !== undefined) {
    runs += 1;
    fs.writeFileSync(
      path.join(dir, `${String(runs).padStart(2, '0')}-${what.replace(/[^A-Za-z0-9]+/g, '-')}.log`),
      run.output,
    );
  }
  return run;
}

function assertOk(run: CdktfRun, what: string): void {
  keep(run, what);
  assert.equal(run.code, 0, `${what} exited ${run.code}:\n${tail(run)}`);
}

/** The backend image's files: a JSON API on 8080 with a HEALTHCHECK, built by the provider from this context. */
function writeBackend(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'server.js'),
    `'use strict';
const http = require('http');
const crypto = require('crypto');
let calls = 0;
http.createServer((req, res) => {
  const url = new URL(req.url, 'http://backend');
  if (url.pathname === '/health') { res.end('ok'); return; }
  const match = /^\\/customers\\/([^/]+)$/.exec(url.pathname);
  if (match === null) { res.statusCode = 404; res.end('{}'); return; }
  calls += 1;
  const key = req.headers['x-api-key'];
  const body = JSON.stringify({
    id: decodeURIComponent(match[1]),
    calls,
    key_sha256: typeof key === 'string' ? crypto.createHash('sha256').update(key).digest('hex') : null,
  });
  res.setHeader('content-type', 'application/json');
  res.end(body);
}).listen(8080, '0.0.0.0');
`,
  );
  fs.writeFileSync(
    path.join(dir, 'Dockerfile'),
    `ARG BASE_IMAGE
FROM \${BASE_IMAGE}
COPY server.js /srv/server.js
USER 1000:1000
HEALTHCHECK --interval=2s --timeout=2s --start-period=20s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:8080/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "/srv/server.js"]
`,
  );
}

/** The single-container stack, as a user writes it with the public API. */
const SINGLE_STACK = `
const { App, TerraformStack, TerraformVariable } = cdktf;
const app = new App();
const stack = new TerraformStack(app, params.stack);
new docker.DockerProvider(stack, 'docker', {});
const backendKey = new TerraformVariable(stack, 'backend_key', { type: 'string', sensitive: true });
const getCustomer = new mcp.Service(stack, 'get_customer', {
  description: 'Look up a customer',
  endpoint: {
    url: 'http://crm:8080/customers/{customer_id}',
    method: 'GET',
    headers: { 'X-Api-Key': mcp.Secret.env('BACKEND_KEY') },
  },
  input: { customer_id: { type: 'string', required: true, pattern: '^C-[0-9]{4}$' } },
  container: {
    build: { context: params.backendDir, args: { BASE_IMAGE: params.baseImage } },
    port: 8080,
    healthcheck: 'image',
  },
  ...(params.redactKey ? { response: { redactPatterns: { sha: '[0-9a-f]{64}' } } } : {}),
});
const services = [getCustomer];
if (params.extraTool) {
  services.push(new mcp.Service(stack, 'find_customer', {
    description: 'Find a customer',
    endpoint: { url: 'http://crm:8080/customers/{customer_id}', method: 'GET' },
    input: { customer_id: { type: 'string', required: true } },
  }));
}
const gateway = new mcp.Gateway(stack, 'support', {
  services,
  auth: { tokens: [
    { id: 'deploy-bot', sha256: params.tokenSha256 },
    ...(params.extraTokenSha256 ? [{ id: 'second-bot', sha256: params.extraTokenSha256 }] : []),
  ] },
  port: params.port,
  hostIp: '127.0.0.1',
  baseImage: params.baseImage,
  validateInput: params.validateInput,
  secrets: { BACKEND_KEY: backendKey.stringValue },
});
new mcp.AuditDashboard(stack, 'audit', {
  gateways: [gateway],
  auth: 'none',
  port: params.dashboardPort,
  hostIp: '127.0.0.1',
  baseImage: params.baseImage,
});
app.synth();
`;

/** The replicated stack: two replicas on the swarm, host networking, bound to loopback. */
const SWARM_STACK = `
const { App, TerraformStack, TerraformVariable } = cdktf;
const app = new App();
const stack = new TerraformStack(app, params.stack);
new docker.DockerProvider(stack, 'docker', {});
const sessionKey = new TerraformVariable(stack, 'session_key', { type: 'string', sensitive: true });
const getCustomer = new mcp.Service(stack, 'get_customer', {
  description: 'Look up a customer',
  endpoint: { url: params.backendUrl + '/customers/{customer_id}', method: 'GET' },
  input: { customer_id: { type: 'string', required: true, pattern: '^C-[0-9]{4}$' } },
});
new mcp.Gateway(stack, 'agents', {
  services: [getCustomer],
  auth: { tokens: [{ id: 'swarm-bot', sha256: params.tokenSha256 }] },
  replicas: 2,
  sessionKey: sessionKey.stringValue,
  port: params.port,
  hostIp: '127.0.0.1',
  baseImage: params.baseImage,
  validateInput: params.validateInput,
});
app.synth();
`;

/** Two replicas sharing rate limits and ended sessions through a LimitStore beside them. */
const STORE_STACK = `
const { App, TerraformStack, TerraformVariable } = cdktf;
const app = new App();
const stack = new TerraformStack(app, params.stack);
new docker.DockerProvider(stack, 'docker', {});
const sessionKey = new TerraformVariable(stack, 'session_key', { type: 'string', sensitive: true });
const storePassword = new TerraformVariable(stack, 'store_password', { type: 'string', sensitive: true });
const store = new mcp.LimitStore(stack, 'Limits', {
  name: 'limits',
  image: params.storeImage,
  password: storePassword.stringValue,
  hostPort: params.storePort,
});
const getCustomer = new mcp.Service(stack, 'get_customer', {
  endpoint: { url: params.backendUrl + '/customers/{customer_id}', method: 'GET' },
  input: { customer_id: { type: 'string', required: true } },
});
new mcp.Gateway(stack, 'agents', {
  services: [getCustomer],
  auth: { tokens: [{ id: 'store-bot', sha256: params.tokenSha256 }] },
  replicas: 2,
  sessionKey: sessionKey.stringValue,
  port: params.port,
  hostIp: '127.0.0.1',
  baseImage: params.baseImage,
  rateLimits: [{ calls: params.calls, per: 'hour' }],
  store,
});
app.synth();
`;

/** The YAML manifest stack: one gateway and its backend, deployed and destroyed from a file. */
const MANIFEST_STACK = `
const { App, TerraformStack } = cdktf;
const app = new App();
const stack = new TerraformStack(app, params.stack);
new docker.DockerProvider(stack, 'docker', {});
new mcp.Manifest(stack, 'manifest', { path: require('path').join(__dirname, 'enmasse.yaml') });
app.synth();
`;

type Outcome = 'ok' | 'refused' | 'forwarded' | 'failure';
interface CallRecord {
  readonly at: number;
  readonly valid: boolean;
  readonly outcome: Outcome;
  readonly detail?: string;
}

const REFUSAL = 'Invalid value for `customer_id`: expected to match pattern ^C-[0-9]{4}$';

/**
 * Whether a tool result is the refusal: the default channel (`auto`) answers clients of 2025-11-25 and later, as
 * these are, with an `isError` result carrying the message.
 */
function isRefusalResult(result: Record<string, unknown>): boolean {
  const content = result.content as { type?: string; text?: string }[] | undefined;
  return result.isError === true && content?.length === 1 && content[0].text === REFUSAL;
}

/** One call: a valid id, or an invalid one (refused with validation on, forwarded with it off). */
async function oneCall(sdk: SdkConnection, valid: boolean, i: number): Promise<CallRecord> {
  const at = Date.now();
  const id = valid ? `C-${String(i % 10_000).padStart(4, '0')}` : `bad-${i}`;
  try {
    const result = await sdk.client.callTool({ name: 'get_customer', arguments: { customer_id: id } }, undefined, {
      timeout: 20_000,
    });
    if (!valid && isRefusalResult(result)) return { at, valid, outcome: 'refused' };
    if (result.isError === true)
      return { at, valid, outcome: 'failure', detail: JSON.stringify(result.content).slice(0, 300) };
    return { at, valid, outcome: valid ? 'ok' : 'forwarded' };
  } catch (err) {
    if (!valid && err instanceof McpError && err.code === -32602 && err.message.includes(REFUSAL))
      return { at, valid, outcome: 'refused' };
    return { at, valid, outcome: 'failure', detail: (err as Error).message.slice(0, 300) };
  }
}

/** One stateless (2026-07-28) call, classified as {@link oneCall} classifies a 2025 one. */
async function oneModernCall(url: string, token: string, valid: boolean, i: number): Promise<CallRecord> {
  const at = Date.now();
  const id = valid ? `C-${String(i % 10_000).padStart(4, '0')}` : `bad-${i}`;
  try {
    const body = modernRequest('tools/call', { name: 'get_customer', arguments: { customer_id: id } });
    const res = await postModern(url, body, token);
    const message = res.message as
      { result?: { isError?: boolean }; error?: { code: number; message: string } } | undefined;
    if (!valid && res.status === 200 && message?.result !== undefined && isRefusalResult(message.result))
      return { at, valid, outcome: 'refused' };
    if (res.status === 200 && message?.result !== undefined && message.result.isError !== true)
      return { at, valid, outcome: valid ? 'ok' : 'forwarded' };
    if (!valid && message?.error?.code === -32602 && message.error.message.includes(REFUSAL))
      return { at, valid, outcome: 'refused' };
    return { at, valid, outcome: 'failure', detail: `HTTP ${res.status} ${JSON.stringify(message).slice(0, 300)}` };
  } catch (err) {
    return { at, valid, outcome: 'failure', detail: (err as Error).message.slice(0, 300) };
  }
}

/** Loops of alternating valid / invalid calls, half through a 2025 session, half as 2026-07-28 requests. */
function startMixedLoad(sdk: SdkConnection, url: string, token: string, loops: number, paceMs: number) {
  const records: CallRecord[] = [];
  let stopped = false;
  let n = 0;
  const loop = async (modern: boolean): Promise<void> => {
    while (!stopped) {
      const i = n++;
      records.push(await (modern ? oneModernCall(url, token, i % 2 === 0, i) : oneCall(sdk, i % 2 === 0, i)));
      await new Promise((resolve) => setTimeout(resolve, paceMs));
    }
  };
  const started = Date.now();
  const done = Promise.all(Array.from({ length: loops }, (_, k) => loop(k % 2 === 1))).then(() => records);
  return {
    stop: () => {
      stopped = true;
    },
    done,
    started,
  };
}

/** `loops` loops of alternating valid / invalid calls, `paceMs` apart, until `stop()` or `maxCalls`. */
function startLoad(sdk: SdkConnection, loops: number, paceMs: number, maxCalls: number) {
  const records: CallRecord[] = [];
  let stopped = false;
  let n = 0;
  const loop = async (): Promise<void> => {
    while (!stopped && n < maxCalls) {
      const i = n++;
      records.push(await oneCall(sdk, i % 2 === 0, i));
      await new Promise((resolve) => setTimeout(resolve, paceMs));
    }
  };
  const done = Promise.all(Array.from({ length: loops }, loop)).then(() => records);
  return {
    stop: () => {
      stopped = true;
    },
    done,
  };
}

/** The text of a successful call's first content block, parsed. */
async function callResult(sdk: SdkConnection, id: string): Promise<Record<string, unknown>> {
  const result = await sdk.client.callTool({ name: 'get_customer', arguments: { customer_id: id } });
  assert.notEqual(result.isError, true, `call failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Record<string, unknown>;
}

async function inspect(name: string, format: string): Promise<string> {
  return docker(['inspect', '--format', format, name], 30_000);
}

describe('cdktf deploy with OpenTofu and the kreuzwerker/docker provider (real apply, destroy)', function () {
  if (requirement === undefined) {
    const missing = toolchainBuilt()
      ? 'a run that asks for it (CI=true or npm run test:deploy)'
      : 'OpenTofu and the Docker provider from `npm run toolchain`';
    it(`NOT RUN: needs ${missing}, a Docker daemon and a swarm it may initialize`);
    return;
  }
  const node = reusePortNode();
  const suffix = randomBytes(3).toString('hex');
  let env: Record<string, string> = {};
  let daemon: StartedDaemon | undefined;
  let swarm: SwarmHandle | undefined;
  let tmp = '';

  before(async function () {
    this.timeout(60 * 60_000);
    if ('missing' in node) throw new Error(`the deploy test (${requirement}) ${node.missing}`);
    env = toolchainEnv(log);
    try {
      daemon = await ensureDockerDaemon(log);
    } catch (err) {
      throw new Error(`the deploy test needs Docker (${requirement}): ${(err as Error).message}`);
    }
    const base = await command('bash', [BASE_IMAGE_SCRIPT, BASE_IMAGE], {
      timeoutMs: 300_000,
      env: { ...process.env, NODE_BIN: node.path },
    });
    assert.equal(base.code, 0, `${BASE_IMAGE_SCRIPT} failed: ${base.stderr.trim().slice(-1000)}`);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'deploy-test-'));
  });

  after(async function () {
    this.timeout(10 * 60_000);
    fs.rmSync(UPGRADE_MARKER, { force: true });
    if (swarm !== undefined) for (const problem of await swarm.leave()) log(`clean-up: ${problem}`);
    if (tmp !== '') fs.rmSync(tmp, { recursive: true, force: true });
    if (daemon !== undefined && dockerDaemonAnswers()) await daemon.stop();
    if (report.length > 0) {
      const table = ['| measure | value |', '|---|---|', ...report.map((r) => `| ${r.what} | ${r.value} |`)].join('\n');
      log(`deploy figures:\n${table}`);
      if (process.env.DEPLOY_REPORT !== undefined) fs.writeFileSync(process.env.DEPLOY_REPORT, `${table}\n`);
    }
  });

  describe('a single-container gateway with a built backend and a dashboard', function () {
    const bot = makeToken('deploy-bot');
    const backendKey = `key-${randomBytes(12).toString('hex')}`;
    const stack = `single-${suffix}`;
    const names = { gateway: `${stack}-support`, backend: `${stack}-get_customer`, dashboard: `${stack}-audit` };
    let app: CdktfApp;
    let port = 0;
    let dashboardPort = 0;
    let sdk: SdkConnection | undefined;
    let params: Record<string, unknown> = {};

    before(async function () {
      port = await freePort();
      dashboardPort = await freePort();
      const backendDir = path.join(tmp, 'backend');
      writeBackend(backendDir);
      app = new CdktfApp(path.join(tmp, 'single'), SINGLE_STACK, env);
      params = {
        stack,
        backendDir,
        baseImage: BASE_IMAGE,
        tokenSha256: bot.sha256,
        port,
        dashboardPort,
        validateInput: true,
      };
      app.params(params);
    });

    after(async function () {
      this.timeout(10 * 60_000);
      await sdk?.close();
      // a failed test may leave the stack up: take it down the user's way
      if (fs.existsSync(path.join(app.dir, 'cdktf.out'))) {
        const left = await dockerObjects('container');
        if (left.some((n) => n.startsWith(stack))) await app.destroy({ TF_VAR_backend_key: backendKey });
      }
    });

    it('deploys: returns only once the gateway, the backend and the dashboard are healthy; a valid call reaches the backend, an invalid one gets the exact refusal; a diff right after shows no change', async function () {
      this.timeout(20 * 60_000);
      const run = await app.deploy({ TF_VAR_backend_key: backendKey });
      assertOk(run, 'cdktf deploy');
      record('deploy from zero, single container (image builds included)', `${run.seconds.toFixed(1)} s`);
      for (const name of Object.values(names)) {
        assert.equal(
          await inspect(name, '{{.State.Health.Status}}'),
          'healthy',
          `${name} is healthy when deploy returns`,
        );
      }
      sdk = await connectSdkClient(`http://127.0.0.1:${port}/mcp`, bot.token, {
        name: 'deploy-test',
        version: '1.0.0',
      });
      const { tools } = await sdk.client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['get_customer'],
      );
      const answer = await callResult(sdk, 'C-0042');
      assert.equal(answer.id, 'C-0042');
      assert.equal(
        answer.key_sha256,
        createHash('sha256').update(backendKey).digest('hex'),
        'the backend got the secret header',
      );
      assert.equal((await oneCall(sdk, false, 1)).outcome, 'refused');

      const diff = await app.diff({ TF_VAR_backend_key: backendKey });
      assertOk(diff, 'cdktf diff');
      assert.match(diff.output, /No changes/, `a plan right after the deploy shows changes:\n${tail(diff)}`);
    });

    it('keeps secrets out of the environment (files in the state volume, 0400) and publishes every port on 127.0.0.1 only', async function () {
      this.timeout(2 * 60_000);
      const envVars = await inspect(names.gateway, '{{json .Config.Env}}');
      assert.ok(!envVars.includes(backendKey), 'the secret value is in the gateway environment');
      assert.ok(!envVars.includes('BACKEND_KEY'), `the secret is an environment variable: ${envVars}`);
      const listing = await docker([
        'exec',
        names.gateway,
        'ls',
        '-ln',
        '/var/lib/cdktf-mcp-gateway/secrets/BACKEND_KEY',
      ]);
      assert.match(listing, /^-r-------- +1 +1000 +1000 /, `secret file: ${listing}`);
      for (const p of [port, dashboardPort]) {
        assert.deepEqual(listeningAddresses(p), ['127.0.0.1'], `port ${p} listens on 127.0.0.1 only`);
      }
    });

    it('takes every config change in place under load: same container, zero failed calls, the session and the GET stream kept, list_changed sent, the new behaviour from the first call after', async function () {
      this.timeout(30 * 60_000);
      const url = `http://127.0.0.1:${port}/mcp`;
      const second = makeToken('second-bot');
      const sessionBefore = sdk!.transport.sessionId!;
      const imageBefore = await inspect(names.gateway, '{{.Image}}');
      const stream: OpenStream = await openStream(url, {
        accept: 'text/event-stream',
        authorization: `Bearer ${bot.token}`,
        'mcp-session-id': sessionBefore,
        'mcp-protocol-version': '2025-11-25',
      });
      assert.equal(stream.status, 200);
      let streamEnded = false;
      void stream.ended.then(() => {
        streamEnded = true;
      });
      const changes: { what: string; set: Record<string, unknown>; check: () => Promise<void>; tools?: boolean }[] = [
        {
          what: 'validate_input off',
          set: { validateInput: false },
          check: async () => assert.equal((await oneCall(sdk!, false, 8)).outcome, 'forwarded'),
        },
        {
          what: 'a tool added',
          set: { extraTool: true },
          tools: true,
          check: async () =>
            assert.deepEqual(
              (await sdk!.client.listTools()).tools.map((t) => t.name),
              ['get_customer', 'find_customer'],
            ),
        },
        {
          what: 'a token added',
          set: { extraTokenSha256: second.sha256 },
          check: async () => assert.equal((await oneModernCall(url, second.token, true, 3)).outcome, 'ok'),
        },
        {
          what: 'response controls changed',
          set: { redactKey: true },
          check: async () => assert.equal((await callResult(sdk!, 'C-0005')).key_sha256, '[redacted]'),
        },
        {
          what: 'a tool removed, validate_input on',
          set: { extraTool: false, validateInput: true },
          tools: true,
          check: async () => assert.equal((await oneCall(sdk!, false, 9)).outcome, 'refused'),
        },
      ];
      const containerId = await inspect(names.gateway, '{{.Id}}');
      // the one-shot hand-over's container has volumes of its own (the image declares them): gone with it
      const dangling = async (): Promise<string[]> =>
        (await docker(['volume', 'ls', '--quiet', '--filter', 'dangling=true'])).split('\n').filter(Boolean);
      const danglingBefore = await dangling();
      for (const change of changes) {
        const notified = (stream.text().match(/tools\/list_changed/g) ?? []).length;
        params = { ...params, ...change.set };
        app.params(params);
        const load = startMixedLoad(sdk!, url, bot.token, 4, 40);
        const run = await app.deploy({ TF_VAR_backend_key: backendKey });
        // the first calls after the deploy returns already see the new config
        await change.check();
        load.stop();
        const records = await load.done;
        assertOk(run, `cdktf deploy (${change.what})`);
        const failed = records.filter((r) => r.outcome === 'failure');
        const rate = records.length / ((Date.now() - load.started) / 1000);
        record(
          `in-place change, single container: ${change.what}`,
          `deploy ${run.seconds.toFixed(1)} s, ${records.length} calls (${rate.toFixed(0)}/s), ${failed.length} failed`,
        );
        assert.ok(rate >= 20, `the load ran at ${rate.toFixed(1)} calls/s`);
        assert.deepEqual(
          failed.map((f) => f.detail),
          [],
          `${change.what}: failed calls`,
        );
        assert.equal(
          await inspect(names.gateway, '{{.Id}}'),
          containerId,
          `${change.what}: the container was replaced`,
        );
        assert.equal(sdk!.transport.sessionId, sessionBefore);
        assert.equal(streamEnded, false, `${change.what}: the GET stream was ended`);
        if (change.tools === true) {
          await eventually(() => (stream.text().match(/tools\/list_changed/g) ?? []).length > notified, {
            timeoutMs: 5_000,
            what: `${change.what}: notifications/tools/list_changed on the GET stream`,
          });
        }
      }
      assert.doesNotMatch(
        (await docker(['logs', names.gateway], 30_000)).slice(-2000),
        /reload refused/,
        'no reload was refused',
      );
      assert.equal(await inspect(names.gateway, '{{.Image}}'), imageBefore, 'the gateway runs the same image');
      assert.deepEqual(
        (await dangling()).filter((v) => !danglingBefore.includes(v)),
        [],
        'volumes the hand-overs left behind',
      );
      stream.destroy();
    });

    it('shows a one-field toggle in its plan with the old and new value, never the gateway container or a secret; the lines are counted', async function () {
      this.timeout(10 * 60_000);
      app.params({ ...params, validateInput: false });
      const diff = await app.diff({ TF_VAR_backend_key: backendKey });
      // what a reviewer sees with OpenTofu's progress lines ("Refreshing state...") left out, as docs/deploy.md shows
      const concise = await app.diff({ TF_VAR_backend_key: backendKey, TF_CLI_ARGS_plan: '-concise' });
      app.params(params);
      keep(diff, 'cdktf diff (one field)');
      assertOk(diff, 'cdktf diff (one field)');
      const lines = diff.output.trimEnd().split('\n');
      record('lines of `cdktf diff` for a validate_input toggle, single container', String(lines.length));
      // what a reviewer reads: the change, not what the engine fills in around it
      assert.ok(lines.length <= 60, `${lines.length} lines of plan:\n${diff.output}`);
      assert.match(diff.output, /~ validate_input\s+= true -> false/, diff.output);
      assert.doesNotMatch(diff.output, /docker_container\.support_Resource_/, 'the plan touches the gateway container');
      assert.doesNotMatch(diff.output, /"validate_input"/, 'the plan prints the config file');
      assert.ok(!diff.output.includes(backendKey), 'a secret value in the plan');
      assertOk(concise, 'cdktf diff (one field, -concise)');
      assert.doesNotMatch(concise.output, /Refreshing state/);
      assert.match(concise.output, /~ validate_input\s+= true -> false/, concise.output);
      record(
        'lines of `cdktf diff` for a validate_input toggle, single container, with `TF_CLI_ARGS_plan=-concise`',
        String(concise.output.trimEnd().split('\n').length),
      );
    });

    it('fails a deploy the gateway refuses (a secret without a value) within 30 s with its reason, and the old config keeps serving with zero failed calls; the next good deploy succeeds', async function () {
      this.timeout(20 * 60_000);
      const url = `http://127.0.0.1:${port}/mcp`;
      const containerId = await inspect(names.gateway, '{{.Id}}');
      const load = startMixedLoad(sdk!, url, bot.token, 4, 40);
      const run = await app.deploy({ TF_VAR_backend_key: '' });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      load.stop();
      const records = await load.done;
      keep(run, 'cdktf deploy (empty secret)');
      assert.notEqual(run.code, 0, `cdktf deploy with an empty secret succeeded:\n${tail(run)}`);
      // the engine wraps long messages: compare with runs of white space as one space
      assert.match(
        run.output.replace(/\s+/g, ' '),
        /Gateway 'support' cannot start: cdktf-mcp-gateway: tools\[0\]\.backend\.headers\["X-Api-Key"\]: secret BACKEND_KEY is empty/,
        `the reason is not in the output:\n${tail(run)}`,
      );
      const failed = records.filter((r) => r.outcome === 'failure');
      record(
        'refused deploy (empty secret), single container',
        `${run.seconds.toFixed(1)} s, ${records.length} calls, ${failed.length} failed`,
      );
      assert.ok(run.seconds < 30, `the refused deploy took ${run.seconds.toFixed(1)} s`);
      assert.deepEqual(
        failed.map((f) => f.detail),
        [],
      );
      assert.equal(await inspect(names.gateway, '{{.Id}}'), containerId, 'the gateway container was touched');
      assert.equal((await callResult(sdk!, 'C-0011')).key_sha256, '[redacted]', 'the old config serves');
      // what the plan shows afterwards: the pending change, never the gateway container
      const pending = await app.diff({ TF_VAR_backend_key: backendKey });
      assertOk(pending, 'cdktf diff (after the refused deploy)');
      assert.doesNotMatch(pending.output, /docker_container\.support_Resource_/, pending.output);
      const again = await app.deploy({ TF_VAR_backend_key: backendKey });
      assertOk(again, 'cdktf deploy (secret fixed)');
      assert.equal((await oneCall(sdk!, true, 9)).outcome, 'ok', 'the session opened before still works');
    });

    it('replaces the container on an upgrade (a changed image), keeping 2025 sessions; the gap is measured', async function () {
      this.timeout(20 * 60_000);
      const containerId = await inspect(names.gateway, '{{.Id}}');
      const load = startLoad(sdk!, 1, 100, 100_000);
      fs.writeFileSync(UPGRADE_MARKER, `upgrade ${suffix}\n`);
      const run = await app.deploy({ TF_VAR_backend_key: backendKey });
      fs.rmSync(UPGRADE_MARKER, { force: true });
      load.stop();
      const records = await load.done;
      assertOk(run, 'cdktf deploy (upgrade, single container)');
      assert.notEqual(await inspect(names.gateway, '{{.Id}}'), containerId, 'an upgrade replaces the container');
      const failed = records.filter((r) => r.outcome === 'failure');
      const gap = failed.length === 0 ? 0 : failed.at(-1)!.at - failed[0].at;
      record('package upgrade, single container (image rebuilt, container replaced)', `${run.seconds.toFixed(1)} s`);
      record(
        'service gap of that upgrade (first to last failed call, 1 call / 100 ms)',
        `${(gap / 1000).toFixed(1)} s (${failed.length} of ${records.length} calls failed)`,
      );
      // the generated session key is kept in the state volume: the session opened before is still valid
      assert.equal((await oneCall(sdk!, true, 12)).outcome, 'ok', 'the session opened before the upgrade is valid');
    });

    it('destroys everything it created; a second deploy from zero works', async function () {
      this.timeout(30 * 60_000);
      await sdk?.close();
      sdk = undefined;
      const destroy = await app.destroy({ TF_VAR_backend_key: backendKey });
      assertOk(destroy, 'cdktf destroy');
      const leftovers = async () => ({
        containers: (await dockerObjects('container')).filter((n) => n.startsWith(stack)),
        volumes: (await dockerObjects('volume')).filter((n) => n.startsWith(stack)),
        networks: (await dockerObjects('network')).filter((n) => n.startsWith(stack)),
        images: (await imageTags()).filter((t) => t.includes(stack)),
      });
      assert.deepEqual(await leftovers(), { containers: [], volumes: [], networks: [], images: [] });

      app.params(params);
      const again = await app.deploy({ TF_VAR_backend_key: backendKey });
      assertOk(again, 'cdktf deploy after destroy');
      sdk = await connectSdkClient(`http://127.0.0.1:${port}/mcp`, bot.token, {
        name: 'deploy-test',
        version: '1.0.0',
      });
      assert.equal((await callResult(sdk, 'C-0001')).id, 'C-0001');
      await sdk.close();
      sdk = undefined;
      assertOk(await app.destroy({ TF_VAR_backend_key: backendKey }), 'cdktf destroy (second)');
      assert.deepEqual(await leftovers(), { containers: [], volumes: [], networks: [], images: [] });
    });
  });

  describe('a stack from a YAML manifest', function () {
    const bot = makeToken('manifest-bot');
    const stack = `manifest-${suffix}`;
    let app: CdktfApp;
    let backend: TestBackend;
    let port = 0;

    before(async function () {
      backend = await startBackend();
      port = await freePort();
      app = new CdktfApp(path.join(tmp, 'manifest'), MANIFEST_STACK, env);
      app.params({ stack });
      fs.writeFileSync(
        path.join(app.dir, 'enmasse.yaml'),
        [
          'services:',
          '  get_customer:',
          '    description: Look up a customer',
          `    endpoint: { url: "${backend.url.replace('127.0.0.1', 'localhost')}/customers/{customer_id}", method: GET }`,
          '    input:',
          '      customer_id: { type: string, required: true, pattern: "^C-[0-9]{4}$" }',
          'gateways:',
          '  desk:',
          '    services: [get_customer]',
          `    auth: { tokens: [{ id: manifest-bot, sha256: "${bot.sha256}" }] }`,
          `    port: ${port}`,
          '    replicas: 1',
          `    base_image: ${BASE_IMAGE}`,
          '    host_ip: 127.0.0.1',
          '',
        ].join('\n'),
      );
    });

    after(async () => {
      await backend?.close();
    });

    it('deploys, answers, and destroys', async function () {
      this.timeout(20 * 60_000);
      swarm = swarm ?? (await ensureSwarm(log));
      const run = await app.deploy();
      assertOk(run, 'cdktf deploy (manifest)');
      const sdk = await connectSdkClient(`http://127.0.0.1:${port}/mcp`, bot.token, { name: 'manifest', version: '1' });
      try {
        assert.equal((await oneCall(sdk, true, 1)).outcome, 'ok');
        assert.equal((await oneCall(sdk, false, 2)).outcome, 'refused');
      } finally {
        await sdk.close();
      }
      assertOk(await app.destroy(), 'cdktf destroy (manifest)');
      assert.deepEqual(
        (await dockerObjects('service')).filter((n) => n.startsWith(stack)),
        [],
      );
    });
  });

  describe('a replicated gateway (replicas: 2) on a single-node swarm', function () {
    const bot = makeToken('swarm-bot');
    const sessionKey = randomBytes(32).toString('base64');
    const stack = `swarm-${suffix}`;
    const serviceName = `${stack}-agents`;
    let app: CdktfApp;
    let backend: TestBackend;
    let port = 0;
    let sdk: SdkConnection | undefined;
    let params: Record<string, unknown> = {};
    const vars = { TF_VAR_session_key: sessionKey };
    let callsMade = 0;
    /** The state volumes of the reload-in-place experiment, one per task slot (not the stack's: it never made them). */
    const inPlaceVolume = `in-place-experiment-${suffix}`;

    async function configNames(): Promise<string[]> {
      return (await dockerObjects('config')).filter((n) => n.startsWith(serviceName));
    }

    async function auditRecords(): Promise<number> {
      const volume = `${serviceName}-audit`;
      const mount = await docker(['volume', 'inspect', '--format', '{{.Mountpoint}}', volume]);
      return fs
        .readdirSync(mount)
        .filter((f) => f.endsWith('.jsonl'))
        .reduce((n, f) => n + fs.readFileSync(path.join(mount, f), 'utf8').split('\n').filter(Boolean).length, 0);
    }

    /** Deploys with `next` while a steady load runs; returns the load's records and the deploy. */
    async function deployUnderLoad(next: Record<string, unknown>): Promise<{ run: CdktfRun; records: CallRecord[] }> {
      const load = startLoad(sdk!, 4, 150, 1_300);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      app.params(next);
      const run = await app.deploy(vars);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      load.stop();
      const records = await load.done;
      callsMade += records.length;
      return { run, records };
    }

    before(async function () {
      this.timeout(5 * 60_000);
      swarm = swarm ?? (await ensureSwarm(log));
      backend = await startBackend();
      port = await freePort();
      app = new CdktfApp(path.join(tmp, 'swarm'), SWARM_STACK, env);
      params = {
        stack,
        backendUrl: backend.url,
        baseImage: BASE_IMAGE,
        tokenSha256: bot.sha256,
        port,
        validateInput: true,
      };
      app.params(params);
    });

    after(async function () {
      this.timeout(10 * 60_000);
      await sdk?.close();
      if ((await dockerObjects('service')).includes(serviceName)) await app.destroy(vars);
      // slots 1 and 2, and the third the experiment's scale-up made
      for (const slot of [1, 2, 3]) {
        await docker(['volume', 'rm', '--force', `${inPlaceVolume}-${slot}`]).catch((err: Error) => log(err.message));
      }
      await backend?.close();
    });

    it('deploys two healthy replicas bound to 127.0.0.1; secrets are not named after their values', async function () {
      this.timeout(20 * 60_000);
      const run = await app.deploy(vars);
      assertOk(run, 'cdktf deploy (replicas)');
      record('deploy from zero, 2 replicas', `${run.seconds.toFixed(1)} s`);
      const tasks = await docker([
        'service',
        'ps',
        '--filter',
        'desired-state=running',
        '--format',
        '{{.CurrentState}}',
        serviceName,
      ]);
      assert.equal(tasks.split('\n').filter((t) => t.startsWith('Running')).length, 2, `tasks: ${tasks}`);
      assert.deepEqual(listeningAddresses(port), ['127.0.0.1'], 'replicas bind 127.0.0.1 only');
      const secrets = (await dockerObjects('secret')).filter((n) => n.startsWith(stack));
      assert.equal(secrets.length, 1, `secrets: ${secrets.join(', ')}`);
      const valueHash = createHash('sha256').update(sessionKey).digest('hex');
      for (const name of secrets) {
        const tag = name.slice(name.lastIndexOf('-') + 1);
        assert.ok(!valueHash.includes(tag), `secret ${name} is named after a hash of its value`);
      }
      sdk = await connectSdkClient(`http://127.0.0.1:${port}/mcp`, bot.token, { name: 'swarm-test', version: '1.0.0' });
      assert.equal((await oneCall(sdk, true, 1)).outcome, 'ok');
      assert.equal((await oneCall(sdk, false, 2)).outcome, 'refused');
      callsMade += 2;
      const diff = await app.diff(vars);
      assertOk(diff, 'cdktf diff (replicas)');
      assert.match(diff.output, /No changes/, `a plan right after the deploy shows changes:\n${tail(diff)}`);
    });

    it('toggles validate_input under load: zero failed calls, the session kept, deploy returns after convergence, the old config is gone, audit records equal calls', async function () {
      this.timeout(20 * 60_000);
      const sessionBefore = sdk!.transport.sessionId;
      const configsBefore = await configNames();
      assert.equal(configsBefore.length, 1);
      const { run, records } = await deployUnderLoad({ ...params, validateInput: false });
      assertOk(run, 'cdktf deploy (replicas, validate_input off)');
      const failures = records.filter((r) => r.outcome === 'failure');
      record('redeploy, 2 replicas (rolling update, config only)', `${run.seconds.toFixed(1)} s`);
      record('calls during that rolling update / failed', `${records.length} / ${failures.length}`);
      assert.deepEqual(
        failures.map((f) => f.detail),
        [],
      );
      // converge_config: when deploy returns, every task Swarm keeps runs the new config (read in each task); a
      // replaced task may still be finishing its calls after SIGTERM, and takes no new connection meanwhile
      const { serving: tasks, draining } = await tasksByDesiredState(serviceName);
      assert.equal(tasks.length, 2, `tasks: ${JSON.stringify(tasks)}, draining: ${JSON.stringify(draining)}`);
      assert.ok(draining.length <= 1, `draining: ${JSON.stringify(draining)}`);
      for (const task of tasks) {
        const served = JSON.parse(
          await docker(['exec', task.container, 'cat', '/etc/cdktf-mcp-gateway/gateway.json'], 30_000),
        ) as { gateway: { validate_input: boolean } };
        assert.equal(served.gateway.validate_input, false, `task ${task.slot} serves the old config`);
      }
      record(
        'time from `cdktf deploy` to the new config on every replica (rolling update)',
        `${run.seconds.toFixed(1)} s`,
      );
      // the roll alone, as OpenTofu timed its terraform_data (the rest of the deploy is the engine's refresh and plan)
      const roll = /ConfigRoll[^\n]*Creation complete after (?:(\d+)m)?(\d+)s/.exec(run.output);
      assert.ok(roll !== null, `no ConfigRoll in the deploy's output:\n${tail(run)}`);
      record('the rolling update alone (ConfigRoll), 2 replicas', `${Number(roll[1] ?? 0) * 60 + Number(roll[2])} s`);
      assert.equal((await oneCall(sdk!, false, 3)).outcome, 'forwarded', 'every replica has validate_input off');
      assert.equal((await oneCall(sdk!, false, 5)).outcome, 'forwarded', 'every replica has validate_input off');
      callsMade += 2;
      assert.equal(sdk!.transport.sessionId, sessionBefore);
      const configsAfter = await configNames();
      assert.equal(configsAfter.length, 1, `configs after: ${configsAfter.join(', ')}`);
      assert.notEqual(configsAfter[0], configsBefore[0], 'the old docker_config is gone');
      await eventually(async () => (await auditRecords()) === callsMade, {
        timeoutMs: 30_000,
        intervalMs: 500,
        what: `${callsMade} audit records`,
      });
    });

    it('shows a one-field toggle of a replicated gateway in its plan with the old and new value and no secret; the lines are counted', async function () {
      this.timeout(10 * 60_000);
      // the test before deployed validate_input off
      app.params({ ...params, validateInput: true });
      const diff = await app.diff(vars);
      keep(diff, 'cdktf diff (one field, replicas)');
      assertOk(diff, 'cdktf diff (one field, replicas)');
      const lines = diff.output.trimEnd().split('\n');
      record('lines of `cdktf diff` for a validate_input toggle, 2 replicas', String(lines.length));
      assert.ok(lines.length <= 60, `${lines.length} lines of plan:\n${diff.output}`);
      assert.match(diff.output, /~ validate_input\s+= false -> true/, diff.output);
      // the service keeps its spec: the config roll moves it to the new config
      assert.doesNotMatch(diff.output, /docker_service\.agents_[^\n]*will be updated/, diff.output);
      assert.doesNotMatch(diff.output, /"validate_input"/, 'the plan prints the config file');
      assert.ok(!diff.output.includes(sessionKey), 'a secret value in the plan');
      const concise = await app.diff({ ...vars, TF_CLI_ARGS_plan: '-concise' });
      assertOk(concise, 'cdktf diff (one field, replicas, -concise)');
      assert.match(concise.output, /~ validate_input\s+= false -> true/, concise.output);
      record(
        'lines of `cdktf diff` for a validate_input toggle, 2 replicas, with `TF_CLI_ARGS_plan=-concise`',
        String(concise.output.trimEnd().split('\n').length),
      );
    });

    it("fails a deploy the replicas' check refuses (a session key too short) with its reason: no new config, the replicas untouched, zero failed calls", async function () {
      this.timeout(20 * 60_000);
      const configsBefore = await configNames();
      const tasksBefore = (await tasksByDesiredState(serviceName)).serving.map((t) => t.container).sort();
      const load = startLoad(sdk!, 4, 150, 100_000);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      // a config change too: only a checked config is ever created
      app.params({ ...params, validateInput: true });
      const run = await app.deploy({ TF_VAR_session_key: 'too-short' });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      load.stop();
      const records = await load.done;
      callsMade += records.length;
      keep(run, 'cdktf deploy (replicas, session key too short)');
      assert.notEqual(run.code, 0, `the deploy succeeded:\n${tail(run)}`);
      assert.match(
        run.output.replace(/\s+/g, ' '),
        /Gateway 'agents' cannot start: cdktf-mcp-gateway: session key from session_key_file \/run\/secrets\/cdktf-mcp-gateway-session-key: not hex or base64 text/,
        `the reason is not in the output:\n${tail(run)}`,
      );
      const failed = records.filter((r) => r.outcome === 'failure');
      record(
        'refused deploy (session key too short), 2 replicas',
        `${run.seconds.toFixed(1)} s, ${records.length} calls, ${failed.length} failed`,
      );
      assert.ok(run.seconds < 30, `the refused deploy took ${run.seconds.toFixed(1)} s`);
      assert.deepEqual(
        failed.map((f) => f.detail),
        [],
      );
      assert.deepEqual(await configNames(), configsBefore, 'a config was created');
      const tasksAfter = (await tasksByDesiredState(serviceName)).serving.map((t) => t.container).sort();
      assert.deepEqual(tasksAfter, tasksBefore, 'the replicas were replaced');
      assert.equal((await oneCall(sdk!, false, 7)).outcome, 'forwarded', 'the old config (validate_input off) serves');
      callsMade += 1;
      // what the plan shows afterwards: the pending config change (the output kept what still serves), never the
      // service
      const pending = await app.diff(vars);
      keep(pending, 'cdktf diff (replicas, after the refused deploy)');
      assertOk(pending, 'cdktf diff (replicas, after the refused deploy)');
      assert.doesNotMatch(pending.output, /docker_service\.agents_[^\n]*will be/, pending.output);
      assert.match(pending.output, /~ validate_input\s+= false -> true/, pending.output);
      app.params({ ...params, validateInput: false });
      const again = await app.deploy(vars);
      assertOk(again, 'cdktf deploy (replicas, session key as before)');
      assert.equal((await oneCall(sdk!, true, 8)).outcome, 'ok', 'the session opened before still works');
      callsMade += 1;
    });

    it("keeps answering while one replica's task is stopped (SIGTERM: hand-over and drain)", async function () {
      this.timeout(5 * 60_000);
      const load = startLoad(sdk!, 4, 150, 1_300);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const [victim] = await runningTasks(serviceName);
      await docker(['stop', '--time', '30', victim.container], 60_000);
      await eventually(async () => (await healthyTasks(serviceName)) === 2, {
        timeoutMs: 120_000,
        intervalMs: 1_000,
        what: 'Swarm to replace the stopped task',
      });
      load.stop();
      const records = await load.done;
      callsMade += records.length;
      assert.deepEqual(
        records.filter((r) => r.outcome === 'failure').map((f) => f.detail),
        [],
      );
      assert.ok(records.length > 0);
    });

    it('upgrades the package (a changed image context): the new image is built before the old one goes, and no call fails', async function () {
      this.timeout(20 * 60_000);
      const before = (await imageTags()).filter((t) => t.includes(`cdktf-mcp-gateway-${stack}`));
      assert.equal(before.length, 1, `gateway images: ${before.join(', ')}`);
      fs.writeFileSync(UPGRADE_MARKER, `upgrade ${suffix}\n`);
      const { run, records } = await deployUnderLoad({ ...params, validateInput: false });
      fs.rmSync(UPGRADE_MARKER, { force: true });
      assertOk(run, 'cdktf deploy (upgrade)');
      const failures = records.filter((r) => r.outcome === 'failure');
      record('package upgrade, 2 replicas (image rebuilt, rolling update)', `${run.seconds.toFixed(1)} s`);
      record('calls during that upgrade / failed', `${records.length} / ${failures.length}`);
      assert.deepEqual(
        failures.map((f) => f.detail),
        [],
      );
      const after = (await imageTags()).filter((t) => t.includes(`cdktf-mcp-gateway-${stack}`));
      assert.equal(after.length, 1, `gateway images after: ${after.join(', ')}`);
      assert.notEqual(after[0], before[0], 'a new image');
      const created = run.output.search(/McpGatewayImage[^\n]*Creation complete/);
      const destroyed = run.output.search(/McpGatewayImage[^\n]*Destruction complete/);
      assert.ok(
        created >= 0 && destroyed > created,
        `the new image is built before the old one is removed:\n${tail(run)}`,
      );
    });

    // The other way a config change could reach replicas: each replica serving from a state volume of its own, as
    // a single container does, and the deploy's one-shot hand-over run for each. Built here by hand on the deployed
    // service, to measure it beside the rolling update; the product keeps the rolling update (docs/deploy.md).
    it('measures a reload in place of both replicas beside the rolling update, under load with zero failed calls', async function () {
      this.timeout(20 * 60_000);
      const spec = JSON.parse(await docker(['service', 'inspect', '--format', '{{json .Spec}}', serviceName])) as {
        TaskTemplate: { ContainerSpec: { Image: string; Args: string[]; Configs: { ConfigName: string }[] } };
      };
      const image = spec.TaskTemplate.ContainerSpec.Image;
      const data = JSON.parse(
        await docker([
          'config',
          'inspect',
          '--format',
          '{{json .Spec.Data}}',
          spec.TaskTemplate.ContainerSpec.Configs[0].ConfigName,
        ]),
      ) as string;
      const current = JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as {
        gateway: { validate_input: boolean; session_key_file: string };
      };
      const next = { ...current, gateway: { ...current.gateway, validate_input: !current.gateway.validate_input } };
      const dir = path.join(tmp, 'in-place');
      fs.mkdirSync(dir, { mode: 0o755 });
      fs.chmodSync(dir, 0o755);
      fs.writeFileSync(path.join(dir, 'current.json'), JSON.stringify(current), { mode: 0o444 });
      fs.writeFileSync(path.join(dir, 'next.json'), JSON.stringify(next), { mode: 0o444 });
      const keyFile = path.join(dir, 'session-key');
      fs.writeFileSync(keyFile, sessionKey, { mode: 0o400 });
      fs.chownSync(keyFile, 1000, 1000);
      const handOver = (slot: number, file: string): Promise<string> =>
        docker(
          [
            'run',
            '--rm',
            '--network',
            'none',
            '--user',
            '1000:1000',
            '--volume',
            `${inPlaceVolume}-${slot}:${STATE_DIR}`,
            '--volume',
            `${dir}:/hand-over:ro`,
            '--volume',
            `${keyFile}:${current.gateway.session_key_file}:ro`,
            image,
            'apply-config',
            '--config',
            `/hand-over/${file}`,
            '--state-dir',
            STATE_DIR,
          ],
          120_000,
        );
      // each slot's volume holds the served config before the service mounts it (not measured)
      for (const slot of [1, 2]) assert.match(await handOver(slot, 'current.json'), /stored/);
      await docker(
        [
          'service',
          'update',
          '--detach=false',
          '--quiet',
          '--mount-add',
          `type=volume,source=${inPlaceVolume}-{{.Task.Slot}},target=${STATE_DIR}`,
          '--args',
          `serve --config ${STATE_CONFIG_FILE} --watch --status-file ${STATE_STATUS_FILE} --port ${port} --host 127.0.0.1`,
          serviceName,
        ],
        5 * 60_000,
      );
      await eventually(async () => (await healthyTasks(serviceName)) === 2, {
        timeoutMs: 120_000,
        intervalMs: 1_000,
        what: 'both replicas healthy, each on its state volume',
      });
      const load = startLoad(sdk!, 4, 150, 100_000);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const start = Date.now();
      const outcomes = await Promise.all([1, 2].map((slot) => handOver(slot, 'next.json')));
      const seconds = (Date.now() - start) / 1000;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      load.stop();
      const records = await load.done;
      callsMade += records.length;
      for (const out of outcomes) assert.match(out, /serving/, 'a replica did not report the new config');
      const failed = records.filter((r) => r.outcome === 'failure');
      record(
        'reload in place of 2 replicas (experiment, both hand-overs at once): time to the new config on every replica',
        `${seconds.toFixed(1)} s`,
      );
      record('calls during that reload in place / failed', `${records.length} / ${failed.length}`);
      assert.deepEqual(
        failed.map((f) => f.detail),
        [],
      );
      const expected = next.gateway.validate_input ? 'refused' : 'forwarded';
      for (const i of [11, 12, 13, 14]) assert.equal((await oneCall(sdk!, false, i)).outcome, expected);
      callsMade += 4;
      // Why the product keeps the rolling update: a task Swarm starts later (a scale-up here; a node lost, elsewhere)
      // finds no config of its own in its slot's volume, on a node the hand-over never reached, and cannot start.
      await docker(['service', 'scale', '--detach', `${serviceName}=3`]);
      const third = await eventually(
        async () => {
          const tasks = await docker(['service', 'ps', '--no-trunc', '--format', '{{.Name}} {{.Error}}', serviceName]);
          return tasks.split('\n').find((t) => t.startsWith(`${serviceName}.3 `) && t.includes('exit')) ?? false;
        },
        { timeoutMs: 120_000, intervalMs: 1_000, what: "the third replica's start to fail" },
      );
      record(
        'the same after a scale-up to 3 replicas: the new task',
        `fails to start (${third.slice(third.indexOf(' ') + 1)})`,
      );
      // back to the spec the deploy made (the state volumes stay until the service is gone)
      await docker(
        [
          'service',
          'update',
          '--detach=false',
          '--quiet',
          '--replicas',
          '2',
          '--mount-rm',
          STATE_DIR,
          '--args',
          spec.TaskTemplate.ContainerSpec.Args.join(' '),
          serviceName,
        ],
        5 * 60_000,
      );
      assert.equal(await healthyTasks(serviceName), 2);
    });

    it('destroys every service, config, secret, volume and image of the stack', async function () {
      this.timeout(10 * 60_000);
      await sdk?.close();
      sdk = undefined;
      assertOk(await app.destroy(vars), 'cdktf destroy (replicas)');
      const left = {
        services: (await dockerObjects('service')).filter((n) => n.startsWith(stack)),
        configs: (await dockerObjects('config')).filter((n) => n.startsWith(stack)),
        secrets: (await dockerObjects('secret')).filter((n) => n.startsWith(stack)),
        volumes: (await dockerObjects('volume')).filter((n) => n.startsWith(stack)),
        containers: (await dockerObjects('container')).filter((n) => n.startsWith(stack)),
        images: (await imageTags()).filter((t) => t.includes(stack)),
      };
      assert.deepEqual(left, { services: [], configs: [], secrets: [], volumes: [], containers: [], images: [] });
    });
  });
  describe('a replicated gateway sharing limits and ended sessions through a LimitStore', function () {
    const bot = makeToken('store-bot');
    const stack = `store-${suffix}`;
    const serviceName = `${stack}-agents`;
    const calls = 8;
    const vars = {
      TF_VAR_session_key: randomBytes(32).toString('base64'),
      TF_VAR_store_password: randomBytes(18).toString('base64url'),
    };
    let app: CdktfApp;
    let backend: TestBackend;
    let port = 0;
    let storePort = 0;

    /** One request on a connection of its own, so that SO_REUSEPORT spreads the requests over both replicas. */
    function fresh(
      method: string,
      body: unknown,
      headers: Record<string, string>,
    ): Promise<{ status: number; text: string }> {
      return new Promise((resolve, reject) => {
        const data = body === undefined ? '' : JSON.stringify(body);
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            path: '/mcp',
            method,
            agent: false,
            headers: {
              connection: 'close',
              authorization: `Bearer ${bot.token}`,
              accept: 'application/json, text/event-stream',
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(data),
              ...headers,
            },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (text += c));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                text,
                ...(res.headers['mcp-session-id'] ? { session: res.headers['mcp-session-id'] } : {}),
              }),
            );
          },
        );
        req.on('error', reject);
        req.end(data);
      });
    }

    /** Audit records per replica: each appends to a stream of its own in the store (a gateway with a store). */
    async function auditByReplica(): Promise<number[]> {
      const client = new Redis(`redis://127.0.0.1:${storePort}`, { password: vars.TF_VAR_store_password });
      try {
        const index = 'cdktf-mcp-gateway:agents:audit';
        const streams = Object.keys(await client.hgetall(index));
        return await Promise.all(streams.map((stream) => client.xlen(stream)));
      } finally {
        client.disconnect();
      }
    }

    before(async function () {
      this.timeout(5 * 60_000);
      swarm = swarm ?? (await ensureSwarm(log));
      const image = await command('bash', [STORE_IMAGE_SCRIPT, STORE_IMAGE], { timeoutMs: 120_000 });
      assert.equal(image.code, 0, `${STORE_IMAGE_SCRIPT} failed: ${image.stderr.trim().slice(-1000)}`);
      backend = await startBackend();
      port = await freePort();
      storePort = await freePort();
      app = new CdktfApp(path.join(tmp, 'store'), STORE_STACK, env);
      app.params({
        stack,
        backendUrl: backend.url,
        baseImage: BASE_IMAGE,
        storeImage: STORE_IMAGE,
        storePort,
        tokenSha256: bot.sha256,
        port,
        calls,
      });
    });

    after(async function () {
      this.timeout(10 * 60_000);
      if ((await dockerObjects('service')).includes(serviceName)) await app.destroy(vars);
      await backend?.close();
    });

    it('deploys; the replicas admit exactly the limit together, refuse the next calls with -32023, and a DELETE on one ends the session on both', async function () {
      this.timeout(20 * 60_000);
      const run = await app.deploy(vars);
      assertOk(run, 'cdktf deploy (replicas with a LimitStore)');
      record('deploy from zero, 2 replicas and a LimitStore', `${run.seconds.toFixed(1)} s`);
      await eventually(async () => assert.equal(await healthyTasks(serviceName), 2), { timeoutMs: 60_000 });
      const outcomes = { admitted: 0, limited: 0, other: [] as string[] };
      for (let i = 0; i < 3 * calls; i++) {
        const body = modernRequest('tools/call', { name: 'get_customer', arguments: { customer_id: `C-${i}` } }, i);
        const res = await fresh('POST', body, {
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'get_customer',
        });
        const message = JSON.parse(res.text);
        if (res.status === 200 && message.result?.isError !== true) outcomes.admitted++;
        else if (
          res.status === 429 &&
          message.error?.code === -32023 &&
          message.error.message === `Rate limit reached: ${calls} calls per hour`
        )
          outcomes.limited++;
        else outcomes.other.push(`HTTP ${res.status} ${res.text.slice(0, 200)}`);
      }
      assert.deepEqual(outcomes, { admitted: calls, limited: 2 * calls, other: [] });
      const perReplica = await eventually(async () => {
        const counts = await auditByReplica();
        assert.equal(
          counts.reduce((a, b) => a + b, 0),
          3 * calls,
        );
        return counts;
      });
      record('calls answered per replica (limit shared by both)', perReplica.join(' + '));
      assert.equal(
        perReplica.filter((n) => n > 0).length,
        2,
        `one replica answered every call: ${perReplica.join(', ')}`,
      );

      const opened = (await fresh('POST', initializeRequest('2025-11-25'), {})) as { status: number; session?: string };
      assert.ok(opened.session, 'initialize gave no session');
      const ping = () =>
        fresh(
          'POST',
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          { 'mcp-session-id': opened.session!, 'mcp-protocol-version': '2025-11-25' },
        );
      assert.deepEqual(
        new Set(await Promise.all(Array.from({ length: 10 }, ping)).then((r) => r.map((x) => x.status))),
        new Set([200]),
      );
      const deleted = await fresh('DELETE', undefined, {
        'mcp-session-id': opened.session!,
        'mcp-protocol-version': '2025-11-25',
      });
      assert.equal(deleted.status, 200);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const after = await Promise.all(Array.from({ length: 10 }, ping));
      assert.deepEqual(
        new Set(after.map((x) => x.status)),
        new Set([404]),
        'a replica still honoured the ended session 100 ms after the DELETE',
      );
    });

    it('destroys the gateway, the store and their volumes', async function () {
      this.timeout(10 * 60_000);
      assertOk(await app.destroy(vars), 'cdktf destroy (replicas with a LimitStore)');
      const left = {
        services: (await dockerObjects('service')).filter((n) => n.startsWith(stack)),
        volumes: (await dockerObjects('volume')).filter((n) => n.startsWith(stack)),
        containers: (await dockerObjects('container')).filter((n) => n.startsWith(stack)),
      };
      assert.deepEqual(left, { services: [], volumes: [], containers: [] });
    });
  });
});
