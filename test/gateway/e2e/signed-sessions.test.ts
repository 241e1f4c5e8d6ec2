/**
 * Stateless signed sessions of the 2025 revisions (docs/gateway.md, issue 12) across `serve` processes: a session id is
 * an HMAC-signed token, so every process holding the same key serves it — after a restart, on a second process,
 * under load alternating between two processes — while a tampered id, an expired one, another token's, or one
 * signed with another key is 404. A bad key stops `serve` at start with one line naming its source. One token
 * opening 4,000 sessions leaves nothing stored.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { GatewayConfig } from '../../../src/config/gateway-config';
import { readAuditLog } from '../../helpers/audit-log';
import { startFakeService, type FakeService } from '../../helpers/backend';
import { gatewayConfig, supportDeskTools } from '../../helpers/config';
import {
  cliNodeArgs,
  killAllGatewayProcesses,
  startGatewayProcess,
  writeTempConfig,
  type GatewayProcess,
} from '../../helpers/gateway-process';
import { startInProcessGateway } from '../../helpers/in-process-gateway';
import { initializeSession, postMcp, toolsCallRequest } from '../../helpers/mcp';
import { runPool } from '../../helpers/pool';
import { BOT, OTHER } from '../../helpers/tokens';
import { sessionDigest } from '../../../src/gateway/audit/session-digest';

/** A tools/list in `session` as `token` against `url`: the HTTP status and the error message if any. */
async function list(url: string, session: string, token = BOT.token): Promise<{ status: number; message?: string }> {
  const res = await postMcp(url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { token, sessionId: session });
  return { status: res.status, message: res.message?.error?.message };
}

/** Flips one character of `id` at `index` within the base64url alphabet. */
function flip(id: string, index: number): string {
  return id.slice(0, index) + (id[index] === 'A' ? 'B' : 'A') + id.slice(index + 1);
}

/** Runs `serve` with `env` until it exits by itself (a start-up failure), bounded. */
function serveUntilExit(
  configPath: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cliNodeArgs(['serve', '--config', configPath, '--port', '0']), {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...env },
    });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not exit; stderr: ${stderr}`));
    }, 10_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('signed sessions across serve processes', function () {
  this.timeout(90_000);
  let service: FakeService;
  let keyDir: string;
  let keyFile: string;
  let otherKeyFile: string;
  const configWith = (settings: Record<string, unknown>): GatewayConfig =>
    gatewayConfig({ tokens: [BOT, OTHER], tools: supportDeskTools(service.url), settings });

  before(async () => {
    service = await startFakeService();
    keyDir = mkdtempSync(path.join(tmpdir(), 'mcp-gw-key-'));
    keyFile = path.join(keyDir, 'session.key');
    otherKeyFile = path.join(keyDir, 'other.key');
    writeFileSync(keyFile, `${randomBytes(32).toString('base64')}\n`);
    writeFileSync(otherKeyFile, randomBytes(48).toString('hex'));
  });
  after(async () => {
    await killAllGatewayProcesses();
    await service.close();
    rmSync(keyDir, { recursive: true, force: true });
  });

  describe('two processes and a restart with one key', () => {
    let a: GatewayProcess;
    let b: GatewayProcess;
    let session: string;

    before(async () => {
      [a, b] = await Promise.all([
        startGatewayProcess({ config: configWith({ session_key_file: keyFile }) }),
        startGatewayProcess({ config: configWith({ session_key_file: keyFile }) }),
      ]);
      session = await initializeSession(a.url, '2025-11-25');
    });

    it('logs where the key came from (never the key)', () => {
      assert.match(a.stdout(), /"msg":"listening".*"session_key":"file"/);
    });

    it('serves a session opened on one process on the other', async () => {
      assert.deepEqual(await list(b.url, session), { status: 200, message: undefined });
      const call = await postMcp(b.url, toolsCallRequest('health'), { token: BOT.token, sessionId: session });
      assert.equal(call.message?.result?.structuredContent?.url, '/health');
    });

    it('keeps serving the session after a restart of serve with the same key', async () => {
      await a.stop();
      const restarted = await startGatewayProcess({ config: configWith({ session_key_file: keyFile }) });
      assert.equal((await list(restarted.url, session)).status, 200);
      a = restarted;
    });

    it('refuses the session on a process with another key (404)', async () => {
      const c = await startGatewayProcess({ config: configWith({ session_key_file: otherKeyFile }) });
      assert.deepEqual(await list(c.url, session), { status: 404, message: 'Session not found' });
      await c.stop();
    });

    it('refuses it once expired: a process with session_ttl_ms 1 reads the issue time from the id (404)', async () => {
      const short = await startGatewayProcess({ config: configWith({ session_key_file: keyFile, session_ttl_ms: 1 }) });
      assert.deepEqual(await list(short.url, session), { status: 404, message: 'Session not found' });
      await short.stop();
    });

    it('refuses a tampered id: any changed character of the payload or the MAC (404)', async () => {
      const dot = session.indexOf('.');
      for (const index of [0, 5, dot - 1, dot + 1, session.length - 1]) {
        assert.deepEqual(
          await list(a.url, flip(session, index)),
          { status: 404, message: 'Session not found' },
          `flipped at ${index}`,
        );
      }
      assert.equal((await list(a.url, `${session}A`)).status, 404);
      assert.equal((await list(a.url, session.replace('.', '..'))).status, 404);
    });

    it('refuses the session with another token (404): it is bound to its principal', async () => {
      assert.deepEqual(await list(b.url, session, OTHER.token), { status: 404, message: 'Session not found' });
    });

    it('DELETE revokes in the receiving process only; the other may honour the id until it expires', async () => {
      const own = await initializeSession(a.url, '2025-06-18');
      const del = await postMcp(a.url, '', { token: BOT.token, sessionId: own, method: 'DELETE' });
      assert.equal(del.status, 200);
      assert.equal((await list(a.url, own)).status, 404);
      assert.equal((await list(b.url, own)).status, 200);
    });

    it('alternates 2,000 calls between the two processes: 0 failures, every call audited exactly once', async () => {
      const sessions = [
        await initializeSession(a.url),
        await initializeSession(b.url),
        await initializeSession(a.url),
        await initializeSession(b.url),
      ];
      const urls = [a.url, b.url];
      const total = 2_000;
      // Call i uses session i % 4 on process ⌊i / 4⌋ % 2: each session's calls alternate between the processes.
      const results = await runPool(total, 16, async (i) => {
        const res = await postMcp(
          urls[Math.floor(i / 4) % 2],
          toolsCallRequest('get_customer', { customer_id: `C-${String(i).padStart(4, '0')}` }),
          {
            token: BOT.token,
            sessionId: sessions[i % 4],
          },
        );
        if (res.status !== 200 || res.message?.result?.isError !== undefined || res.message?.error !== undefined) {
          throw new Error(`call ${i}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
        }
        return res.message!.result.structuredContent.url as string;
      });
      const failures = results.filter((r) => 'error' in r);
      assert.deepEqual(failures.slice(0, 3), [], `${failures.length} failures`);
      // Drain and flush both audit logs (SIGTERM), then count.
      await Promise.all([a.stop(), b.stop()]);
      const isLoad = (r: { tool?: string; outcome?: string; session?: string }) =>
        r.tool === 'get_customer' && r.outcome === 'ok' && sessions.map(sessionDigest).includes(r.session!);
      const onA = readAuditLog(a.auditLogPath).filter(isLoad);
      const onB = readAuditLog(b.auditLogPath).filter(isLoad);
      assert.equal(onA.length, total / 2, 'process A audited each of its calls once');
      assert.equal(onB.length, total / 2, 'process B audited each of its calls once');
      // Sessions opened on one process were used on the other, and audited under their id there.
      for (const id of sessions) {
        assert.equal(
          onA.filter((r) => r.session === sessionDigest(id)).length,
          total / 8,
          'each session: half of its calls on A',
        );
        assert.equal(onB.filter((r) => r.session === sessionDigest(id)).length, total / 8, 'and half on B');
      }
      const urlsSeen = results.map((r) => ('value' in r ? r.value : ''));
      assert.equal(new Set(urlsSeen).size, total, 'every call reached the service with its own arguments');
    });
  });

  describe('the session key at start-up', () => {
    it('refuses a short key file with one line naming session_key_file', async () => {
      const short = path.join(keyDir, 'short.key');
      writeFileSync(short, randomBytes(16).toString('hex'));
      const { configPath } = writeTempConfig(configWith({ session_key_file: short }));
      const { code, stderr } = await serveUntilExit(configPath, {});
      assert.equal(code, 1);
      assert.equal(stderr.trim().split('\n').length, 1, stderr);
      assert.match(
        stderr,
        new RegExp(`session key from session_key_file ${short.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: 16 bytes`),
      );
    });

    it('refuses a malformed CDKTF_MCP_GATEWAY_SESSION_KEY with one line naming the variable', async () => {
      const { configPath } = writeTempConfig(configWith({}));
      const { code, stderr } = await serveUntilExit(configPath, { CDKTF_MCP_GATEWAY_SESSION_KEY: 'not a key!' });
      assert.equal(code, 1);
      assert.equal(stderr.trim().split('\n').length, 1, stderr);
      assert.match(stderr, /session key from CDKTF_MCP_GATEWAY_SESSION_KEY: not hex or base64 text/);
    });

    it('refuses a missing key file with one line', async () => {
      const { configPath } = writeTempConfig(configWith({ session_key_file: path.join(keyDir, 'missing.key') }));
      const { code, stderr } = await serveUntilExit(configPath, {});
      assert.equal(code, 1);
      assert.match(stderr, /session_key_file .*missing\.key: cannot read it \(ENOENT\)/);
    });

    it('takes the key from CDKTF_MCP_GATEWAY_SESSION_KEY: two processes with it share sessions', async () => {
      const key = randomBytes(32).toString('base64url');
      const { configPath } = writeTempConfig(configWith({ audit_log: false }));
      const env = { CDKTF_MCP_GATEWAY_SESSION_KEY: key };
      const started = await Promise.all([0, 1].map(() => serveWithEnv(configPath, env)));
      try {
        const session = await initializeSession(started[0].url);
        assert.equal((await list(started[1].url, session)).status, 200);
      } finally {
        for (const s of started) s.kill('SIGKILL');
      }
    });
  });

  describe('no per-session memory', () => {
    it('one token opening 4,000 sessions: all distinct and valid, nothing stored (no stream, no revocation)', async () => {
      const gw = await startInProcessGateway(configWith({}));
      try {
        const results = await runPool(4_000, 16, () => initializeSession(gw.url, '2025-11-25'));
        const ids = results.map((r) => ('value' in r ? r.value : assert.fail(String(r.error))));
        assert.equal(new Set(ids).size, 4_000);
        assert.deepEqual(gw.gateway.stats(), { openStreams: 0, revokedSessions: 0 });
        assert.equal((await list(gw.url, ids[0])).status, 200);
        assert.equal((await list(gw.url, ids[3_999])).status, 200);
      } finally {
        await gw.close();
      }
    });
  });
});

/** `serve` with `env`, resolved once it listens (its url and the child to kill). */
function serveWithEnv(
  configPath: string,
  env: Record<string, string>,
): Promise<{ url: string; kill: (s: NodeJS.Signals) => void }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cliNodeArgs(['serve', '--config', configPath, '--port', '0']), {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not listen: ${out}`));
    }, 10_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const m = /"msg":"listening".*"url":"([^"]+)".*"session_key":"env"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], kill: (s) => child.kill(s) });
      }
    });
    child.on('close', () => {
      clearTimeout(timer);
      reject(new Error(`serve exited: ${out}`));
    });
  });
}
