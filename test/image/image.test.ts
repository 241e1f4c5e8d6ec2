/**
 * The gateway image, end to end: synthesize the support-desk example, build the image from the context its
 * `docker_image` names, run it with the config its `docker_container` uploads, and check what docs/image.md promises
 * (health, non-root, refusal with the exact message, a forwarded call, the audit log in its volume, a clean stop).
 *
 * Runs under CI (CI=true: Docker is then required and installed/started if missing), with `npm run test:image`,
 * or when a Docker daemon already answers; otherwise it shows as a pending test saying why it did not run.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { eventually, GiveUp } from '../helpers/eventually';
import { startBackend, type TestBackend } from '../helpers/backend';
import { openSession, type McpHttpResponse, type McpSession } from '../helpers/mcp';
import { makeToken, tokenEntry } from '../helpers/tokens';
import type { GatewayConfig } from '../../src/config';
import {
  command,
  docker,
  dockerDaemonAnswers,
  ensureDockerDaemon,
  freePort,
  imageTestRequirement,
  type StartedDaemon,
} from './docker';
import { AUDIT_LOG_DIR, GATEWAY_CONFIG_FILE } from '../../src/config';
import { listFiles, readSynthesizedGateway, type SynthesizedGateway } from './synthesized-gateway';
import { reusePortNode } from '../helpers/reuse-port-node';

const REPO = path.resolve(__dirname, '../..');
const EXAMPLE_DIR = path.join(REPO, 'examples', 'support-desk');
/** The project's own base-image script (no file outside the repository is needed). */
const BASE_IMAGE_SCRIPT = path.join(REPO, 'scripts', 'node-base-image.sh');
/** No registry of images is reachable here: every build starts from this local image. */
const BASE_IMAGE = 'local/node-base:latest';
/** The backend's base: a Node that strips TypeScript types (22.18 or later), as the deploy tests use. */
const BACKEND_BASE_IMAGE = 'local/node-base:node22';
const GATEWAY = 'agents';
const AUDIT_DIR = AUDIT_LOG_DIR;
/** Calls left in flight when `docker stop` is sent; each must be answered and audited. */
const IN_FLIGHT_CALLS = 4;

const requirement = imageTestRequirement();
const daemonUp = requirement === undefined && dockerDaemonAnswers();

function log(line: string): void {
  process.stdout.write(`      [image] ${line}\n`);
}

/**
 * The images a legacy-builder `docker build` created (one per step, the dependency stage's last one is left
 * dangling when the tagged image is removed), read from its output: not the FROM images, not cache hits.
 * BuildKit creates none of these and prints none.
 */
function createdImageIds(buildOutput: string): string[] {
  const ids: string[] = [];
  const lines = buildOutput.split('\n');
  for (let i = 1; i < lines.length; i++) {
    const id = /^ ---> ([0-9a-f]{12})$/.exec(lines[i].trimEnd())?.[1];
    const previous = lines[i - 1].trim();
    if (id === undefined || previous === '---> Using cache' || /^Step \d+\/\d+ : FROM /i.test(previous)) continue;
    ids.push(id);
  }
  return ids;
}

describe('gateway image (Docker)', function () {
  if (requirement === undefined && !daemonUp) {
    it(
      'NOT RUN: no Docker daemon answers and CI is not set (run `npm run test:image` or `CI=true npm test`, which install and start Docker)',
    );
    return;
  }

  const unique = `${process.pid}-${Date.now().toString(36)}`;
  const tag = `cdktf-mcp-gateway-image-test:${unique}`;
  const containerName = `cdktf-mcp-gateway-image-test-${unique}`;
  const volume = `cdktf-mcp-gateway-image-test-audit-${unique}`;
  const bot = makeToken('image-test');
  let daemon: StartedDaemon | undefined;
  let tmp = '';
  let synthesized: SynthesizedGateway;
  let backend: TestBackend;
  let port = 0;
  let url = '';
  let imageBuilt = false;
  let builtIds: string[] = [];
  let containerStarted = false;
  let volumeCreated = false;
  let session: McpSession;
  let outdir = '';
  const backendTag = `cdktf-mcp-gateway-image-test-backend:${unique}`;
  let backendBuilt = false;
  let backendContainer = '';
  /** The host's volumes and untagged images before the test: the test must leave no other behind. */
  let hostBefore: { volumes: Set<string>; untagged: Set<string> } | undefined;

  async function hostLeftovers(): Promise<{ volumes: Set<string>; untagged: Set<string> }> {
    const volumes = await docker(['volume', 'ls', '-q']);
    const untagged = await docker(['images', '-q', '--filter', 'dangling=true']);
    const set = (text: string) => new Set(text.split('\n').filter((l) => l.trim() !== ''));
    return { volumes: set(volumes), untagged: set(untagged) };
  }

  async function containerLogs(): Promise<string> {
    const result = await command('docker', ['logs', '--tail', '40', containerName], { timeoutMs: 10_000 });
    return `${result.stdout}${result.stderr}`.trim();
  }

  async function auditRecords(): Promise<Record<string, unknown>[]> {
    const text = await docker(
      ['run', '--rm', '--network', 'none', '-v', `${volume}:/a:ro`, BASE_IMAGE, 'cat', '/a/audit.jsonl'],
      30_000,
    );
    return text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  before(async function () {
    this.timeout(20 * 60_000);
    try {
      daemon = await ensureDockerDaemon(log);
    } catch (err) {
      throw new Error(
        `the gateway image test needs Docker (${requirement ?? 'daemon vanished'}): ${(err as Error).message}`,
      );
    }
    hostBefore = await hostLeftovers();
    const base = await command('bash', [BASE_IMAGE_SCRIPT], { timeoutMs: 300_000 });
    assert.equal(base.code, 0, `${BASE_IMAGE_SCRIPT} failed: ${base.stderr.trim().slice(-1000)}`);

    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'image-test-'));
    outdir = path.join(tmp, 'cdktf.out');
    const synth = await command(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', path.join(EXAMPLE_DIR, 'main.ts')],
      {
        cwd: EXAMPLE_DIR,
        env: {
          ...process.env,
          CDKTF_OUTDIR: outdir,
          CHECKPOINT_DISABLE: '1',
          TS_NODE_PROJECT: path.join(REPO, 'tsconfig.json'),
        },
        timeoutMs: 120_000,
      },
    );
    assert.equal(synth.code, 0, `synthesizing examples/support-desk failed: ${synth.stderr.trim().slice(-2000)}`);
    synthesized = readSynthesizedGateway(outdir, GATEWAY);

    const started = Date.now();
    const build = await command(
      'docker',
      [
        'build',
        '--force-rm',
        '--network',
        'host',
        '--build-arg',
        `BASE_IMAGE=${BASE_IMAGE}`,
        '-t',
        tag,
        synthesized.contextDir,
      ],
      { timeoutMs: 600_000 },
    );
    builtIds = createdImageIds(build.stdout);
    imageBuilt = build.code === 0;
    assert.equal(build.code, 0, `docker build failed: ${`${build.stdout}${build.stderr}`.trim().slice(-3000)}`);
    const buildSeconds = (Date.now() - started) / 1000;
    const sizeBytes = Number(await docker(['image', 'inspect', '--format', '{{.Size}}', tag]));
    log(`built ${tag}: ${(sizeBytes / 1e6).toFixed(1)} MB in ${buildSeconds.toFixed(1)} s (base ${BASE_IMAGE})`);

    backend = await startBackend();
    port = await freePort();
    url = `http://127.0.0.1:${port}/mcp`;
    // The deployment's backends and tokens are replaced by a local backend and a token this test knows; the
    // gateway runs on loopback, so the loopback defaults replace the deployment's host/origin allowlists.
    const config: GatewayConfig = {
      ...synthesized.config,
      gateway: {
        ...synthesized.config.gateway,
        auth: { tokens: [tokenEntry(bot)] },
        allowed_hosts: undefined,
        allowed_origins: undefined,
      },
      // the local backend echoes the request, which is not the example's declared output: the outputs go too
      tools: synthesized.config.tools.map(({ output_schema: _output, response: _response, ...t }) => ({
        ...t,
        backend: { ...t.backend, url: t.backend.url.replace(/^https?:\/\/[^/]+/, backend.url) },
      })),
    };
    const configFile = path.join(tmp, 'gateway.json');
    fs.writeFileSync(configFile, JSON.stringify(config), { mode: 0o644 });

    await docker(['volume', 'create', volume]);
    volumeCreated = true;
    await docker([
      'run',
      '-d',
      '--name',
      containerName,
      '--network',
      'host',
      '-v',
      `${configFile}:${GATEWAY_CONFIG_FILE}:ro`,
      '-v',
      `${volume}:${AUDIT_DIR}`,
      '--health-interval=1s',
      '--health-start-period=1s',
      tag,
      'serve',
      '--config',
      GATEWAY_CONFIG_FILE,
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
    ]);
    containerStarted = true;
    await eventually(
      async () => {
        const state = await docker(['inspect', '--format', '{{.State.Status}}', containerName]);
        if (state !== 'running') throw new GiveUp(`the gateway container is ${state}`);
        const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2_000) });
        return res.status === 200;
      },
      { timeoutMs: 30_000, intervalMs: 250, what: '/healthz to answer' },
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}\n--- container log ---\n${await containerLogs()}`);
    });
    session = await openSession(url, { token: bot.token, protocolVersion: '2025-06-18' });
  });

  after(async function () {
    this.timeout(180_000);
    const problems: string[] = [];
    const attempt = async (what: string, fn: () => Promise<unknown>) => {
      try {
        await fn();
      } catch (err) {
        problems.push(`${what}: ${(err as Error).message}`);
      }
    };
    // -v: the image declares its state directory a volume, and the container's anonymous one goes with it
    if (containerStarted) await attempt('remove container', () => docker(['rm', '-f', '-v', containerName]));
    if (volumeCreated) await attempt('remove volume', () => docker(['volume', 'rm', '-f', volume]));
    if (imageBuilt) await attempt('remove image', () => docker(['rmi', '-f', tag], 120_000));
    if (backendContainer) {
      await attempt('remove backend container', () => docker(['rm', '-f', '-v', backendContainer]));
    }
    if (backendBuilt) await attempt('remove backend image', () => docker(['rmi', '-f', backendTag], 120_000));
    // what is left of the builds (their dependency stages); most ids are gone with the images, so failures are expected
    for (const id of builtIds.reverse()) await command('docker', ['rmi', id], { timeoutMs: 60_000 });
    let left: string[] = [];
    if (hostBefore !== undefined) {
      const after = await hostLeftovers();
      left = [
        ...[...after.volumes].filter((v) => !hostBefore!.volumes.has(v)).map((v) => `volume ${v}`),
        ...[...after.untagged].filter((i) => !hostBefore!.untagged.has(i)).map((i) => `untagged image ${i}`),
      ];
    }
    if (backend) await attempt('close backend', () => backend.close());
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    if (daemon) await attempt('stop dockerd', () => daemon!.stop());
    if (problems.length > 0) log(`cleanup problems: ${problems.join('; ')}`);
    assert.deepEqual(left, [], 'the test left these on the Docker host');
  });

  it('builds from a context holding only the Dockerfile, the compiled runtime, production manifests and the production dependencies', () => {
    const files = listFiles(synthesized.contextDir);
    assert.ok(
      files.includes('Dockerfile') && files.includes('.dockerignore') && files.includes('package-lock.json'),
      files.join(', '),
    );
    const strays = files.filter(
      (f) =>
        !/^(Dockerfile|\.dockerignore|healthcheck\.js|package\.json|package-lock\.json|dist\/src\/.+\.js)$/.test(f) &&
        // the production dependencies, bundled so that the build needs no network
        !f.startsWith('node_modules/') &&
        // the dashboard's page: served by the image's `dashboard` command (the AuditDashboard construct)
        !/^dist\/src\/dashboard\/assets\/[\w.-]+\.(html|css|js|svg)$/.test(f),
    );
    assert.deepEqual(strays, []);
    assert.ok(files.includes('dist/src/cli/main.js'));
    assert.ok(!files.some((f) => f.startsWith('dist/') && (f.includes('.test.') || f.startsWith('dist/constructs'))));
    // dev tools, and the OpenAPI parser that only synthesis uses, stay out
    for (const notRun of [
      '@modelcontextprotocol/sdk',
      'typescript',
      'cdktf',
      'mocha',
      'express',
      '@readme/openapi-parser',
    ])
      assert.ok(!files.includes(`node_modules/${notRun}/package.json`), `${notRun} in the context`);
    assert.ok(!files.some((f) => f.startsWith('dist/src/openapi/')), 'synthesis-only code in the context');
    const manifest = JSON.parse(fs.readFileSync(path.join(synthesized.contextDir, 'package.json'), 'utf8'));
    const root = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
    const { '@readme/openapi-parser': synthesisOnly, ...runtime } = root.dependencies;
    assert.ok(synthesisOnly, 'the root package depends on the OpenAPI parser');
    assert.deepEqual(manifest.dependencies, runtime);
    assert.equal(manifest.devDependencies, undefined);
  });

  it('declares the CLI entrypoint, the serve command, a non-root user, the audit and state volumes, port 8080 and SIGTERM', async () => {
    const config = JSON.parse(await docker(['image', 'inspect', '--format', '{{json .Config}}', tag]));
    assert.deepEqual(config.Entrypoint, ['node', '/app/dist/src/cli/main.js']);
    assert.deepEqual(config.Cmd, ['serve', '--config', GATEWAY_CONFIG_FILE]);
    assert.equal(config.User, '1000:1000');
    // the audit log, and the state (a generated session key kept across redeploys)
    assert.deepEqual(Object.keys(config.Volumes ?? {}).sort(), ['/var/lib/cdktf-mcp-gateway', AUDIT_DIR]);
    assert.deepEqual(Object.keys(config.ExposedPorts ?? {}), ['8080/tcp']);
    assert.equal(config.StopSignal, 'SIGTERM');
    assert.deepEqual(config.Healthcheck?.Test, ['CMD', 'node', '/app/healthcheck.js']);
  });

  it('answers GET /healthz with 200 on the port given by --port', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(5_000) });
    assert.equal(res.status, 200);
  });

  it('runs the gateway as a non-root user', async () => {
    const uid = await docker(['exec', containerName, 'id', '-u']);
    assert.match(uid, /^\d+$/);
    assert.notEqual(uid, '0');
  });

  it('turns healthy through its own HEALTHCHECK, which follows --port', async function () {
    this.timeout(60_000);
    const status = await eventually(
      async () => {
        const s = await docker([
          'inspect',
          '--format',
          '{{if .State.Health}}{{.State.Health.Status}}{{end}}',
          containerName,
        ]);
        if (s === 'unhealthy')
          throw new GiveUp(
            `unhealthy: ${await docker(['inspect', '--format', '{{json .State.Health.Log}}', containerName])}`,
          );
        return s === 'healthy' && s;
      },
      { timeoutMs: 45_000, intervalMs: 250, what: 'health status healthy' },
    );
    assert.equal(status, 'healthy');
  });

  it('advertises ${ and %{ in a description and a pattern exactly as the example declares them (escapes undone)', async () => {
    const res = await session.request('tools/list');
    const tool = res.message?.result?.tools.find((t: { name: string }) => t.name === 'create_task');
    const title = tool?.inputSchema.properties.title;
    assert.equal(
      title?.description,
      'Task title; the backend fills ${customer} and ${ticket}; write a literal % as %%',
    );
    assert.equal(title?.pattern, '^(?:[^%]|%{2})*$');
  });

  it('refuses an invalid tools/call with JSON-RPC -32602 and the exact documented message, without calling the backend', async () => {
    const before = backend.requests;
    const res: McpHttpResponse = await session.callTool('get_customer', { customer_id: 42 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.message?.error?.code, -32602, res.text);
    assert.equal(res.message?.error?.message, 'Invalid type for `customer_id`: expected string');
    assert.equal(backend.requests, before);
  });

  it('forwards a valid call to the backend and returns its answer', async () => {
    const res = await session.callTool('get_customer', { customer_id: 'C-0042' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.message?.result?.isError, undefined, res.text);
    assert.equal(res.message?.result?.structuredContent?.method, 'GET');
    assert.equal(res.message?.result?.structuredContent?.path, '/customers/C-0042');
    assert.equal(backend.received.at(-1)?.url, '/customers/C-0042');
  });

  it('writes the audit log into its volume, without argument values', async () => {
    const records = await eventually(
      async () => {
        const r = await auditRecords();
        return r.length >= 2 && r;
      },
      { timeoutMs: 10_000, intervalMs: 250, what: '2 audit records' },
    );
    assert.deepEqual(
      records.map((r) => [r.gateway, r.tool, r.outcome, r.principal]),
      [
        [GATEWAY, 'get_customer', 'refused', bot.id],
        [GATEWAY, 'get_customer', 'ok', bot.id],
      ],
    );
    assert.ok(!JSON.stringify(records).includes('C-0042'));
  });

  it('builds the example backend from the build block synthesis wrote (container.build) and runs it', async function () {
    this.timeout(10 * 60_000);
    const stackDir = synthesized.stackDir;
    const doc = JSON.parse(fs.readFileSync(path.join(stackDir, 'cdk.tf.json'), 'utf8'));
    const image = Object.values<Record<string, any>>(doc.resource.docker_image).find((i) =>
      /support-desk-api:[0-9a-f]{12}$/.test(String(i.name)),
    );
    assert.ok(image?.build?.context, 'no docker_image with a build block for the support-desk backend');
    const context = path.resolve(stackDir, String(image.build.context));
    // the backend runs its TypeScript as it is, which takes Node 22.18 or later; its build needs no network
    const node = reusePortNode();
    if ('missing' in node) assert.fail(`the backend image ${node.missing}`);
    const base = await command('bash', [BASE_IMAGE_SCRIPT, BACKEND_BASE_IMAGE], {
      timeoutMs: 300_000,
      env: { ...process.env, NODE_BIN: node.path },
    });
    assert.equal(base.code, 0, `${BASE_IMAGE_SCRIPT} failed: ${base.stderr.trim().slice(-1000)}`);
    const build = await command(
      'docker',
      [
        'build',
        '--force-rm',
        '--network',
        'none',
        '--build-arg',
        `BASE_IMAGE=${BACKEND_BASE_IMAGE}`,
        '-f',
        path.join(context, image.build.dockerfile ?? 'Dockerfile'),
        '-t',
        backendTag,
        context,
      ],
      { timeoutMs: 600_000 },
    );
    backendBuilt = build.code === 0;
    builtIds.push(...createdImageIds(build.stdout));
    assert.equal(
      build.code,
      0,
      `docker build of the backend failed: ${`${build.stdout}${build.stderr}`.trim().slice(-3000)}`,
    );
    const backendPort = await freePort();
    backendContainer = `cdktf-mcp-gateway-image-test-backend-${unique}`;
    await docker([
      'run',
      '-d',
      '--name',
      backendContainer,
      '--network',
      'host',
      '-e',
      'HOST=127.0.0.1',
      '-e',
      `PORT=${backendPort}`,
      backendTag,
    ]);
    const health = await eventually(
      async () => {
        const res = await fetch(`http://127.0.0.1:${backendPort}/health`, { signal: AbortSignal.timeout(2_000) }).catch(
          () => undefined,
        );
        return res?.status === 200 && res.status;
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'the backend container to answer /health' },
    );
    assert.equal(health, 200);
  });

  it('stops on docker stop within 10 s with exit code 0, answering and auditing the calls in flight', async function () {
    this.timeout(60_000);
    backend.setDelay(1_500);
    const before = backend.requests;
    const calls = Array.from({ length: IN_FLIGHT_CALLS }, (_, i) =>
      session.callTool('get_customer', { customer_id: `C-100${i}` }),
    );
    await eventually(() => backend.requests - before >= IN_FLIGHT_CALLS, {
      timeoutMs: 10_000,
      intervalMs: 250,
      what: 'calls to reach the backend',
    });
    const started = Date.now();
    await docker(['stop', '--time', '10', containerName], 30_000);
    const stopMs = Date.now() - started;
    log(`docker stop took ${stopMs} ms with ${IN_FLIGHT_CALLS} calls in flight`);
    const answers = await Promise.all(calls);
    for (const res of answers) {
      assert.equal(res.status, 200, res.text);
      assert.equal(res.message?.result?.isError, undefined, res.text);
    }
    assert.ok(stopMs < 10_000, `docker stop took ${stopMs} ms`);
    assert.equal(await docker(['inspect', '--format', '{{.State.ExitCode}}', containerName]), '0');
    const records = await auditRecords();
    assert.equal(records.length, 2 + IN_FLIGHT_CALLS);
    assert.deepEqual(
      records.slice(2).map((r) => r.outcome),
      Array(IN_FLIGHT_CALLS).fill('ok'),
    );
  });
});
