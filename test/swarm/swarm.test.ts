/**
 * Replicas on a real single-node Docker Swarm (SPEC §4b): the synthesized docker_service, docker_config and
 * docker_secret are applied with the docker CLI (test/swarm/apply-service.ts; no Terraform provider can be
 * downloaded here), the gateway image is built from the synthesized context on a Node 22 base (SO_REUSEPORT),
 * and an official SDK client calls through a rolling update and through the stop of one replica.
 *
 * Required under CI=true and with `npm run test:swarm`; pending otherwise (it initializes a swarm on the daemon).
 */
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack, TerraformVariable } from 'cdktf';
import { DockerProvider } from '@cdktf/provider-docker/lib/provider';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { Gateway, Service } from '../../constructs';
import { startBackend, type TestBackend } from '../helpers/backend';
import { eventually, GiveUp } from '../helpers/eventually';
import { connectSdkClient, type SdkConnection } from '../helpers/mcp';
import { reusePortNode } from '../helpers/reuse-port-node';
import { makeToken, tokenEntry } from '../helpers/tokens';
import { command, docker, ensureDockerDaemon, freePort, type StartedDaemon } from '../image/docker';
import { applyService, configMount, createConfig, type AppliedService } from './apply-service';
import { ensureSwarm, healthyTasks, runningTasks, swarmTestRequirement, updateState, type SwarmHandle } from './swarm';
import { readSynthesizedService, type SynthesizedService } from './synthesized-service';

const REPO = path.resolve(__dirname, '../..');
const BASE_IMAGE_SCRIPT = path.resolve(REPO, '../shared/tools/node-base-image.sh');
/** Built from the Node 22 binary (SO_REUSEPORT needs >= 22.12); no image registry is reachable here. */
const BASE_IMAGE = 'local/node-base:node22';
const STACK = 'swarm';
const GATEWAY = 'agents';
const REPLICAS = 2;
/** Concurrent call loops of the one SDK client (several connections, so both replicas take calls). */
const LOOPS = 4;
/**
 * Upper bound on calls per SDK client, whatever the timing: the 1.x SDK client leaves one abort listener per
 * request on its transport's signal, and Node's fetch warns past 1500 (MaxListenersExceededWarning, per call).
 */
const MAX_CALLS = 1_400;
/** Pause between two calls of a loop: about 25 calls a second in all, so a load of MAX_CALLS lasts ~55 s. */
const PACE_MS = 150;

const requirement = swarmTestRequirement();

function log(line: string): void {
  process.stdout.write(`      [swarm] ${line}\n`);
}

type Outcome = 'ok' | 'refused' | 'forwarded' | 'failure';
interface CallRecord {
  readonly at: number;
  readonly valid: boolean;
  readonly outcome: Outcome;
  readonly detail?: string;
}

/** One call of the load: a valid call, or an invalid one (a number where a string is declared). */
async function oneCall(sdk: SdkConnection, valid: boolean, i: number): Promise<CallRecord> {
  const at = Date.now();
  const args = valid ? { customer_id: `C-${String(i % 10_000).padStart(4, '0')}` } : { customer_id: i };
  try {
    const result = await sdk.client.callTool({ name: 'get_customer', arguments: args }, undefined, { timeout: 20_000 });
    if (result.isError === true)
      return { at, valid, outcome: 'failure', detail: JSON.stringify(result.content).slice(0, 300) };
    return { at, valid, outcome: valid ? 'ok' : 'forwarded' };
  } catch (err) {
    if (!valid && err instanceof McpError && err.code === -32602) return { at, valid, outcome: 'refused' };
    return { at, valid, outcome: 'failure', detail: (err as Error).message.slice(0, 300) };
  }
}

/** Runs LOOPS loops of alternating valid / invalid calls until `stop()`; `done` resolves every call made. */
function startLoad(sdk: SdkConnection, maxCalls: number): { stop(): void; done: Promise<CallRecord[]> } {
  const records: CallRecord[] = [];
  let stopped = false;
  let n = 0;
  const loop = async (): Promise<void> => {
    while (!stopped && n < maxCalls) {
      const i = n++;
      records.push(await oneCall(sdk, i % 2 === 0, i));
      await new Promise((resolve) => setTimeout(resolve, PACE_MS));
    }
  };
  const done = Promise.all(Array.from({ length: LOOPS }, loop)).then(() => records);
  return {
    stop: () => {
      stopped = true;
    },
    done,
  };
}

describe('replicas on Docker Swarm (service, config and secret applied with the docker CLI, field by field)', function () {
  const node = reusePortNode();
  if (requirement === undefined) {
    it('NOT RUN: needs a Docker daemon and a swarm it may initialize (CI=true or npm run test:swarm)');
    return;
  }

  const suffix = `${process.pid}-${randomBytes(3).toString('hex')}`;
  const tag = `cdktf-mcp-gateway-swarm-test:${suffix}`;
  const bot = makeToken('swarm-bot');
  const sessionKey = randomBytes(32).toString('base64');
  let daemon: StartedDaemon | undefined;
  let swarm: SwarmHandle | undefined;
  let tmp = '';
  let backend: TestBackend;
  let port = 0;
  let imageId = '';
  /** Dangling images the build left (its dependency stage), removed with the image. */
  let buildLeftovers: string[] = [];
  let applied: AppliedService | undefined;
  const configNames: string[] = [];
  let sdk: SdkConnection | undefined;

  /** Synthesizes the app with `validateInput` into a fresh outdir and reads the replicated gateway. */
  function synthesize(validateInput: boolean): SynthesizedService {
    const outdir = fs.mkdtempSync(path.join(tmp, 'cdktf.out-'));
    const app = new App({ outdir });
    const stack = new TerraformStack(app, STACK);
    new DockerProvider(stack, 'docker', {});
    const getCustomer = new Service(stack, 'get_customer', {
      description: 'Look up a customer',
      endpoint: { url: `${backend.url}/customers/{customer_id}`, method: 'GET' },
      input: { customer_id: { type: 'string', required: true } },
    });
    const key = new TerraformVariable(stack, 'session_key', { type: 'string', sensitive: true });
    new Gateway(stack, GATEWAY, {
      services: [getCustomer],
      auth: { tokens: [tokenEntry(bot)] },
      replicas: REPLICAS,
      sessionKey: key.stringValue,
      port,
      baseImage: BASE_IMAGE,
      validateInput,
    });
    app.synth();
    return readSynthesizedService(outdir, STACK, GATEWAY);
  }

  async function serviceLogs(): Promise<string> {
    if (applied === undefined) return '';
    const r = await command('docker', ['service', 'logs', '--tail', '30', applied.name], { timeoutMs: 20_000 });
    return `${r.stdout}${r.stderr}`.trim();
  }

  /** Every record of every audit file in the volume, by file name. */
  async function auditFiles(): Promise<Map<string, Record<string, unknown>[]>> {
    const text = await docker(
      [
        'run',
        '--rm',
        '--network',
        'none',
        '-v',
        `${applied!.volumeName}:/a:ro`,
        BASE_IMAGE,
        'sh',
        '-c',
        'for f in /a/*.jsonl; do echo "== $f"; cat "$f"; done',
      ],
      60_000,
    );
    const files = new Map<string, Record<string, unknown>[]>();
    let current: Record<string, unknown>[] = [];
    for (const line of text.split('\n')) {
      if (line.startsWith('== ')) files.set(path.basename(line.slice(3)), (current = []));
      else if (line.trim() !== '') current.push(JSON.parse(line) as Record<string, unknown>);
    }
    return files;
  }

  before(async function () {
    this.timeout(25 * 60_000);
    if ('missing' in node) throw new Error(`the swarm test (${requirement}) ${node.missing}`);
    try {
      daemon = await ensureDockerDaemon(log);
    } catch (err) {
      throw new Error(`the swarm test needs Docker (${requirement}): ${(err as Error).message}`);
    }
    swarm = await ensureSwarm(log);
    const base = await command('bash', [BASE_IMAGE_SCRIPT, BASE_IMAGE], {
      timeoutMs: 300_000,
      env: { ...process.env, NODE_BIN: node.path },
    });
    assert.equal(base.code, 0, `${BASE_IMAGE_SCRIPT} failed: ${base.stderr.trim().slice(-1000)}`);

    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'swarm-test-'));
    backend = await startBackend();
    port = await freePort();
    const synth = synthesize(true);
    const danglingBefore = new Set((await docker(['images', '--quiet', '--filter', 'dangling=true'])).split('\n'));
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
        synth.contextDir,
      ],
      { timeoutMs: 900_000 },
    );
    assert.equal(build.code, 0, `docker build failed: ${`${build.stdout}${build.stderr}`.trim().slice(-3000)}`);
    imageId = await docker(['image', 'inspect', '--format', '{{.Id}}', tag]);
    buildLeftovers = (await docker(['images', '--quiet', '--filter', 'dangling=true']))
      .split('\n')
      .filter((id) => id !== '' && !danglingBefore.has(id));

    applied = await applyService(synth, { suffix, variables: { session_key: sessionKey }, image: imageId });
    configNames.push(applied.configName);
    await eventually(async () => (await healthyTasks(applied!.name)) === REPLICAS, {
      timeoutMs: 180_000,
      intervalMs: 1_000,
      what: `${REPLICAS} healthy replicas`,
    }).catch(async (err: Error) => {
      throw new Error(`${err.message}\n--- service log ---\n${await serviceLogs()}`);
    });
    log(`service ${applied.name}: ${REPLICAS} healthy replicas on 127.0.0.1:${port}`);
    sdk = await connectSdkClient(`http://127.0.0.1:${port}/mcp`, bot.token, { name: 'swarm-test', version: '1.0.0' });
  });

  after(async function () {
    this.timeout(5 * 60_000);
    const problems: string[] = [];
    const attempt = async (what: string, fn: () => Promise<unknown>) => {
      try {
        await fn();
      } catch (err) {
        problems.push(`${what}: ${(err as Error).message}`);
      }
    };
    await sdk?.close();
    if (applied !== undefined) {
      const { name, secretName, volumeName } = applied;
      await attempt('remove service', () => docker(['service', 'rm', name]));
      await attempt('wait for the tasks to go', () =>
        eventually(
          async () =>
            (await runningTasks(name)).length === 0 &&
            (await docker(['ps', '-a', '--quiet', '--filter', `label=com.docker.swarm.service.name=${name}`])) === '',
          { timeoutMs: 120_000, intervalMs: 1_000, what: 'the service containers to be removed' },
        ),
      );
      for (const config of configNames)
        await attempt(`remove config ${config}`, () => docker(['config', 'rm', config]));
      if (secretName !== undefined) await attempt('remove secret', () => docker(['secret', 'rm', secretName]));
      if (volumeName !== undefined) await attempt('remove volume', () => docker(['volume', 'rm', '-f', volumeName]));
    }
    if (imageId !== '') await attempt('remove image', () => docker(['rmi', '-f', tag], 120_000));
    for (const id of buildLeftovers) await attempt(`remove build stage ${id}`, () => docker(['rmi', id], 60_000));
    if (swarm !== undefined) problems.push(...(await swarm.leave()));
    await backend?.close();
    if (tmp !== '') fs.rmSync(tmp, { recursive: true, force: true });
    if (daemon !== undefined) await attempt('stop dockerd', () => daemon!.stop());
    if (problems.length > 0) log(`clean-up problems: ${problems.join('; ')}`);
  });

  it('toggles validate_input by a rolling update (new docker_config): zero failed calls, the session kept, audits from both replicas', async function () {
    this.timeout(10 * 60_000);
    const sessionBefore = sdk!.transport.sessionId;
    assert.equal((await oneCall(sdk!, false, 1)).outcome, 'refused', 'validate_input is on before the update');

    const load = startLoad(sdk!, MAX_CALLS - 10);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const next = synthesize(false);
    const spec = next.service.task_spec.container_spec;
    const newConfig = await createConfig(next.config, suffix);
    configNames.push(newConfig);
    assert.notEqual(newConfig, applied!.configName, 'a changed config has a new name');
    const started = Date.now();
    await docker([
      'service',
      'update',
      '--detach',
      '--config-rm',
      applied!.configName,
      '--config-add',
      configMount(spec.configs[0], newConfig),
      applied!.name,
    ]);
    const finalState = await eventually(
      async () => {
        const state = await updateState(applied!.name);
        if (state.startsWith('rollback') || state === 'paused')
          throw new GiveUp(`update ${state}: ${await serviceLogs()}`);
        return state === 'completed' && state;
      },
      { timeoutMs: 300_000, intervalMs: 250, what: 'the rolling update to complete' },
    );
    const finished = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    load.stop();
    const records = await load.done;

    const during = records.filter((r) => r.at >= started && r.at <= finished);
    const failures = records.filter((r) => r.outcome === 'failure');
    log(
      `rolling update: ${((finished - started) / 1000).toFixed(1)} s (${finalState}), ${during.length} calls during it ` +
        `(${records.length} in the whole load), ${failures.length} failed`,
    );
    assert.deepEqual(
      failures.map((f) => f.detail),
      [],
    );
    assert.ok(during.length > 0, 'no call ran during the update');
    assert.ok(records.at(-1)!.at >= finished, 'the load ran out of calls before the update completed');
    assert.deepEqual(
      records.filter((r) => r.valid && r.outcome !== 'ok'),
      [],
    );

    assert.equal(sdk!.transport.sessionId, sessionBefore, 'the SDK client kept its session id');
    assert.equal((await oneCall(sdk!, true, 2)).outcome, 'ok', 'the session opened before the update still works');
    assert.equal((await oneCall(sdk!, false, 3)).outcome, 'forwarded', 'validate_input is off after the update');

    const files = await eventually(
      async () => {
        const f = await auditFiles();
        const total = [...f.values()].reduce((sum, r) => sum + r.length, 0);
        return total >= records.length + 3 && f;
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'every call in the audit files' },
    );
    const counts = Object.fromEntries([...files].map(([file, r]) => [file, r.length]));
    log(`audit files: ${JSON.stringify(counts)}`);
    assert.deepEqual([...files.keys()].sort(), ['audit-1.jsonl', 'audit-2.jsonl']);
    assert.ok(
      [...files.values()].every((r) => r.length > 0),
      `a replica wrote no audit record: ${JSON.stringify(counts)}`,
    );
    assert.equal(
      [...files.values()].reduce((sum, r) => sum + r.length, 0),
      records.length + 3,
      'audit records = calls made',
    );
  });

  it("keeps answering while one replica's task is stopped (docker stop: SIGTERM, hand-over, drain)", async function () {
    this.timeout(5 * 60_000);
    // a client of its own (see MAX_CALLS), opened while both replicas run
    await sdk!.close();
    sdk = await connectSdkClient(`http://127.0.0.1:${port}/mcp`, bot.token, { name: 'swarm-test', version: '1.0.0' });
    const load = startLoad(sdk, MAX_CALLS);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const [victim] = await runningTasks(applied!.name);
    const started = Date.now();
    await docker(['stop', '--time', '30', victim.container], 60_000);
    const stopMs = Date.now() - started;
    await eventually(async () => (await healthyTasks(applied!.name)) === REPLICAS, {
      timeoutMs: 120_000,
      intervalMs: 1_000,
      what: 'Swarm to replace the stopped task',
    });
    load.stop();
    const records = await load.done;
    const failures = records.filter((r) => r.outcome === 'failure');
    log(`stopped slot ${victim.slot} in ${stopMs} ms; ${records.length} calls, ${failures.length} failed`);
    assert.deepEqual(
      failures.map((f) => f.detail),
      [],
    );
    assert.ok(records.length > 0);
  });
});
