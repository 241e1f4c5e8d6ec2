/**
 * A replicated gateway on a real three-node Docker Swarm (../shared/tools/swarm-cluster: three engines in network
 * namespaces of their own, a registry, a client namespace), deployed by `cdktf deploy` to the manager: the image
 * is pushed to the registry and pulled by digest on every node, the replicas spread one per node, and HAProxy
 * (ours, checking `/readyz`, retrying with redispatch) spreads a steady load of 2025 session calls (one session,
 * opened first) and 2026-07-28 requests over them while validate_input is toggled, a node is drained, the replicas
 * are spread again (a forced update), and a node is lost. The replicas share sessions and write their audit through a LimitStore on the manager, and the dashboard's
 * count per node is checked against the calls HAProxy sent each node.
 *
 * Required under CI=true when the cluster tool is beside the repository; pending otherwise, with a title naming
 * what is missing. Talks to private addresses only inside the cluster's namespaces (through nsenter).
 */
import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { CdktfApp, type CdktfRun } from '../deploy/cdktf-app';
import { deployTestRequirement, toolchainBuilt, toolchainEnv } from '../deploy/toolchain';
import { command } from '../image/docker';
import { reusePortNode } from '../helpers/reuse-port-node';
import { makeToken } from '../helpers/tokens';
import { eventually } from '../helpers/eventually';
import { type LoadCounts, startMixedLoad } from '../helpers/mixed-load';

const REPO = path.resolve(__dirname, '../..');
const CLUSTER = path.resolve(REPO, '../shared/tools/swarm-cluster/cluster.sh');
const MN = path.join(os.tmpdir(), 'swarm-cluster');
const MANAGER = `unix://${MN}/node1/docker.sock`;
const MANAGER_IP = '10.77.0.1';
const REGISTRY = `${MANAGER_IP}:5000`;
const DASHBOARD = `http://${MANAGER_IP}:8090/api/summary?window=1h`;
const STORE_IMAGE = 'local/redis:multi-node';
const LB = 'http://10.77.0.10:8100/mcp';
const BASE_IMAGE = 'local/node-base:node22';
const requirement = deployTestRequirement();

function log(line: string): void {
  process.stdout.write(`      [multi-node] ${line}\n`);
}
const report: string[] = [];
function record(what: string, value: string): void {
  report.push(`| ${what} | ${value} |`);
  log(`${what}: ${value}`);
}

const STACK = `
const { App, TerraformStack, TerraformVariable } = cdktf;
const app = new App();
const stack = new TerraformStack(app, params.stack);
new docker.DockerProvider(stack, 'docker', {});
const sessionKey = new TerraformVariable(stack, 'session_key', { type: 'string', sensitive: true });
const storePassword = new TerraformVariable(stack, 'store_password', { type: 'string', sensitive: true });
// on the manager, published on its cluster address: every node's replicas share sessions and write their audit here
const store = new mcp.LimitStore(stack, 'Limits', {
  image: params.storeImage,
  password: storePassword.stringValue,
  hostPort: 6379,
  hostIp: params.managerIp,
});
const getCustomer = new mcp.Service(stack, 'get_customer', {
  endpoint: { url: params.backendUrl + '/customers/{customer_id}', method: 'GET' },
  input: { customer_id: { type: 'string', required: true, pattern: '^C-[0-9]{4}$' } },
});
const gateway = new mcp.Gateway(stack, 'agents', {
  services: [getCustomer],
  auth: { tokens: [{ id: 'mn-bot', sha256: params.tokenSha256 }] },
  replicas: 3,
  sessionKey: sessionKey.stringValue,
  port: 8080,
  baseImage: params.baseImage,
  registry: { address: params.registry, insecure: true },
  validateInput: params.validateInput,
  store,
});
new mcp.AuditDashboard(stack, 'audit', {
  gateways: [gateway],
  auth: { tokens: [{ id: 'ops', sha256: params.tokenSha256 }] },
  hostIp: params.managerIp,
  baseImage: params.baseImage,
});
app.synth();
`;

/** `docker` against one node's engine. */
function node(n: number, args: string[], timeoutMs = 60_000) {
  return command('docker', ['-H', `unix://${MN}/node${n}/docker.sock`, ...args], { timeoutMs });
}

/** A process inside one of the cluster's network namespaces. */
function inNamespace(ns: string, args: string[]): ChildProcess {
  return spawn('nsenter', [`--net=/var/run/netns/${ns}`, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
}

const haproxyConfig = (socket: string) => `global
  maxconn 4000
  stats socket ${socket} mode 600 level admin
defaults
  mode http
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  timeout check 1s
frontend gw
  bind 10.77.0.10:8100
  default_backend gateways
backend gateways
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response
  default-server inter 1s fall 2 rise 2
  # which node answered, so the load counts its calls per node
  http-response set-header x-served-by %s
  server n1 10.77.0.1:8080 check
  server n2 10.77.0.2:8080 check
  server n3 10.77.0.3:8080 check
`;

describe('a replicated gateway on a three-node Swarm behind HAProxy (real cluster, real deploy)', function () {
  const missing = !fs.existsSync(CLUSTER)
    ? `${path.relative(REPO, CLUSTER)} (CI provides ../shared)`
    : requirement === undefined || !toolchainBuilt()
      ? 'a run that asks for it (CI=true or npm run test:deploy) and `npm run toolchain`'
      : undefined;
  if (missing !== undefined) {
    if (process.env.CI === 'true' && !fs.existsSync(CLUSTER)) {
      it('runs under CI=true', () => assert.fail(`the multi-node test is required under CI=true: ${missing}`));
    } else {
      it(`NOT RUN: needs ${missing}, root, and Debian's docker.io`);
    }
    return;
  }
  this.timeout(30 * 60_000);
  const bot = makeToken('mn-bot');
  const stack = `mn${randomBytes(2).toString('hex')}`;
  const service = `${stack}-agents`;
  const vars = {
    TF_VAR_session_key: randomBytes(32).toString('base64'),
    TF_VAR_store_password: randomBytes(16).toString('hex'),
  };
  /** The 2025 session opened by the first load, which every later load keeps using. */
  let firstSession = '';
  /** Calls made through HAProxy, per HAProxy server (n1…n3), over every load. */
  const callsByServer: Record<string, number> = {};
  const started: ChildProcess[] = [];
  let app: CdktfApp;
  let tmp = '';
  let params: Record<string, unknown> = {};
  let haproxySocket = '';
  /** HAProxy's changes of server state, timed: a failed load's message shows what HAProxy saw. */
  const serverChanges: string[] = [];

  /** One command to HAProxy's runtime API (its stats socket, a file here). */
  function haproxy(commandLine: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(haproxySocket);
      let out = '';
      socket.on('data', (c) => (out += c.toString()));
      socket.on('end', () => resolve(out));
      socket.on('error', reject);
      socket.end(`${commandLine}\n`);
    });
  }

  /** HAProxy's view of each gateway server: `n1 UP`, … */
  async function serverStates(): Promise<Record<string, string>> {
    const csv = await haproxy('show stat');
    const states: Record<string, string> = {};
    for (const line of csv.split('\n')) {
      const cols = line.split(',');
      if (cols[0] === 'gateways' && /^n\d$/.test(cols[1])) states[cols[1]] = cols[17];
    }
    return states;
  }

  /** Every call of a load answered; else the counts and what HAProxy saw of the servers meanwhile. */
  function assertNoFailures(counts: LoadCounts): void {
    assert.equal(counts.failed, 0, `${JSON.stringify(counts)}\nHAProxy:\n${serverChanges.join('\n')}`);
  }

  /** Calls per second through HAProxy over `seconds`, from the client namespace (the load's own counter). */
  async function throughput(seconds: number): Promise<number> {
    const load = startLoad({ pauseMs: 0, loops: 16 });
    await new Promise((r) => setTimeout(r, seconds * 1_000));
    const counts = await load.stop();
    assertNoFailures(counts);
    return counts.calls / seconds;
  }

  async function cdktf(what: 'deploy' | 'destroy'): Promise<CdktfRun> {
    // from inside the manager's namespace: the provider reads the pushed image's digest from the registry
    const run = await app.run([what, '--auto-approve', '--skip-provider-lock'], { ...vars, DOCKER_HOST: MANAGER }, [
      'nsenter',
      '--net=/var/run/netns/mn-1',
    ]);
    fs.writeFileSync(path.join(tmp, `${what}-${Date.now()}.log`), run.output);
    assert.equal(run.code, 0, `cdktf ${what} exited ${run.code}:\n${run.output.slice(-3000)}`);
    return run;
  }

  async function runningByNode(): Promise<string[]> {
    const out = await node(1, [
      'service',
      'ps',
      service,
      '--filter',
      'desired-state=running',
      '--format',
      '{{.Node}} {{.CurrentState}}',
    ]);
    return out.stdout
      .trim()
      .split('\n')
      .filter((l) => / Running /.test(l))
      .map((l) => l.split(' ')[0])
      .sort();
  }

  /** `docker service update --force`: every task replaced, one at a time, start-first; returns once it converged. */
  async function forceUpdate(): Promise<void> {
    const update = await node(1, ['service', 'update', '--force', '--detach=false', '--quiet', service], 300_000);
    assert.equal(update.code, 0, update.stderr);
  }

  /**
   * Replicas running on node3 and on another node, each answering HAProxy: what a node loss then tests. A
   * start-first update may place a task beside another replica as readily as on a node of its own: forced updates
   * spread them again, three at most.
   */
  async function spreadReplicas(): Promise<void> {
    const spread = (nodes: string[]) =>
      nodes.length === 3 && nodes.includes('mn-node3') && nodes.some((n) => n !== 'mn-node3');
    for (let attempt = 0; !spread(await runningByNode()); attempt++) {
      assert.ok(attempt < 3, `replicas not spread after ${attempt} forced updates: ${await runningByNode()}`);
      await forceUpdate();
    }
    const nodes = await runningByNode();
    record('replicas before the node loss, by node', nodes.join(', '));
    await eventually(
      async () => {
        const states = await serverStates();
        for (const n of new Set(nodes)) assert.equal(states[n.replace('mn-node', 'n')], 'UP', JSON.stringify(states));
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  }

  /** Starts the load; `stop()` ends it and returns its counts. */
  function startLoad(pace: { pauseMs: number; loops: number } = { pauseMs: 25, loops: 4 }): {
    stop: () => Promise<LoadCounts>;
  } {
    const load = startMixedLoad('mn-lb', { url: LB, token: bot.token, ...pace, session: firstSession });
    started.push(load.child);
    void load.session.then((session) => (firstSession ||= session));
    return {
      stop: async () => {
        const counts = await load.stop();
        for (const [server, n] of Object.entries(counts.by_node ?? {}))
          callsByServer[server] = (callsByServer[server] ?? 0) + n;
        return counts;
      },
    };
  }

  /** GET from the client namespace (the cluster's addresses are reached only there), with the dashboard token. */
  async function getJson(url: string): Promise<unknown> {
    const child = inNamespace('mn-lb', [
      process.execPath,
      '-e',
      `fetch(process.argv[1], { headers: { authorization: 'Bearer ' + process.argv[2] } })
        .then(async (r) => { if (r.status !== 200) throw new Error('HTTP ' + r.status); console.log(await r.text()); })
        .catch((e) => { console.error(e.message); process.exit(1); })`,
      url,
      bot.token,
    ]);
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`GET ${url}: ${err.trim()}`);
    return JSON.parse(out);
  }

  /** The dashboard's records per node (its reading of the store), by HAProxy server name. */
  async function dashboardByServer(): Promise<Record<string, number>> {
    const summary = (await getJson(DASHBOARD)) as {
      ingest: { stores: { gateway: string; records_by_node: Record<string, number>; reachable: boolean }[] };
    };
    const [store] = summary.ingest.stores;
    assert.ok(store?.reachable, `the dashboard does not reach the store: ${JSON.stringify(summary.ingest)}`);
    return Object.fromEntries(
      Object.entries(store.records_by_node).map(([nodeName, n]) => [nodeName.replace(/^mn-node/, 'n'), n]),
    );
  }

  before(async function () {
    const up = await command('bash', [CLUSTER, 'up'], { timeoutMs: 300_000, env: { ...process.env, MN } });
    assert.equal(up.code, 0, `cluster.sh up failed: ${up.stdout.slice(-2000)} ${up.stderr.slice(-2000)}`);
    const node22 = reusePortNode();
    if ('missing' in node22) throw new Error(node22.missing);
    const base = await command('bash', [path.join(REPO, 'scripts', 'node-base-image.sh'), BASE_IMAGE], {
      timeoutMs: 300_000,
      env: { ...process.env, NODE_BIN: node22.path, DOCKER_HOST: MANAGER },
    });
    assert.equal(base.code, 0, base.stderr);
    const redisImage = await command('bash', [path.join(REPO, 'scripts', 'redis-image.sh'), STORE_IMAGE], {
      timeoutMs: 300_000,
      env: { ...process.env, DOCKER_HOST: MANAGER },
    });
    assert.equal(redisImage.code, 0, redisImage.stderr);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'multi-node-'));
    haproxySocket = path.join(tmp, 'haproxy.sock');
    fs.writeFileSync(path.join(tmp, 'haproxy.cfg'), haproxyConfig(haproxySocket));
    const haproxy = inNamespace('mn-lb', [
      'env',
      `LD_LIBRARY_PATH=${MN}/cache/root/usr/lib/x86_64-linux-gnu`,
      `${MN}/cache/root/usr/sbin/haproxy`,
      '-db',
      '-f',
      path.join(tmp, 'haproxy.cfg'),
    ]);
    started.push(haproxy);
    // HAProxy in the foreground writes each server's change of state to stderr: kept for a failing load's message
    haproxy.stderr!.on('data', (c: Buffer) => {
      for (const line of c.toString().split('\n'))
        if (/Server gateways\/n\d is (UP|DOWN)/.test(line))
          serverChanges.push(`${new Date().toISOString()} ${line.trim()}`);
    });
    const backend = inNamespace('mn-lb', [
      process.execPath,
      '-e',
      "require('http').createServer((q,s)=>{s.setHeader('content-type','application/json');s.end(JSON.stringify({id:q.url.split('/').pop()}))}).listen(9090,'10.77.0.10')",
    ]);
    started.push(backend);
    app = new CdktfApp(path.join(tmp, 'app'), STACK, toolchainEnv(log));
    params = {
      stack,
      backendUrl: 'http://10.77.0.10:9090',
      baseImage: BASE_IMAGE,
      registry: REGISTRY,
      tokenSha256: bot.sha256,
      validateInput: true,
      storeImage: STORE_IMAGE,
      managerIp: MANAGER_IP,
    };
    app.params(params);
  });

  after(async function () {
    for (const child of started) child.kill('SIGKILL');
    const down = await command('bash', [CLUSTER, 'down'], { timeoutMs: 120_000, env: { ...process.env, MN } });
    if (down.code !== 0) log(`cluster.sh down: ${down.stderr.slice(-500)}`);
    if (tmp !== '') fs.rmSync(tmp, { recursive: true, force: true });
    if (serverChanges.length > 0) log(`HAProxy's changes of server state:\n${serverChanges.join('\n')}`);
    if (report.length > 0) log(`figures:\n| measure | value |\n|---|---|\n${report.join('\n')}`);
  });

  it('deploys three replicas, one per node, each pulling the image from the registry by digest', async () => {
    const run = await cdktf('deploy');
    record('deploy from zero, 3 replicas on 3 nodes', `${run.seconds.toFixed(1)} s`);
    assert.deepEqual(await runningByNode(), ['mn-node1', 'mn-node2', 'mn-node3']);
    const image = await node(1, [
      'service',
      'inspect',
      service,
      '--format',
      '{{.Spec.TaskTemplate.ContainerSpec.Image}}',
    ]);
    assert.match(
      image.stdout.trim(),
      new RegExp(`^${REGISTRY.replace(/\./g, '\\.')}/cdktf-mcp-gateway-${stack}@sha256:[0-9a-f]{64}$`),
    );
  });

  it('measures calls per second through HAProxy to three nodes and to one (a report: the nodes share two cores)', async () => {
    await eventually(async () => assert.deepEqual(Object.values(await serverStates()), ['UP', 'UP', 'UP']), {
      timeoutMs: 20_000,
    });
    const three = await throughput(8);
    await haproxy('disable server gateways/n2');
    await haproxy('disable server gateways/n3');
    const one = await throughput(8);
    await haproxy('enable server gateways/n2');
    await haproxy('enable server gateways/n3');
    record(
      'calls/s through HAProxy (16 unpaced loops, a connection per call): 3 nodes / 1 node',
      `${three.toFixed(0)} / ${one.toFixed(0)}`,
    );
  });

  it('toggles validate_input (a rolling update over three nodes) under load: zero failed calls', async () => {
    const load = startLoad();
    await new Promise((r) => setTimeout(r, 3_000));
    app.params({ ...params, validateInput: false });
    const run = await cdktf('deploy');
    record('rolling toggle of validate_input, 3 nodes', `${run.seconds.toFixed(1)} s`);
    await new Promise((r) => setTimeout(r, 2_000));
    const counts = await load.stop();
    record('calls during the toggle (failed)', `${counts.calls} (${counts.failed})`);
    assertNoFailures(counts);
    assert.ok((counts.by_outcome.forwarded ?? 0) > 0, 'the new config never served');
  });

  it('drains a node under load, then spreads the replicas again (a forced update): zero failed calls', async () => {
    const load = startLoad();
    await new Promise((r) => setTimeout(r, 2_000));
    await node(1, ['node', 'update', '--availability', 'drain', 'mn-node2']);
    await eventually(async () => assert.ok(!(await runningByNode()).includes('mn-node2')), {
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    await new Promise((r) => setTimeout(r, 3_000));
    const drained = await load.stop();
    record('calls during a drain (failed)', `${drained.calls} (${drained.failed})`);
    assertNoFailures(drained);
    // back in service, node2 gets no task until one is placed again: what docs/multi-node.md tells users to run
    await node(1, ['node', 'update', '--availability', 'active', 'mn-node2']);
    const respread = startLoad();
    await forceUpdate();
    const counts = await respread.stop();
    record('calls during a forced update (failed)', `${counts.calls} (${counts.failed})`);
    assertNoFailures(counts);
  });

  it('loses a node (every process of it killed) under load: zero failed calls; Swarm runs the replica elsewhere', async () => {
    await spreadReplicas();
    const load = startLoad();
    // the load stops however this ends, so that the calls it counted are the calls the dashboard test compares
    let counts: LoadCounts | undefined;
    try {
      await new Promise((r) => setTimeout(r, 2_000));
      const lost = Date.now();
      // a process can end between reading its PID and the kill (ESRCH): kill again until the cgroup is empty
      const killed = await command(
        'bash',
        [
          '-c',
          `for round in $(seq 50); do
             pids=$(find /sys/fs/cgroup/pids/mn/node3 -name cgroup.procs -exec cat {} +)
             [ -z "$pids" ] && exit 0
             kill -KILL $pids 2>/dev/null
             sleep 0.1
           done
           echo "node3 keeps processes after 50 rounds of kill: $pids" >&2; exit 1`,
        ],
        { timeoutMs: 30_000 },
      );
      assert.equal(killed.code, 0, killed.stderr);
      await eventually(async () => assert.equal((await serverStates()).n3, 'DOWN'), {
        timeoutMs: 30_000,
        intervalMs: 100,
      });
      record('node lost → HAProxy marks it down', `${((Date.now() - lost) / 1000).toFixed(1)} s`);
      await eventually(async () => assert.equal((await runningByNode()).filter((n) => n !== 'mn-node3').length, 3), {
        timeoutMs: 120_000,
        intervalMs: 500,
      });
      record('node lost → 3 replicas running on the other nodes', `${((Date.now() - lost) / 1000).toFixed(1)} s`);
      await new Promise((r) => setTimeout(r, 3_000));
    } finally {
      counts = await load.stop();
    }
    record('calls during a node loss (failed)', `${counts.calls} (${counts.failed})`);
    assertNoFailures(counts);
  });

  it('the dashboard counts every call once, per node, from the store, the lost node included', async () => {
    // calls per node as HAProxy routed them, against the records the dashboard read from each node's replicas
    let seen: Record<string, number> = {};
    try {
      await eventually(
        async () => {
          seen = await dashboardByServer();
          assert.equal(seen.n1, callsByServer.n1);
          assert.equal(seen.n2, callsByServer.n2);
        },
        { timeoutMs: 20_000, intervalMs: 500 },
      );
    } finally {
      for (const n of ['n1', 'n2', 'n3'])
        record(`calls answered by ${n} / records on the dashboard`, `${callsByServer[n] ?? 0} / ${seen[n] ?? 0}`);
    }
    // a node killed outright can lose at most the records of the batch it had on its way to the store: a few
    const lost = (callsByServer.n3 ?? 0) - (seen.n3 ?? 0);
    record('records the killed node lost', String(lost));
    assert.ok(lost >= 0 && lost <= 5, `node3: ${callsByServer.n3} calls answered, ${seen.n3} records`);
    assert.equal(Object.keys(seen).sort().join(), 'n1,n2,n3');
  });

  it('destroys everything it made: nothing of the stack is left on the nodes left', async () => {
    await cdktf('destroy');
    const destroyed = Date.now();
    // each node's agent removes its own task containers after the service is gone from the manager: soon, not at once
    for (const n of [1, 2]) {
      for (const [kind, field] of [
        ['ps -a', '{{.Names}}'],
        ['volume ls', '{{.Name}}'],
        ['network ls', '{{.Name}}'],
      ]) {
        await eventually(
          async () => {
            const left = await node(n, [...kind.split(' '), '--filter', `name=${stack}`, '--format', field]);
            assert.equal(left.stdout.trim(), '', `node${n} keeps from ${kind}: ${left.stdout}`);
          },
          { timeoutMs: 30_000, intervalMs: 500 },
        );
      }
    }
    record('destroy → nothing left on the nodes', `${((Date.now() - destroyed) / 1000).toFixed(1)} s`);
    const objects = await Promise.all(
      ['service', 'config', 'secret'].map(
        async (kind) => (await node(1, [kind, 'ls', '--format', '{{.Name}}'])).stdout,
      ),
    );
    assert.doesNotMatch(objects.join('\n'), new RegExp(stack));
  });
});
