/**
 * `audit_log` changed by a reload takes effect with it: later records go to the new target, the previous file is
 * flushed and closed, and a target that cannot be opened refuses the reload.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { GatewayConfig } from '../../../src/config';
import { type RunningGateway, startGateway } from '../../../src/gateway';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { botConfig, tool } from '../../helpers/config';
import { ReplaceableAudit } from '../../../src/gateway/audit/replaceable-audit';
import { startSilentGateway } from '../../helpers/in-process-gateway';
import { initializeSession, postJson, toolsCallRequest } from '../../helpers/mcp';

function withAudit(config: GatewayConfig, audit: GatewayConfig['gateway']['audit_log']): GatewayConfig {
  return { ...config, gateway: { ...config.gateway, audit_log: audit } };
}

function records(file: string): { tool: string }[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { tool: string })
    : [];
}

describe('audit_log changed by a reload', () => {
  let backend: TestBackend;
  let gateway: RunningGateway | undefined;
  let dir: string;

  before(async () => {
    backend = await startBackend();
  });
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'audit-reload-'));
  });
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
    rmSync(dir, { recursive: true, force: true });
  });
  after(() => backend.close());

  async function call(session: string, name: string): Promise<void> {
    const res = await postJson(gateway!.url, toolsCallRequest(name, {}), { 'mcp-session-id': session });
    assert.equal(res.status, 200);
  }

  it('sends later records to the new file, and the previous file keeps what it had', async () => {
    const first = path.join(dir, 'first.jsonl');
    const second = path.join(dir, 'second.jsonl');
    const base = botConfig([tool('one', `${backend.url}/a`), tool('two', `${backend.url}/b`)]);
    gateway = await startSilentGateway(withAudit(base, { path: first }));
    const session = await initializeSession(gateway.url, '2025-11-25');
    await call(session, 'one');
    await gateway.reload(withAudit(base, { path: second }));
    await call(session, 'two');
    await gateway.close();
    gateway = undefined;
    assert.deepEqual(
      records(first).map((r) => r.tool),
      ['one'],
    );
    assert.deepEqual(
      records(second).map((r) => r.tool),
      ['two'],
    );
  });

  it('refuses a reload whose audit file cannot be opened, and keeps auditing to the running one', async () => {
    const first = path.join(dir, 'first.jsonl');
    const base = botConfig([tool('one', `${backend.url}/a`)]);
    gateway = await startSilentGateway(withAudit(base, { path: first }));
    const session = await initializeSession(gateway.url, '2025-11-25');
    // a directory where the file would be
    await assert.rejects(gateway.reload(withAudit(base, { path: dir })));
    await call(session, 'one');
    await gateway.close();
    gateway = undefined;
    assert.deepEqual(
      records(first).map((r) => r.tool),
      ['one'],
    );
  });

  it('refuses a reload to a pipe nothing reads at once, and keeps serving and auditing', async () => {
    const first = path.join(dir, 'first.jsonl');
    const pipe = path.join(dir, 'pipe');
    assert.equal(spawnSync('mkfifo', [pipe]).status, 0, 'mkfifo');
    const base = botConfig([tool('one', `${backend.url}/a`)]);
    gateway = await startSilentGateway(withAudit(base, { path: first }));
    const session = await initializeSession(gateway.url, '2025-11-25');
    await assert.rejects(
      gateway.reload(withAudit(base, { path: pipe })),
      /cannot open .*pipe: a pipe or socket with nothing reading it, which would hold every write/,
    );
    await call(session, 'one');
    await gateway.reload(withAudit(base, { path: path.join(dir, 'second.jsonl') }));
    await gateway.close();
    gateway = undefined;
    assert.deepEqual(
      records(first).map((r) => r.tool),
      ['one'],
    );
  });

  it('says so when --audit-log holds the audit and a reload changes audit_log, and keeps the audit there', async () => {
    const held = path.join(dir, 'held.jsonl');
    const base = botConfig([tool('one', `${backend.url}/a`)]);
    const lines: string[] = [];
    gateway = await startGateway({
      config: withAudit(base, { path: path.join(dir, 'first.jsonl') }),
      auditLogPath: held,
      port: 0,
      host: '127.0.0.1',
      logger: (level, msg) => lines.push(`${level} ${msg}`),
    });
    const session = await initializeSession(gateway.url, '2025-11-25');
    await gateway.reload(withAudit(base, { path: path.join(dir, 'second.jsonl') }));
    await call(session, 'one');
    await gateway.close();
    gateway = undefined;
    assert.ok(
      lines.includes(
        'warn audit_log changed but not applied: --audit-log (or its environment variable) sets the audit',
      ),
      lines.join('\n'),
    );
    assert.deepEqual(
      records(held).map((r) => r.tool),
      ['one'],
    );
    assert.equal(existsSync(path.join(dir, 'second.jsonl')), false);
  });

  it('applies a reload whose previous audit target fails to close, and says so', async () => {
    const second = path.join(dir, 'second.jsonl');
    const base = botConfig([tool('one', `${backend.url}/a`)]);
    const lines: string[] = [];
    gateway = await startGateway({
      config: withAudit(base, { path: path.join(dir, 'first.jsonl') }),
      port: 0,
      host: '127.0.0.1',
      logger: (level, msg) => lines.push(`${level} ${msg}`),
    });
    const session = await initializeSession(gateway.url, '2025-11-25');
    // no built-in target's close rejects: one that would is put in its place
    const replace = ReplaceableAudit.prototype.replace;
    ReplaceableAudit.prototype.replace = function (this: ReplaceableAudit, next) {
      void replace.call(this, next);
      return Promise.reject(new Error('close failed'));
    };
    try {
      await gateway.reload(withAudit(base, { path: second }));
    } finally {
      ReplaceableAudit.prototype.replace = replace;
    }
    await call(session, 'one');
    await gateway.close();
    gateway = undefined;
    assert.ok(lines.includes('error the previous audit target did not close'), lines.join('\n'));
    assert.ok(lines.includes('info config reloaded'), lines.join('\n'));
    assert.deepEqual(
      records(second).map((r) => r.tool),
      ['one'],
    );
  });

  it('ends a reload, and serves the next, while the previous audit target is still closing', async () => {
    // a pipe whose reader stopped: its close waits for writes the reader never takes
    const base = botConfig([tool('one', `${backend.url}/a`)]);
    const lines: string[] = [];
    gateway = await startGateway({
      config: withAudit(base, { path: path.join(dir, 'first.jsonl') }),
      port: 0,
      host: '127.0.0.1',
      logger: (level, msg) => lines.push(`${level} ${msg}`),
    });
    const replace = ReplaceableAudit.prototype.replace;
    ReplaceableAudit.prototype.replace = function (this: ReplaceableAudit, next) {
      void replace.call(this, next);
      return new Promise<void>(() => undefined);
    };
    const inTime = (reload: Promise<void>): Promise<unknown> =>
      Promise.race([reload, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 2_000))]);
    try {
      assert.equal(await inTime(gateway.reload(withAudit(base, false))), undefined);
      const next = botConfig([tool('one', `${backend.url}/a`), tool('two', `${backend.url}/b`)], { audit_log: false });
      assert.equal(await inTime(gateway.reload(next)), undefined);
    } finally {
      ReplaceableAudit.prototype.replace = replace;
    }
    assert.equal(lines.filter((l) => l === 'info config reloaded').length, 2, lines.join('\n'));
  });

  it('a reload refused after its audit file opened changes nothing and leaves nothing open', async () => {
    const first = path.join(dir, 'first.jsonl');
    const second = path.join(dir, 'second.jsonl');
    const base = botConfig([tool('one', `${backend.url}/a`)]);
    // the last step that may refuse a reload fails: here the log line of a store added without limits
    const failing = 'limit store configured without rate_limits';
    gateway = await startGateway({
      config: withAudit(base, { path: first }),
      port: 0,
      host: '127.0.0.1',
      logger: (_level, msg) => {
        if (msg.startsWith(failing)) throw new Error('the logger failed');
      },
    });
    const timersBefore = timers();
    const next = withAudit(botConfig([tool('one', `${backend.url}/a`), tool('two', `${backend.url}/b`)]), {
      path: second,
    });
    await assert.rejects(
      gateway.reload({ ...next, gateway: { ...next.gateway, store: { url: 'redis://127.0.0.1:1' } } }),
      /the logger failed/,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const open = openTargets();
    assert.ok(open.includes(first), 'the running audit file stays open');
    assert.ok(!open.includes(second), `${second} is still open`);
    // a store client left behind would keep a reconnect timer (and the test process) alive
    assert.ok(timers() <= timersBefore, `timers: ${timersBefore} before, ${timers()} after`);
    const session = await initializeSession(gateway.url, '2025-11-25');
    const listed = await postJson(
      gateway.url,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { 'mcp-session-id': session },
    );
    assert.deepEqual(
      (listed.json as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name),
      ['one'],
    );
  });
});

/** What this process's file descriptors point at (`/proc/self/fd`). */
function openTargets(): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      return [readlinkSync(`/proc/self/fd/${fd}`)];
    } catch {
      return [];
    }
  });
}

/** The timers keeping this process alive. */
function timers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

describe('ReplaceableAudit', () => {
  /** A target that records its close, failing it when `fails`. */
  function target(closed: string[], name: string, fails = false) {
    return {
      write: () => undefined,
      close: async () => {
        closed.push(name);
        if (fails) throw new Error(`${name} did not close`);
      },
    };
  }

  it('closes every replaced target in turn when one of their closes fails', async () => {
    const closed: string[] = [];
    const audit = new ReplaceableAudit(target(closed, 'first', true));
    await assert.rejects(audit.replace(target(closed, 'second')), /first did not close/);
    await audit.replace(target(closed, 'third'));
    await audit.close();
    assert.deepEqual(closed, ['first', 'second', 'third']);
  });
});
