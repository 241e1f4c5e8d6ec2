/**
 * `examples/kubernetes` deployed by `cdktf deploy` (run in that folder, no stack argument) to a real three-node
 * Kubernetes cluster (scripts/k8s-cluster.sh: a control plane and three nodes in network namespaces of their own,
 * a registry, HAProxy in front checking /readyz), under a steady load of valid and invalid calls from one 2025
 * session (opened first, kept throughout) and 2026-07-28 requests through HAProxy: the toggle, a tool added, a
 * refused deploy, an image upgrade, a store added in the cluster (a limit and ended sessions shared by the pods), the
 * audit dashboard reading every pod's calls, and a lost node, each with no failed call, then `cdktf destroy`.
 *
 * Required under CI=true; pending elsewhere, with a title naming what is missing. Talks to private addresses only
 * inside the cluster's namespaces (through nsenter) and to 127.0.0.1 (the API server and registry forwards).
 */
import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { type CdktfRun, runCdktf } from '../deploy/cdktf-app';
import { deployTestRequirement, toolchainEnv } from '../deploy/toolchain';
import { command, dockerDaemonAnswers } from '../image/docker';
import { makeToken } from '../helpers/tokens';
import { eventually } from '../helpers/eventually';
import { startMixedLoad } from '../helpers/mixed-load';
import { tempDir } from '../helpers/temp-dir';

const REPO = path.resolve(__dirname, '../..');
const EXAMPLE = path.join(REPO, 'examples', 'kubernetes');
const CLUSTER = path.join(REPO, 'scripts', 'k8s-cluster.sh');
const CACHE = process.env.K8SLAB_CACHE ?? path.join(os.homedir(), '.cache', 'k8s-lab');
const STATE = process.env.K8S_CLUSTER_DIR ?? path.join(os.tmpdir(), 'mcp-k8s');
const KUBECONFIG = path.join(STATE, 'admin.kubeconfig');
const KUBECTL = path.join(CACHE, 'bin', 'kubectl');
const LB = 'http://10.88.0.10:8000/mcp';
const LB_NS = 'mcpk8s-lb';
const NAMESPACE = 'mcp-example';
const BASE_IMAGE = 'local/node-base:latest';
const UPGRADE_IMAGE = 'local/node-base:k8s-upgrade';
/** Debian's redis-server as an image (scripts/redis-image.sh), and its name in the cluster's registry. */
const REDIS_IMAGE = 'local/redis:k8s';
const STORE_IMAGE = '127.0.0.1:15000/redis:k8s';
/** The example's settings from the store on: the second tool, the upgraded image and the store in the cluster. */
const WITH_STORE = {
  WITH_SHIPPING: 'true',
  BASE_IMAGE: UPGRADE_IMAGE,
  STORE_IMAGE,
  TF_VAR_store_password: randomBytes(12).toString('hex'),
};
/** Prints the dashboard's summary of the last hour (run inside its pod, with the token as the argument). */
const SUMMARY = `fetch('http://127.0.0.1:8090/api/summary?window=1h', { headers: { authorization: 'Bearer ' +
  process.argv[1] } }).then((r) => r.text()).then((t) => console.log(t))`;
/** Prints a pod's own `/readyz` (run inside the pod). */
const READYZ = `fetch('http://127.0.0.1:8080/readyz').then((r) => r.text()).then((t) => console.log(t))`;
/**
 * Opens a 2025 session through the load balancer, ends it with a DELETE, then uses it six times, each on a new
 * connection (so on every node); prints the DELETE's status and the later calls' statuses.
 */
const SESSION_SCRIPT = `
const [url, token] = process.argv.slice(1);
const base = { authorization: 'Bearer ' + token, 'content-type': 'application/json',
  accept: 'application/json, text/event-stream', connection: 'close' };
const post = (headers, body) => fetch(url, { method: 'POST', headers: { ...base, ...headers }, body: JSON.stringify(body) });
(async () => {
  const init = await post({}, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25',
    capabilities: {}, clientInfo: { name: 'k8s-test', version: '1' } } });
  const id = init.headers.get('mcp-session-id');
  const session = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
  await post(session, { jsonrpc: '2.0', method: 'notifications/initialized' });
  const deleted = (await fetch(url, { method: 'DELETE', headers: { ...base, ...session } })).status;
  const after = [];
  for (let i = 0; i < 6; i++) {
    after.push((await post(session, { jsonrpc: '2.0', id: 2 + i, method: 'tools/list' })).status);
  }
  console.log(JSON.stringify({ id, deleted, after }));
})();`;

function log(line: string): void {
  process.stdout.write(`      [kubernetes] ${line}\n`);
}
const report: string[] = [];
function record(what: string, value: string): void {
  report.push(`| ${what} | ${value} |`);
  log(`${what}: ${value}`);
}

/** What this machine lacks for the test, or undefined. */
function missing(): string | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return 'root on Linux (network namespaces)';
  if (!fs.existsSync(path.join(CACHE, 'bin', 'kube-apiserver'))) {
    return 'the Kubernetes binaries (bash scripts/k8s-cluster.sh build)';
  }
  if (deployTestRequirement() === undefined) return 'a run that asks for it (CI=true or npm run test:deploy)';
  if (!dockerDaemonAnswers()) return "a running dockerd (Debian's docker.io)";
  return undefined;
}

/** A process inside one of the cluster's network namespaces. */
function inNamespace(ns: string, args: string[], env: NodeJS.ProcessEnv = process.env): ChildProcess {
  return spawn('nsenter', [`--net=/var/run/netns/${ns}`, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
}

async function kubectl(args: string[]): Promise<string> {
  const out = await command(KUBECTL, ['--kubeconfig', KUBECONFIG, ...args], { timeoutMs: 30_000 });
  assert.equal(out.code, 0, `kubectl ${args.join(' ')}: ${out.stderr}`);
  return out.stdout;
}

interface Pod {
  name: string;
  node: string;
  ready: boolean;
  restarts: number;
}

/** The gateway's pods (not the apply jobs'). */
async function gatewayPods(): Promise<Pod[]> {
  const list = JSON.parse(
    await kubectl(['-n', NAMESPACE, 'get', 'pods', '-l', 'app.kubernetes.io/component=gateway', '-o', 'json']),
  ) as {
    items: {
      metadata: { name: string; deletionTimestamp?: string };
      spec: { nodeName?: string };
      status: {
        conditions?: { type: string; status: string }[];
        containerStatuses?: { restartCount: number }[];
      };
    }[];
  };
  return list.items
    .filter((p) => p.metadata.deletionTimestamp === undefined)
    .map((p) => ({
      name: p.metadata.name,
      node: p.spec.nodeName ?? '',
      ready: (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
      restarts: (p.status.containerStatuses ?? []).reduce((n, c) => n + c.restartCount, 0),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

describe('a gateway on a three-node Kubernetes cluster behind HAProxy (examples/kubernetes, real deploy)', function () {
  const lacking = missing();
  if (lacking !== undefined) {
    if (process.env.CI === 'true') {
      it('runs under CI=true', () => assert.fail(`the Kubernetes test is required under CI=true: needs ${lacking}`));
    } else {
      it(`NOT RUN: needs ${lacking}`);
    }
    return;
  }
  this.timeout(40 * 60_000);
  const agent = makeToken('k8s-agent');
  const ops = makeToken('k8s-ops');
  const backendKey = randomBytes(16).toString('hex');
  const started: ChildProcess[] = [];
  let toolchain: Record<string, string> = {};
  let firstSession = '';
  let logs = '';

  /** `cdktf CMD` in examples/kubernetes with the example's settings (`settings` overrides them). */
  async function cdktf(args: string[], settings: Record<string, string> = {}): Promise<CdktfRun> {
    const run = await runCdktf(EXAMPLE, args, {
      ...toolchain,
      // the deploy hands each config over through kubectl, as a user's machine has it on PATH
      PATH: `${path.dirname(KUBECTL)}${path.delimiter}${toolchain.PATH ?? process.env.PATH}`,
      KUBECONFIG,
      REGISTRY: '127.0.0.1:15000',
      BASE_IMAGE,
      AGENT_TOKEN_SHA256: agent.sha256,
      TF_VAR_backend_key: backendKey,
      ...settings,
    });
    fs.writeFileSync(path.join(logs, `${args[0]}-${Date.now()}.log`), run.output);
    return run;
  }

  async function deploy(settings: Record<string, string> = {}): Promise<number> {
    const run = await cdktf(['deploy', '--auto-approve'], settings);
    assert.equal(run.code, 0, `cdktf deploy exited ${run.code}:\n${run.output.slice(-3000)}`);
    assert.doesNotMatch(run.output, new RegExp(backendKey), 'the backend key is in the deploy output');
    return run.seconds;
  }

  /** One command to HAProxy's runtime API (its stats socket). */
  function haproxy(commandLine: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(path.join(STATE, 'lb', 'haproxy.sock'));
      let out = '';
      socket.on('data', (c) => (out += c.toString()));
      socket.on('end', () => resolve(out));
      socket.on('error', reject);
      socket.end(`${commandLine}\n`);
    });
  }

  /** Starts the load through HAProxy (the session opened first kept throughout); `stop()` returns its counts. */
  function startLoad(pace: { pauseMs: number; loops: number } = { pauseMs: 25, loops: 4 }) {
    const load = startMixedLoad(
      LB_NS,
      { url: LB, token: agent.token, ...pace, session: firstSession },
      {
        MIXED_TOOL: 'get_order',
      },
    );
    started.push(load.child);
    void load.session.then((session) => (firstSession ||= session));
    return load;
  }

  /** Runs a script with `node -e` inside the load balancer's namespace and returns its stdout. */
  async function inLb(script: string, args: string[] = []): Promise<string> {
    const child = inNamespace(LB_NS, [process.execPath, '-e', script, ...args]);
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    assert.equal(code, 0, `node -e in ${LB_NS}: ${err}`);
    return out;
  }

  /** One 2026-07-28 `tools/call` through HAProxy on a new connection: its status, body and the node that answered. */
  async function lbCall(
    tool: string,
    args: Record<string, string>,
  ): Promise<{ status: number; text: string; servedBy: string }> {
    const out = await inLb(
      `fetch(process.argv[1], { method: 'POST', headers: { authorization: 'Bearer ' + process.argv[2],
         'content-type': 'application/json', accept: 'application/json, text/event-stream', connection: 'close',
         'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': process.argv[3] },
         body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: process.argv[3],
           arguments: JSON.parse(process.argv[4]), _meta: {
             'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {},
             'io.modelcontextprotocol/clientInfo': { name: 'k8s-test', version: '1' } } } }) })
       .then(async (r) => console.log(JSON.stringify({ status: r.status, servedBy: r.headers.get('x-served-by'),
         text: await r.text() })))`,
      [LB, agent.token, tool, JSON.stringify(args)],
    );
    return JSON.parse(out) as { status: number; text: string; servedBy: string };
  }

  /** One invalid call (a bad order id) as a 2026-07-28 request: `refused` or `forwarded`. */
  async function invalidCall(): Promise<string> {
    const out = await inLb(
      `fetch(process.argv[1], { method: 'POST', headers: { authorization: 'Bearer ' + process.argv[2],
         'content-type': 'application/json', accept: 'application/json, text/event-stream',
         'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_order' },
         body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_order',
           arguments: { order_id: 'not-an-order', region: 'eu' }, _meta: {
             'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {},
             'io.modelcontextprotocol/clientInfo': { name: 'k8s-test', version: '1' } } } }) })
       .then((r) => r.json()).then((m) => console.log(JSON.stringify(m)))`,
      [LB, agent.token],
    );
    const message = JSON.parse(out) as { result?: { isError?: boolean; content?: { text: string }[] } };
    if (message.result?.isError === true && /^Invalid value/.test(message.result.content?.[0]?.text ?? '')) {
      return 'refused';
    }
    if (message.result?.isError !== true) return 'forwarded';
    return out.trim();
  }

  before(async function () {
    logs = tempDir('k8s-deploy-');
    const up = await command('bash', [CLUSTER, 'up'], { timeoutMs: 300_000 });
    assert.equal(up.code, 0, `k8s-cluster.sh up failed: ${up.stdout.slice(-2000)} ${up.stderr.slice(-2000)}`);
    const base = await command('bash', [path.join(REPO, 'scripts', 'node-base-image.sh'), BASE_IMAGE], {
      timeoutMs: 300_000,
    });
    assert.equal(base.code, 0, base.stderr);
    toolchain = toolchainEnv(log);
  });

  after(async function () {
    for (const child of started) child.kill('SIGKILL');
    if (fs.existsSync(KUBECONFIG)) await cdktf(['destroy', '--auto-approve']).catch(() => undefined);
    await command('bash', [CLUSTER, 'down'], { timeoutMs: 120_000 });
    await command('docker', ['image', 'rm', UPGRADE_IMAGE, STORE_IMAGE], { timeoutMs: 60_000 });
    log(`logs: ${logs}`);
    if (report.length > 0) log(`\n| measure | value |\n|---|---|\n${report.join('\n')}`);
  });

  it('deploys from nothing: three pods on three nodes, Ready behind HAProxy', async () => {
    const seconds = await deploy();
    record('deploy from nothing (3 pods, backend, image built and pushed)', `${seconds.toFixed(1)} s`);
    const pods = await gatewayPods();
    assert.equal(pods.length, 3, JSON.stringify(pods));
    assert.equal(new Set(pods.map((p) => p.node)).size, 3, `one pod per node: ${JSON.stringify(pods)}`);
    assert.ok(pods.every((p) => p.ready));
    const image = await kubectl([
      '-n',
      NAMESPACE,
      'get',
      'deploy',
      'orders',
      '-o',
      'jsonpath={.spec.template.spec.containers[0].image}',
    ]);
    assert.match(image, /^127\.0\.0\.1:15000\/cdktf-mcp-gateway-kubernetes@sha256:[0-9a-f]{64}$/);
    await eventually(async () => assert.equal(await invalidCall(), 'refused'), {
      timeoutMs: 30_000,
      intervalMs: 1_000,
    });
  });

  it('serves calls through HAProxy from three pods on three nodes, and from one (report, no target)', async () => {
    const rate = async (): Promise<number> => {
      const load = startLoad({ pauseMs: 0, loops: 16 });
      await new Promise((r) => setTimeout(r, 10_000));
      const counts = await load.stop();
      assert.equal(counts.failed, 0, JSON.stringify(counts));
      return counts.calls / 10;
    };
    const three = await rate();
    await haproxy('disable server nodes/n2');
    await haproxy('disable server nodes/n3');
    try {
      const one = await rate();
      record(
        'calls/s through HAProxy: 3 pods on 3 nodes / 1 pod on 1 node (the nodes share 2 cores)',
        `${three.toFixed(0)} / ${one.toFixed(0)}`,
      );
    } finally {
      await haproxy('enable server nodes/n2');
      await haproxy('enable server nodes/n3');
    }
  });

  it('toggles validate_input in place under load: no failed call, no pod restarted, the next call shows it', async () => {
    const before = await gatewayPods();
    const load = startLoad();
    await new Promise((r) => setTimeout(r, 3_000));
    const seconds = await deploy({ VALIDATE_INPUT: 'false' });
    const next = await invalidCall();
    await new Promise((r) => setTimeout(r, 2_000));
    const counts = await load.stop();
    record(
      'toggle validate_input off, in place',
      `${seconds.toFixed(1)} s, ${counts.calls} calls, ${counts.failed} failed`,
    );
    assert.equal(next, 'forwarded', 'the first call after the deploy reaches the backend');
    assert.equal(counts.failed, 0, JSON.stringify(counts));
    assert.deepEqual(
      (await gatewayPods()).map(({ name, restarts }) => ({ name, restarts })),
      before.map(({ name, restarts }) => ({ name, restarts })),
      'the same pods, not restarted',
    );
    const diff = await cdktf(['diff'], { VALIDATE_INPUT: 'true' });
    const plan = diff.output.slice(Math.max(0, diff.output.search(/OpenTofu used|Terraform used/)));
    const lines = plan.split('\n').filter((l) => l.trim() !== '').length;
    record('`cdktf diff` of the toggle (plan lines, from "OpenTofu used")', String(lines));
    assert.ok(lines <= 60, `${lines} lines of plan:\n${plan}`);
    assert.match(plan, /validate_input\s+= false -> true/);
    assert.doesNotMatch(diff.output, new RegExp(backendKey));
    const back = await deploy();
    assert.equal(await invalidCall(), 'refused');
    record('toggle validate_input on again, in place', `${back.toFixed(1)} s`);
  });

  it('adds a tool in place: no failed call, and notifications/tools/list_changed on an open stream', async () => {
    const load = startLoad();
    await eventually(() => assert.notEqual(firstSession, ''), { timeoutMs: 10_000 });
    const stream = inNamespace(LB_NS, [
      process.execPath,
      '-e',
      `fetch(process.argv[1], { headers: { authorization: 'Bearer ' + process.argv[2], accept: 'text/event-stream',
         'mcp-session-id': process.argv[3], 'mcp-protocol-version': '2025-11-25' } })
       .then(async (r) => { if (r.status !== 200) { console.log('HTTP ' + r.status); process.exit(1); }
         const reader = r.body.getReader(); let text = '';
         for (;;) { const { value, done } = await reader.read(); if (done) break;
           text += Buffer.from(value).toString(); if (text.includes('notifications/tools/list_changed')) {
             console.log('list_changed'); process.exit(0); } } })`,
      LB,
      agent.token,
      firstSession,
    ]);
    started.push(stream);
    let streamed = '';
    stream.stdout!.on('data', (c: Buffer) => (streamed += c.toString()));
    await new Promise((r) => setTimeout(r, 2_000));
    const seconds = await deploy({ WITH_SHIPPING: 'true' });
    await eventually(() => assert.match(streamed, /list_changed/), { timeoutMs: 30_000 });
    const counts = await load.stop();
    record('a tool added, in place', `${seconds.toFixed(1)} s, ${counts.calls} calls, ${counts.failed} failed`);
    assert.equal(counts.failed, 0, JSON.stringify(counts));
  });

  it("refuses an empty backend key within 60 s with the gateway's reason, the old config serving", async () => {
    const before = await gatewayPods();
    const load = startLoad();
    await new Promise((r) => setTimeout(r, 2_000));
    const run = await cdktf(['deploy', '--auto-approve'], { WITH_SHIPPING: 'true', TF_VAR_backend_key: '' });
    await new Promise((r) => setTimeout(r, 2_000));
    const counts = await load.stop();
    record(
      'deploy refused (empty backend key)',
      `${run.seconds.toFixed(1)} s, ${counts.calls} calls, ${counts.failed} failed`,
    );
    assert.notEqual(run.code, 0);
    assert.ok(run.seconds < 60, `the refusal took ${run.seconds} s`);
    assert.match(run.output, /Gateway 'orders' did not take the new config: refused:/);
    assert.match(run.output, /secret BACKEND_KEY is empty/);
    assert.equal(counts.failed, 0, JSON.stringify(counts));
    assert.deepEqual(
      (await gatewayPods()).map((p) => p.name),
      before.map((p) => p.name),
    );
  });

  it('rolls an image upgrade with no failed call', async () => {
    // a base image with other content: a new gateway image, a new digest
    const build = await command('bash', [
      '-c',
      `printf 'FROM ${BASE_IMAGE}\nLABEL k8s.upgrade=${randomBytes(4).toString('hex')}\n' | docker build --network none -t ${UPGRADE_IMAGE} -`,
    ]);
    assert.equal(build.code, 0, build.stderr);
    const before = await gatewayPods();
    const load = startLoad();
    await new Promise((r) => setTimeout(r, 2_000));
    const seconds = await deploy({ WITH_SHIPPING: 'true', BASE_IMAGE: UPGRADE_IMAGE });
    await new Promise((r) => setTimeout(r, 2_000));
    const counts = await load.stop();
    record('image upgrade, rolled', `${seconds.toFixed(1)} s, ${counts.calls} calls, ${counts.failed} failed`);
    assert.equal(counts.failed, 0, JSON.stringify(counts));
    const after = await gatewayPods();
    assert.equal(after.filter((p) => before.some((b) => b.name === p.name)).length, 0, 'every pod replaced');
  });

  it('adds a store in the cluster in place: one limit and ended sessions shared by every pod', async () => {
    const built = await command('bash', [path.join(REPO, 'scripts', 'redis-image.sh'), REDIS_IMAGE], {
      timeoutMs: 300_000,
    });
    assert.equal(built.code, 0, built.stderr);
    for (const args of [
      ['tag', REDIS_IMAGE, STORE_IMAGE],
      ['push', STORE_IMAGE],
    ]) {
      const run = await command('docker', args, { timeoutMs: 120_000 });
      assert.equal(run.code, 0, `docker ${args.join(' ')}: ${run.stderr}`);
    }
    const before = await gatewayPods();
    const load = startLoad();
    await new Promise((r) => setTimeout(r, 2_000));
    const seconds = await deploy(WITH_STORE);
    await new Promise((r) => setTimeout(r, 2_000));
    const counts = await load.stop();
    record(
      'a store added in the cluster, in place',
      `${seconds.toFixed(1)} s, ${counts.calls} calls, ${counts.failed} failed`,
    );
    assert.equal(counts.failed, 0, JSON.stringify(counts));
    assert.deepEqual(
      (await gatewayPods()).map(({ name, restarts }) => ({ name, restarts })),
      before.map(({ name, restarts }) => ({ name, restarts })),
      'the same pods, not restarted: the store and its password reach them as config',
    );
    for (const pod of await gatewayPods()) {
      const readyz = await kubectl(['-n', NAMESPACE, 'exec', pod.name, '--', 'node', '-e', READYZ]);
      assert.match(readyz, /"rate_limits":"shared","store":"available"/, `${pod.name}: ${readyz}`);
    }

    // 10 track_shipment calls a minute per agent, counted once for all pods: start well inside a minute
    const left = 60 - new Date().getUTCSeconds();
    if (left < 20) await new Promise((r) => setTimeout(r, left * 1000 + 500));
    const served = new Set<string>();
    for (let i = 0; i < 10; i++) {
      const ok = await lbCall('track_shipment', { tracking: `TRK-00${i}000` });
      assert.equal(ok.status, 200, ok.text);
      assert.doesNotMatch(ok.text, /"isError":true/, ok.text);
      served.add(ok.servedBy);
    }
    const refused = await lbCall('track_shipment', { tracking: 'TRK-0011000' });
    assert.equal(refused.status, 429, refused.text);
    assert.equal(JSON.parse(refused.text).error.code, -32023);
    assert.ok(served.size >= 2, `the calls went through several nodes: ${[...served].join(', ')}`);
    const other = await lbCall('get_order', { order_id: 'ORD-1001', region: 'eu' });
    assert.equal(other.status, 200, 'a tool without a limit still passes');

    // a session ended through one pod is refused by every pod
    const session = await inLb(SESSION_SCRIPT, [LB, agent.token]);
    const ended = JSON.parse(session) as { id: string; deleted: number; after: number[] };
    assert.equal(ended.deleted, 200, session);
    assert.deepEqual(ended.after, [404, 404, 404, 404, 404, 404], session);
  });

  it("adds the audit dashboard in the cluster: it reads every pod's calls from the store", async () => {
    const load = startLoad();
    await new Promise((r) => setTimeout(r, 2_000));
    const seconds = await deploy({ ...WITH_STORE, DASHBOARD_TOKEN_SHA256: ops.sha256 });
    await new Promise((r) => setTimeout(r, 2_000));
    const counts = await load.stop();
    record('the audit dashboard added', `${seconds.toFixed(1)} s, ${counts.calls} calls, ${counts.failed} failed`);
    assert.equal(counts.failed, 0, JSON.stringify(counts));
    const pod = (
      await kubectl(['-n', 'mcp-dashboard-audit', 'get', 'pods', '-o', 'jsonpath={.items[0].metadata.name}'])
    ).trim();
    const summary = await eventually(
      async () => {
        const out = await kubectl(['-n', 'mcp-dashboard-audit', 'exec', pod, '--', 'node', '-e', SUMMARY, ops.token]);
        const body = JSON.parse(out) as { ingest: { stores: { records_by_node: Record<string, number> }[] } };
        const byNode = body.ingest.stores[0].records_by_node;
        assert.deepEqual(Object.keys(byNode).sort(), ['mcpk8s-node1', 'mcpk8s-node2', 'mcpk8s-node3'], out);
        return byNode;
      },
      { timeoutMs: 30_000, intervalMs: 1_000 },
    );
    record('audit records the dashboard read, by node', JSON.stringify(summary));
  });

  it('loses a node with no failed call; reports the seconds until every replica is Ready elsewhere', async () => {
    const load = startLoad();
    await new Promise((r) => setTimeout(r, 3_000));
    const killed = Date.now();
    const kill = await command('bash', [CLUSTER, 'kill-node', '3'], { timeoutMs: 60_000 });
    assert.equal(kill.code, 0, kill.stderr);
    let readyAfter = 0;
    await eventually(
      async () => {
        const pods = await gatewayPods();
        assert.ok(pods.filter((p) => p.ready && p.node !== 'mcpk8s-node3').length >= 3, JSON.stringify(pods));
        readyAfter = (Date.now() - killed) / 1000;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    // the load runs on 15 s past it, so a call that fails as the cluster settles is seen
    await new Promise((r) => setTimeout(r, 15_000));
    const counts = await load.stop();
    record('node lost → 3 replicas Ready on the other nodes', `${readyAfter.toFixed(1)} s`);
    record(
      'calls during the node loss',
      `${counts.calls} calls, ${counts.failed} failed, ${counts.session_404} session 404`,
    );
    // what an operator (or a cloud's node controller) does once a machine is gone: its pods are then removed too
    await kubectl(['delete', 'node', 'mcpk8s-node3', '--wait=false']);
    log(
      `failed calls (sent at +s after the kill): ${JSON.stringify(
        counts.failures.map((f) => `+${((Date.parse(f.slice(0, 24)) - killed) / 1000).toFixed(2)} ${f.slice(25)}`),
      )}`,
    );
    assert.equal(counts.session_404, 0, 'the session opened first stays valid');
    assert.equal(counts.failed, 0, JSON.stringify(counts));
  });

  it('destroys everything it made', async () => {
    const run = await cdktf(['destroy', '--auto-approve'], { ...WITH_STORE, DASHBOARD_TOKEN_SHA256: ops.sha256 });
    assert.equal(run.code, 0, run.output.slice(-3000));
    record('cdktf destroy', `${run.seconds.toFixed(1)} s`);
    const namespaces = await kubectl(['get', 'ns', '-o', 'jsonpath={.items[*].metadata.name}']);
    assert.doesNotMatch(namespaces, /mcp-example|mcp-store|mcp-dashboard/);
  });
});
