import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, constants, openSync, readSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseServeArgs } from '../../src/cli/serve-command';
import { startBackend, type TestBackend } from '../helpers/backend';
import { gatewayConfig, supportDeskTools } from '../helpers/config';
import { eventually } from '../helpers/eventually';
import { cliNodeArgs, killAllGatewayProcesses, startGatewayProcess, type ExitStatus } from '../helpers/gateway-process';
import { openSession } from '../helpers/mcp';
import { tempDir } from '../helpers/temp-dir';
import { makeToken } from '../helpers/tokens';

describe('serve arguments', () => {
  it('parses every flag', () => {
    assert.deepEqual(
      parseServeArgs(['--config', 'g.json', '--port', '0', '--host', '127.0.0.1', '--audit-log', 'a.jsonl', '--watch']),
      {
        configPath: 'g.json',
        port: 0,
        host: '127.0.0.1',
        auditLogPath: 'a.jsonl',
        watch: true,
      },
    );
  });

  it('leaves unset overrides undefined', () => {
    assert.deepEqual(parseServeArgs(['--config=g.yaml']), {
      configPath: 'g.yaml',
      port: undefined,
      host: undefined,
      auditLogPath: undefined,
      watch: false,
    });
  });

  it('answers help', () => {
    assert.equal(parseServeArgs(['--help']), 'help');
  });

  it('requires --config', () => {
    assert.throws(() => parseServeArgs(['--port', '8080']), { message: '--config FILE is required' });
  });

  it('refuses a port that is not an integer 0-65535', () => {
    assert.throws(() => parseServeArgs(['--config', 'g.json', '--port', '70000']), {
      message: '--port: must be an integer 0-65535, got "70000"',
    });
    assert.throws(() => parseServeArgs(['--config', 'g.json', '--port', '8e3']), {
      message: '--port: must be an integer 0-65535, got "8e3"',
    });
  });

  it('refuses an unknown flag', () => {
    assert.throws(
      () => parseServeArgs(['--config', 'g.json', '--verbose']),
      (err: Error) => err.message.startsWith("Unknown option '--verbose'"),
    );
  });
});

describe('serve: SIGHUP while draining', function () {
  this.timeout(30_000);
  const bot = makeToken('hangup-bot');
  let backend: TestBackend;

  before(async () => {
    backend = await startBackend({ delayMs: 1_500 });
  });

  after(async () => {
    await killAllGatewayProcesses();
    await backend?.close();
  });

  it('finishes the in-flight call and exits 0 when a SIGHUP follows the SIGTERM', async () => {
    const gw = await startGatewayProcess({
      config: gatewayConfig({ tokens: [bot], tools: supportDeskTools(backend.url) }),
    });
    const session = await openSession(gw.url, { token: bot.token });
    const before = backend.requests;
    const call = session.callTool('get_customer', { customer_id: 'C-0001' }, { timeoutMs: 20_000 }).then(
      (res) => ({ res }),
      (error: unknown) => ({ error }),
    );
    await eventually(() => backend.requests > before, { what: 'the call at the backend' });
    gw.signal('SIGTERM');
    await gw.waitForOutput(/"msg":"shutting down"/);
    // the gateway stopped listening for reloads: SIGHUP's default action would end the process here
    gw.signal('SIGHUP');
    const outcome = await call;
    assert.deepEqual(await gw.waitForExit(15_000), { code: 0, signal: null });
    assert.ok('res' in outcome, String((outcome as { error?: unknown }).error));
    assert.equal(outcome.res.message?.result?.structuredContent?.method, 'GET');
  });
});

describe('serve: SIGHUP while it loads', function () {
  this.timeout(30_000);
  after(() => killAllGatewayProcesses());

  it('starts and serves when a SIGHUP arrives before serve has loaded (a config written just before the start)', async () => {
    // sends the SIGHUP from inside the process, right before `serve` loads: without a handler it would end it there
    const preload = join(tempDir('gw-serve-hangup-'), 'hang-up-on-load.js');
    writeFileSync(
      preload,
      `const Module = require('node:module');
const load = Module.prototype.require;
Module.prototype.require = function (id) {
  if (id === './serve-command') {
    Module.prototype.require = load;
    process.kill(process.pid, 'SIGHUP');
  }
  return load.apply(this, arguments);
};
`,
    );
    const bot = makeToken('early-hangup-bot');
    const gw = await startGatewayProcess({
      config: gatewayConfig({ tokens: [bot], tools: [] }),
      env: { NODE_OPTIONS: `--require ${preload}` },
    });
    const session = await openSession(gw.url, { token: bot.token });
    assert.deepEqual((await session.request('tools/list')).message?.result?.tools, []);
    assert.deepEqual(await gw.stop('SIGTERM', 20_000), { code: 0, signal: null });
  });
});

describe('serve: SIGTERM with an audit pipe whose reader stopped', function () {
  this.timeout(40_000);
  const bot = makeToken('stuck-audit-bot');
  let reader: number | undefined;

  after(async () => {
    await killAllGatewayProcesses();
    if (reader !== undefined) closeSync(reader);
  });

  it('exits 0 within seconds, logging the records the pipe did not take', async () => {
    const path = join(tempDir('gw-serve-fifo-'), 'audit.jsonl');
    assert.equal(spawnSync('mkfifo', [path]).status, 0, 'mkfifo');
    // opened and never read: a log collector that hangs
    reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const gw = await startGatewayProcess({
      config: gatewayConfig({ tokens: [bot], tools: [] }),
      auditLog: false,
      extraArgs: ['--audit-log', path],
    });
    const session = await openSession(gw.url, { token: bot.token });
    // each refusal is a record of about 300 bytes: together well past the pipe's 64 KiB
    for (let i = 0; i < 400; i++) await session.callTool(`unknown_tool_${i}_${'x'.repeat(40)}`, {});
    gw.signal('SIGTERM');
    assert.deepEqual(await gw.waitForExit(20_000), { code: 0, signal: null });
    assert.match(gw.stdout(), /"msg":"audit records not written: the audit file did not take them before shutdown"/);
  });
});

describe('serve: a stdout whose reader stopped', function () {
  this.timeout(40_000);
  const children: ChildProcess[] = [];
  const fds: number[] = [];

  after(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const fd of fds) closeSync(fd);
  });

  /**
   * `serve` with its stdout on a pipe that was read up to the listening line and then filled to the last byte and
   * never read again (a log collector that hangs): every later log line waits for it.
   */
  async function serveOnStalledStdout(): Promise<{ child: ChildProcess; exited: Promise<ExitStatus> }> {
    const dir = tempDir('gw-serve-stdout-');
    const fifo = join(dir, 'stdout');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    fds.push(reader, writer);
    const configPath = join(dir, 'gateway.json');
    writeFileSync(
      configPath,
      JSON.stringify(
        gatewayConfig({ tokens: [makeToken('stalled-stdout-bot')], tools: [], settings: { audit_log: false } }),
      ),
    );
    const child = spawn(process.execPath, cliNodeArgs(['serve', '--config', configPath, '--port', '0']), {
      stdio: ['ignore', writer, 'ignore'],
    });
    children.push(child);
    const exited = new Promise<ExitStatus>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    let out = '';
    const buffer = Buffer.alloc(1 << 16);
    await eventually(
      () => {
        try {
          out += buffer.subarray(0, readSync(reader, buffer)).toString();
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
        }
        return out.includes('"msg":"listening"');
      },
      { what: 'the listening line', timeoutMs: 10_000 },
    );
    // fill the pipe to its last byte: pages first, then single bytes into the last page
    for (const chunk of [Buffer.alloc(4096, 'x'), Buffer.from('x')]) {
      for (;;) {
        try {
          writeSync(writer, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'EAGAIN') break;
          throw err;
        }
      }
    }
    return { child, exited };
  }

  it('exits 0 on SIGTERM within seconds, though its last log lines cannot be written', async () => {
    const { child, exited } = await serveOnStalledStdout();
    const started = Date.now();
    child.kill('SIGTERM');
    const status = await Promise.race([exited, delay(20_000).then(() => 'still running')]);
    assert.deepEqual(status, { code: 0, signal: null });
    assert.ok(Date.now() - started < 15_000);
  });

  it('ignores a SIGHUP that arrives after serve stopped, while the process exits (exit 0, not 129)', async () => {
    const { child, exited } = await serveOnStalledStdout();
    child.kill('SIGTERM');
    // serve has stopped by now (no call, no audit to wait for); the process waits 2 s on its stdout
    await delay(500);
    assert.equal(child.exitCode, null);
    child.kill('SIGHUP');
    const status = await Promise.race([exited, delay(20_000).then(() => 'still running')]);
    assert.deepEqual(status, { code: 0, signal: null });
  });
});
