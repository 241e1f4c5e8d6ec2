/**
 * `audit_log: 'store'` through a real redis-server: two gateway processes (two "nodes") write their records to the
 * store and one dashboard counts every call once, per node; a graceful stop sends what was waiting; records made
 * while the store is down arrive when it is back; a batch sent twice is stored once; what a hostile writer puts in
 * the store is counted as malformed, never trusted.
 */
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Redis } from 'ioredis';
import type { GatewayConfig } from '../../../src/config';
import { startDashboard, type RunningDashboard } from '../../../src/dashboard';
import { startGateway } from '../../../src/gateway';
import { silentLogger } from '../../../src/gateway/log/logger';
import { SharedStore } from '../../../src/gateway/store';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { botConfig, objectSchema, tool } from '../../helpers/config';
import { eventually } from '../../helpers/eventually';
import { killAllGatewayProcesses, startGatewayProcess, type GatewayProcess } from '../../helpers/gateway-process';
import { initializeRequest, initializeSession, postJson, postMcp, toolsCallRequest } from '../../helpers/mcp';
import { NEEDS_REDIS, REDIS_SERVER, startRedis, type RedisServer } from '../../helpers/redis-server';
import { BOT } from '../../helpers/tokens';

interface StoreStats {
  gateway: string;
  streams: number;
  unreadable_streams: number;
  records_by_node: Record<string, number>;
  reachable: boolean;
}

/** A record as the gateway writes it: one `ok` call of `lookup` by `bot`. */
function auditLine(gateway: string, durationMs: number): string {
  return JSON.stringify({
    ts: new Date().toISOString(),
    gateway,
    session: null,
    principal: 'bot',
    auth: 'token',
    client: { name: null, version: null },
    tool: 'lookup',
    outcome: 'ok',
    error: null,
    duration_ms: durationMs,
  });
}

if (REDIS_SERVER === undefined) {
  describe("audit_log: 'store' (redis)", () => it.skip(`${NEEDS_REDIS}: audit records through the store`));
} else {
  describe("audit_log: 'store' (redis)", function () {
    this.timeout(120_000);
    let redis: RedisServer;
    let backend: TestBackend;
    const dashboards: RunningDashboard[] = [];

    before(async () => {
      redis = await startRedis();
      backend = await startBackend();
    });
    after(async () => {
      await killAllGatewayProcesses();
      for (const d of dashboards) await d.close();
      await redis?.stop();
      await backend?.close();
    });

    function config(name: string): GatewayConfig {
      return botConfig(
        [tool('lookup', `${backend.url}/lookup`, { inputSchema: objectSchema({ q: { type: 'string' } }, ['q']) })],
        { name, audit_log: 'store', store: { url: redis.url } },
      );
    }

    function gateway(doc: GatewayConfig, node: string): Promise<GatewayProcess> {
      return startGatewayProcess({ config: doc, auditLog: false, env: { CDKTF_MCP_GATEWAY_NODE: node } });
    }

    /** Makes `valid` calls that reach the service and `invalid` ones the gateway refuses, in one session. */
    async function calls(gw: GatewayProcess, valid: number, invalid: number): Promise<void> {
      const init = await postMcp(gw.url, initializeRequest('2025-11-25'), { token: BOT.token });
      const sessionId = init.headers.get('mcp-session-id')!;
      for (let i = 0; i < valid + invalid; i++) {
        const args = i < valid ? { q: `x${i}` } : { q: i };
        const res = await postMcp(gw.url, toolsCallRequest('lookup', args), {
          token: BOT.token,
          sessionId,
          protocolVersion: '2025-11-25',
        });
        assert.equal(res.status, 200, res.text);
      }
    }

    async function dashboard(gatewayName: string): Promise<RunningDashboard> {
      const d = await startDashboard(
        {
          auditDirs: [],
          auditStores: [{ gateway: gatewayName, url: redis.url }],
          port: 0,
          host: '127.0.0.1',
          auth: undefined,
          retentionMs: 86_400_000,
          flag: { minRefusals: 10, minRate: 0.5 },
        },
        { logger: silentLogger, pollIntervalMs: 100 },
      );
      dashboards.push(d);
      return d;
    }

    async function summary(d: RunningDashboard): Promise<{
      agents: { principal: string; calls: number; refusals: number }[];
      ingest: { stores: StoreStats[]; malformed: number; records: number };
    }> {
      const res = await fetch(`${d.url}api/summary?window=1h`);
      assert.equal(res.status, 200);
      return (await res.json()) as never;
    }

    it('two nodes write to the store; the dashboard counts every call once, per node, refusals included', async () => {
      const name = `gw-${randomBytes(3).toString('hex')}`;
      const [a, b] = await Promise.all([gateway(config(name), 'node-a'), gateway(config(name), 'node-b')]);
      const d = await dashboard(name);
      await Promise.all([calls(a, 7, 3), calls(b, 4, 2)]);
      await eventually(async () => {
        const { ingest, agents } = await summary(d);
        assert.deepEqual({ ...ingest.stores[0].records_by_node }, { 'node-a': 10, 'node-b': 6 });
        assert.equal(ingest.stores[0].streams, 2);
        assert.deepEqual(
          agents.map((x) => [x.principal, x.calls, x.refusals]),
          [[BOT.id, 16, 5]],
        );
      });
      // a second read of the same streams (a restarted dashboard) counts the same, never twice
      const again = await dashboard(name);
      await eventually(async () =>
        assert.deepEqual({ ...(await summary(again)).ingest.stores[0].records_by_node }, { 'node-a': 10, 'node-b': 6 }),
      );
      await d.streams.read();
      assert.deepEqual({ ...(await summary(d)).ingest.stores[0].records_by_node }, { 'node-a': 10, 'node-b': 6 });
    });

    it('a graceful stop (SIGTERM) sends every record the replica made before it exits', async () => {
      const name = `gw-${randomBytes(3).toString('hex')}`;
      const gw = await gateway(config(name), 'node-a');
      await calls(gw, 25, 5);
      const status = await gw.stop('SIGTERM');
      assert.equal(status.code, 0, gw.stderr());
      const d = await dashboard(name);
      assert.deepEqual({ ...(await summary(d)).ingest.stores[0].records_by_node }, { 'node-a': 30 });
    });

    it('records made while the store is down wait in the replica and arrive once it is back', async () => {
      const name = `gw-${randomBytes(3).toString('hex')}`;
      const gw = await gateway(config(name), 'node-a');
      await redis.kill();
      await calls(gw, 6, 2);
      await redis.restart(); // empty: nothing was persisted, so every record counted came from the backlog
      const d = await dashboard(name);
      await eventually(
        async () => assert.deepEqual({ ...(await summary(d)).ingest.stores[0].records_by_node }, { 'node-a': 8 }),
        { timeoutMs: 15_000 },
      );
      assert.match(gw.stdout(), /limit store available again/);
    });

    for (const keepStore of [true, false]) {
      it(`a reload to a file while the store is down writes the records waiting for it there (store ${keepStore ? 'kept' : 'removed'})`, async () => {
        const dir = mkdtempSync(path.join(tmpdir(), 'store-audit-reload-'));
        const file = path.join(dir, 'audit.jsonl');
        const doc = config(`gw-${randomBytes(3).toString('hex')}`);
        const lines: string[] = [];
        const gw = await startGateway({
          config: doc,
          port: 0,
          host: '127.0.0.1',
          logger: (level, msg, fields) => lines.push(`${level} ${msg} ${JSON.stringify(fields)}`),
        });
        try {
          const session = await initializeSession(gw.url, '2025-11-25');
          await redis.kill();
          for (let i = 0; i < 5; i++) {
            const res = await postJson(gw.url, toolsCallRequest('lookup', { q: `x${i}` }), {
              'mcp-session-id': session,
            });
            assert.equal(res.status, 200);
          }
          const { store, ...withoutStore } = doc.gateway;
          await gw.reload({
            ...doc,
            gateway: { ...(keepStore ? { ...withoutStore, store } : withoutStore), audit_log: { path: file } },
          });
          await gw.close();
          const written = readFileSync(file, 'utf8')
            .split('\n')
            .filter((l) => l !== '');
          assert.deepEqual(
            written.map((l) => (JSON.parse(l) as { tool: string; outcome: string }).outcome),
            ['ok', 'ok', 'ok', 'ok', 'ok'],
          );
          assert.ok(
            lines.some((l) => l.startsWith('warn audit records the store had not taken went to the new audit target')),
            lines.join('\n'),
          );
          assert.ok(!lines.some((l) => l.includes('not written')), lines.join('\n'));
        } finally {
          await gw.close();
          await redis.restart();
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }

    it('a batch sent again (a timeout after the store took it) is stored once', async () => {
      const store = new SharedStore({ url: redis.url }, undefined, 'retry-gw', silentLogger);
      try {
        assert.ok(await store.connected(5_000));
        const line = (i: number): string => auditLine('retry-gw', i);
        const t = Date.now();
        const batch = [`${t}-0`, line(0), `${t}-1`, line(1), `${t}-2`, line(2)];
        assert.deepEqual(await store.appendAudit('r1', 'node-a', batch), [3, `${t}-2`]);
        assert.deepEqual(await store.appendAudit('r1', 'node-a', batch), [0, `${t}-2`]);
        assert.deepEqual(await store.appendAudit('r1', 'node-a', [...batch, `${t}-3`, line(3)]), [1, `${t}-3`]);
        // a key of another type under the stream's name is a refusal, not records silently dropped
        const client = new Redis(redis.url);
        await client.set('cdktf-mcp-gateway:retry-gw:audit:r2', 'x');
        client.disconnect();
        await assert.rejects(store.appendAudit('r2', 'node-a', batch), /WRONGTYPE/);
        const d = await dashboard('retry-gw');
        assert.deepEqual({ ...(await summary(d)).ingest.stores[0].records_by_node }, { 'node-a': 4 });
      } finally {
        await store.close();
      }
    });

    it('an entry ahead of the replica in its stream (another writer): the replica moves to a new stream, loses nothing', async () => {
      const name = `gw-${randomBytes(3).toString('hex')}`;
      const gw = await gateway(config(name), 'node-a');
      await calls(gw, 5, 0);
      const client = new Redis(redis.url);
      try {
        const index = `cdktf-mcp-gateway:${name}:audit`;
        await eventually(async () => assert.equal(Object.keys(await client.hgetall(index)).length, 1));
        const [stream] = Object.keys(await client.hgetall(index));
        await eventually(async () => assert.equal(await client.xlen(stream), 5));
        await client.xadd(stream, `${Date.now() + 365 * 86_400_000}-0`, 'r', '{}');
        await calls(gw, 7, 0);
        const d = await dashboard(name);
        await eventually(async () => {
          const { ingest } = await summary(d);
          assert.deepEqual({ ...ingest.stores[0].records_by_node }, { 'node-a': 12 });
          assert.equal(ingest.stores[0].streams, 2);
          assert.equal(ingest.malformed, 1);
        });
        assert.match(gw.stdout(), /audit stream holds an entry this replica did not write; using a new stream/);
      } finally {
        client.disconnect();
      }
    });

    it('a hostile writer: malformed entries are counted and skipped; a node named __proto__ is just a name', async () => {
      const client = new Redis(redis.url);
      try {
        const index = 'cdktf-mcp-gateway:evil-gw:audit';
        await client.hset(index, `${index}:x`, '__proto__', `${index}:y`, 'constructor');
        await client.xadd(`${index}:x`, '*', 'r', '{"not":"a record"}');
        await client.xadd(`${index}:x`, '*', 'other', 'field');
        await client.xadd(`${index}:y`, '*', 'r', 'x'.repeat(100_000));
        // a good record beside keys the store will not read as streams, an id at the end of the range, an index
        // field outside the gateway, and a node name of a megabyte: each stops only itself
        const good = auditLine('evil-gw', 1);
        await client.hset(
          index,
          `${index}:good`,
          'n'.repeat(1_000_000),
          `${index}:string`,
          'node-s',
          `${index}:end`,
          'node-e',
          'some:other:key',
          'node-o',
        );
        await client.xadd(`${index}:good`, '*', 'r', good);
        await client.set(`${index}:string`, 'not a stream');
        await client.xadd(`${index}:end`, '18446744073709551615-18446744073709551615', 'r', good);
        const d = await dashboard('evil-gw');
        const { ingest } = await summary(d);
        assert.equal(ingest.malformed, 3);
        assert.deepEqual(
          { ...ingest.stores[0].records_by_node },
          JSON.parse(`{"__proto__":0,"constructor":0,"${'n'.repeat(128)}":1,"node-e":1}`),
        );
        assert.equal(ingest.stores[0].streams, 5);
        assert.equal(ingest.stores[0].unreadable_streams, 1);
        // read again: the stream at the end of the range and the others are not read twice, nor do they fail
        await d.streams.read();
        await d.streams.read();
        const again = (await summary(d)).ingest;
        assert.equal(again.stores[0].unreadable_streams, 1);
        assert.deepEqual(again.stores[0].records_by_node, ingest.stores[0].records_by_node);
        assert.equal(again.stores[0].reachable, true);
      } finally {
        client.disconnect();
      }
    });

    it('a dashboard says why it reads nothing: a password missing, nothing listening, a gateway never written', async () => {
      const locked = await startRedis({ password: 'p4ss' });
      const lines: string[] = [];
      const logger = (level: string, msg: string, fields?: Record<string, unknown>) =>
        lines.push(`${level} ${msg} ${JSON.stringify(fields ?? {})}`);
      const d = await startDashboard(
        {
          auditDirs: [],
          auditStores: [
            { gateway: 'gw', url: locked.url },
            { gateway: 'gw', url: 'redis://127.0.0.1:1' },
            { gateway: 'never-written', url: redis.url },
          ],
          port: 0,
          host: '127.0.0.1',
          auth: undefined,
          retentionMs: 86_400_000,
          flag: { minRefusals: 10, minRate: 0.5 },
        },
        { logger, pollIntervalMs: 100 },
      );
      dashboards.push(d);
      try {
        await d.streams.read();
        await d.streams.read();
        const stores = (await summary(d)).ingest.stores;
        assert.deepEqual(
          stores.map((st) => [st.reachable, (st as { error?: string }).error, st.streams]),
          [
            [false, 'the store needs a password: check password_file', 0],
            [false, 'connection refused: nothing listens at that host and port', 0],
            [true, undefined, 0],
          ],
        );
        // once per outage, not once per read
        assert.equal(lines.filter((l) => l.includes('audit store unreachable')).length, 2, lines.join('\n'));
        assert.equal(lines.filter((l) => l.includes('no replica of this gateway')).length, 1, lines.join('\n'));
      } finally {
        await locked.stop();
      }
    });

    it("refuses audit_log: 'store' without a store, naming the fix", async () => {
      const doc = botConfig([tool('lookup', `${backend.url}/lookup`)], { audit_log: 'store' });
      await assert.rejects(
        startGatewayProcess({ config: doc, auditLog: false, startTimeoutMs: 5_000 }),
        /gateway\.audit_log: 'store' writes the audit to the gateway's store, and there is none: set gateway\.store, or audit_log: true for a file/,
      );
    });
  });
}
