import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isAlive, portIsOpen, processTree, spawnGroup, Spawned, stopGroup } from './process-helpers';
import { eventually } from '../helpers/eventually';

const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'dist/src/cli/main.js');
const app = path.join(__dirname, 'fixtures/tiny-app');

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'dev-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return client;
}

describe('cdktf-mcp-gateway dev (built CLI, fixture app)', function () {
  this.timeout(60_000);
  let dev: Spawned | undefined;
  let auditDir: string;

  before(function () {
    if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
  });
  beforeEach(() => {
    auditDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-audit-'));
  });
  afterEach(async () => {
    // Ctrl-C as a user stops dev, then whatever is left: a SIGKILL of dev's group alone would leave its backends
    await stopGroup(dev);
    dev = undefined;
    fs.rmSync(auditDir, { recursive: true, force: true });
  });

  it('serves every gateway with a fresh token, maps the backend, audits as dev, and stops everything on SIGTERM', async () => {
    dev = spawnGroup(process.execPath, [cli, 'dev', app, '--port', '0', '--audit-dir', auditDir], { cwd: root });
    await dev.waitFor(/Press Ctrl-C to stop\./, 30_000);
    const out = dev.output();
    const blocks = [
      ...out.matchAll(
        /^Gateway (\w+) \(stack tiny; tools: echo\)\nMCP URL: (http:\/\/127\.0\.0\.1:(\d+)\/mcp)\nToken: ([A-Za-z0-9_-]{43})\nAudit log: (.+)$/gm,
      ),
    ];
    assert.deepEqual(
      blocks.map((b) => b[1]),
      ['alpha', 'beta'],
      out,
    );
    assert.notEqual(blocks[0][4], blocks[1][4], 'each gateway gets its own token');
    assert.equal(blocks[0][5], path.join(auditDir, 'audit-alpha.jsonl'));
    assert.match(out, /^\[tiny-api\] Backend: http:\/\/127\.0\.0\.1:\d+$/m);

    const [, , url, port, token] = blocks[0];
    const client = await connect(url, token);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['echo'],
      );
      const ok = await client.callTool({ name: 'echo', arguments: { word: 'hi', times: 2 } });
      assert.deepEqual(ok.structuredContent, { echo: 'hi hi' });
      await assert.rejects(client.callTool({ name: 'echo', arguments: { word: 'hi', times: '2' } }), {
        message: 'MCP error -32602: Invalid type for `times`: expected integer',
      });
    } finally {
      await client.close();
    }
    const unauthorized = await fetch(url, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json', Authorization: 'Bearer nope' },
    });
    assert.equal(unauthorized.status, 401);

    const pids = processTree(dev.child.pid!);
    assert.ok(pids.length >= 2, `dev and its backend run: ${pids}`);
    process.kill(dev.child.pid!, 'SIGTERM');
    assert.equal(await dev.exited, 0);
    await eventually(() => assert.deepEqual(pids.filter(isAlive), [], 'survivors'), {
      timeoutMs: 5000,
      intervalMs: 100,
    });
    assert.equal(await portIsOpen(Number(port)), false);

    const audit = fs
      .readFileSync(path.join(auditDir, 'audit-alpha.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      audit.map((r) => [r.gateway, r.principal, r.tool, r.outcome]),
      [
        ['alpha', 'ci-bot', 'echo', 'ok'],
        ['alpha', 'ci-bot', 'echo', 'refused'],
      ],
    );
    assert.match(dev.output(), /Stopped\.\n$/);
  });

  it('serves a gateway on the port given by --port NAME=PORT and the others at stack port + offset', async () => {
    const free = await freePort();
    dev = spawnGroup(
      process.execPath,
      [
        cli,
        'dev',
        app,
        '--port',
        `beta=${free}`,
        '--port-offset',
        '-18080',
        '--port',
        'alpha=0',
        '--audit-dir',
        auditDir,
      ],
      { cwd: root },
    );
    await dev.waitFor(/Press Ctrl-C to stop\./, 30_000);
    assert.match(dev.output(), new RegExp(`^MCP URL: http://127\\.0\\.0\\.1:${free}/mcp$`, 'm'));
    process.kill(-dev.child.pid!, 'SIGINT');
    assert.equal(await dev.exited, 0);
  });

  it('names the gateway and the way out when its port is taken', async () => {
    const net = await import('node:net');
    const blocker = net.createServer();
    const port = await new Promise<number>((resolve) =>
      blocker.listen(0, '127.0.0.1', () => resolve((blocker.address() as { port: number }).port)),
    );
    try {
      dev = spawnGroup(
        process.execPath,
        [cli, 'dev', app, '--port', `alpha=${port}`, '--port', 'beta=0', '--audit-dir', auditDir],
        { cwd: root },
      );
      assert.equal(await dev.exited, 1);
      assert.match(
        dev.output(),
        new RegExp(
          `^cdktf-mcp-gateway dev: gateway alpha: port ${port} on 127\\.0\\.0\\.1 is in use; choose another with --port alpha=PORT, --port-offset N or --port 0$`,
          'm',
        ),
      );
    } finally {
      blocker.close();
    }
  });

  it('notes in the block of a gateway that declares a store that dev serves it without one', async () => {
    for (const f of ['app.js', 'backend.js', 'dev.json']) fs.copyFileSync(path.join(app, f), path.join(auditDir, f));
    const cdktf = JSON.parse(fs.readFileSync(path.join(app, 'cdktf.json'), 'utf8'));
    fs.writeFileSync(path.join(auditDir, 'cdktf.json'), JSON.stringify({ ...cdktf, context: { store: 'alpha' } }));
    dev = spawnGroup(process.execPath, [cli, 'dev', auditDir, '--port', '0'], { cwd: root });
    await dev.waitFor(/Press Ctrl-C to stop\./, 30_000);
    const blocks = dev.output().split('\n\n');
    const alpha = blocks.find((b) => b.startsWith('Gateway alpha '));
    const beta = blocks.find((b) => b.startsWith('Gateway beta '));
    assert.match(
      alpha ?? '',
      /\nAudit log: .*\nNote: the deployed store is not used here: rate limits and ended sessions live in this process$/,
    );
    assert.doesNotMatch(beta ?? '', /Note:/);
  });

  it('prints the synthesis warnings of the stacks it serves, at start and on every reload', async () => {
    const warning = "Gateway 'alpha': rate limits count per gateway process without a store";
    for (const f of ['app.js', 'backend.js', 'dev.json']) fs.copyFileSync(path.join(app, f), path.join(auditDir, f));
    const cdktf = JSON.parse(fs.readFileSync(path.join(app, 'cdktf.json'), 'utf8'));
    fs.writeFileSync(path.join(auditDir, 'cdktf.json'), JSON.stringify({ ...cdktf, context: { warn: warning } }));
    dev = spawnGroup(process.execPath, [cli, 'dev', auditDir, '--port', '0', '--stack', 'tiny'], { cwd: root });
    await dev.waitFor(/Press Ctrl-C to stop\./, 30_000);
    const started = dev.output();
    assert.match(
      started,
      /^Synthesizing .*\nWarning: Gateway 'alpha': rate limits count .* without a store\nSynthesized 2 /m,
    );
    // another stack's warning and an info are not for this run
    assert.deepEqual(
      started.split('\n').filter((l) => l.startsWith('Warning: ')),
      [`Warning: ${warning}`],
    );
    assert.doesNotMatch(started, /other stack|an info of tiny/);

    // saving the app as it was synthesizes it again: the warning again, no gateway reloaded
    const source = fs.readFileSync(path.join(auditDir, 'app.js'));
    // the watcher starts as the connection blocks are printed: save until it has seen a save
    await eventually(
      () => {
        if (dev!.output().includes('App changed')) return true;
        fs.writeFileSync(path.join(auditDir, 'app.js'), source);
        return false;
      },
      { timeoutMs: 20_000, intervalMs: 1000, what: 'dev to see the saved app' },
    );
    await dev.waitFor(/^Gateway beta unchanged$/m, 30_000);
    assert.match(
      dev.output().slice(started.length),
      /^App changed: synthesizing \.\.\.\nSynthesizing .*\nWarning: Gateway 'alpha': rate limits .*\nSynthesized 2 gateways in \d+ ms\nGateway alpha unchanged\nGateway beta unchanged\n/,
    );
  });

  it('fails with a one-line reason when DIR has no cdktf.json', async () => {
    dev = spawnGroup(process.execPath, [cli, 'dev', auditDir], { cwd: root });
    assert.equal(await dev.exited, 1);
    assert.equal(
      dev.output(),
      `cdktf-mcp-gateway dev: ${path.join(auditDir, 'cdktf.json')}: not found (dev needs a cdktf app directory)\n`,
    );
  });

  it('stops and reports a backend that exits before printing its address', async () => {
    for (const f of ['cdktf.json', 'app.js']) fs.copyFileSync(path.join(app, f), path.join(auditDir, f));
    fs.writeFileSync(
      path.join(auditDir, 'dev.json'),
      JSON.stringify({
        backends: [
          {
            name: 'broken',
            command: 'node -e "console.log(\'listening soon\'); process.exit(4)"',
            hosts: ['tiny-api:9000'],
          },
        ],
      }),
    );
    dev = spawnGroup(process.execPath, [cli, 'dev', auditDir, '--port', '0'], { cwd: root });
    assert.equal(await dev.exited, 1);
    assert.match(
      dev.output(),
      /^cdktf-mcp-gateway dev: backend broken \(node -e .*\) exited \(4\); its output ended with:\nlistening soon$/m,
    );
  });

  it('stops at once on Ctrl-C during its first synthesis, the app with it', async () => {
    const pidFile = path.join(auditDir, 'slow-app.pid');
    fs.writeFileSync(
      path.join(auditDir, 'cdktf.json'),
      JSON.stringify({
        app: `node -e "require('fs').writeFileSync(${JSON.stringify(pidFile).replace(/"/g, "'")}, String(process.pid)); setTimeout(() => {}, 600000)"`,
      }),
    );
    dev = spawnGroup(process.execPath, [cli, 'dev', auditDir], { cwd: root });
    const slowPid = await eventually(() => fs.existsSync(pidFile) && Number(fs.readFileSync(pidFile, 'utf8')), {
      timeoutMs: 20_000,
      what: 'the app to start',
    });
    process.kill(dev.child.pid!, 'SIGINT');
    assert.equal(await dev.exited, 0);
    assert.equal(isAlive(slowPid), false);
    assert.match(dev.output(), /^Synthesizing .*\nStopped\.\n$/);
  });

  it('reports a failing synthesis with the tail of its output', async () => {
    fs.writeFileSync(
      path.join(auditDir, 'cdktf.json'),
      JSON.stringify({ app: 'node -e "console.error(\'boom: no stack\'); process.exit(3)"' }),
    );
    dev = spawnGroup(process.execPath, [cli, 'dev', auditDir], { cwd: root });
    assert.equal(await dev.exited, 1);
    assert.match(
      dev.output(),
      /cdktf-mcp-gateway dev: synthesis \(node -e .*\) failed with exit code 3\n--- synthesis output \(tail\) ---\nboom: no stack\n/,
    );
  });

  it("reports an app that ended with an error by that error alone, without Node's excerpt and stack", async () => {
    fs.writeFileSync(
      path.join(auditDir, 'cdktf.json'),
      JSON.stringify({
        app: `node -e "const e = new Error('desk.yaml:5:3: gateways.agents.validate_inputs: unknown key'); e.name = 'ManifestError'; e.line = 5; throw e"`,
      }),
    );
    dev = spawnGroup(process.execPath, [cli, 'dev', auditDir], { cwd: root });
    assert.equal(await dev.exited, 1);
    const out = dev.output();
    assert.match(
      out,
      /cdktf-mcp-gateway dev: synthesis \(node -e .*\) failed with exit code 1\n--- the app's error ---\nManifestError: desk\.yaml:5:3: gateways\.agents\.validate_inputs: unknown key\n/,
    );
    // where it was thrown, and nothing else of Node's report: its excerpt, the rest of the stack, the properties
    assert.match(out, /unknown key\n {4}at \[eval\]:1\n/);
    assert.equal(out.match(/^\s+at /gm)?.length, 1, out);
    assert.doesNotMatch(out, /line: 5|synthesis output/);
  });
});

async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
