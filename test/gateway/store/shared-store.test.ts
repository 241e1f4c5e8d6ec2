/**
 * Rate limits and ended sessions shared through a real redis-server: two gateway processes on one store count one
 * principal's calls together, refuse the call over the limit with the exact error, keep a day's quota across a
 * restart, end a session on both, and ride out the store being killed under either `on_unavailable`.
 */
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { Agent } from 'undici';
import type { GatewayConfig, RateLimitConfig, StoreConfig } from '../../../src/config';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { botConfig, tool } from '../../helpers/config';
import { eventually, sleep } from '../../helpers/eventually';
import { killAllGatewayProcesses, startGatewayProcess, type GatewayProcess } from '../../helpers/gateway-process';
import { initializeRequest, postMcp, toolsCallRequest, type McpHttpResponse } from '../../helpers/mcp';
import { modernRequest, postModern } from '../../helpers/modern';
import { NEEDS_REDIS, REDIS_SERVER, startRedis, type RedisServer } from '../../helpers/redis-server';
import { BOT, OTHER } from '../../helpers/tokens';
import { SharedStore } from '../../../src/gateway/store';

const SESSION_KEY = randomBytes(32).toString('hex');

if (REDIS_SERVER === undefined) {
  describe('shared store (redis)', () => it.skip(`${NEEDS_REDIS}: shared limits and ended sessions`));
} else {
  describe('shared store (redis)', function () {
    this.timeout(120_000);
    let redis: RedisServer;
    let backend: TestBackend;

    before(async () => {
      redis = await startRedis({ password: 'store-secret' });
      backend = await startBackend();
    });
    after(async () => {
      await killAllGatewayProcesses();
      await redis?.stop();
      await backend?.close();
    });

    function config(
      limits: RateLimitConfig[],
      store: Partial<StoreConfig> = {},
      name = `gw-${randomBytes(4).toString('hex')}`,
    ): GatewayConfig {
      return botConfig([tool('lookup', `${backend.url}/lookup`), tool('create_ticket', `${backend.url}/tickets`)], {
        name,
        rate_limits: limits,
        store: { url: redis.url, password: { secret: 'STORE_PASSWORD' }, ...store },
      });
    }

    function gateway(doc: GatewayConfig): Promise<GatewayProcess> {
      return startGatewayProcess({
        config: doc,
        env: { STORE_PASSWORD: 'store-secret', CDKTF_MCP_GATEWAY_SESSION_KEY: SESSION_KEY },
      });
    }

    async function session(gw: GatewayProcess, token = BOT.token): Promise<string> {
      const res = await postMcp(gw.url, initializeRequest('2025-11-25'), { token });
      const id = res.headers.get('mcp-session-id');
      assert.ok(id, `initialize: HTTP ${res.status} ${res.text}`);
      return id;
    }

    function call(gw: GatewayProcess, sessionId: string, name = 'lookup', token = BOT.token): Promise<McpHttpResponse> {
      return postMcp(gw.url, toolsCallRequest(name, {}), { token, sessionId, protocolVersion: '2025-11-25' });
    }

    /** Waits until `windowMs` has at least `needMs` left on this machine's clock (the store's clock too). */
    async function roomInWindow(windowMs: number, needMs: number): Promise<void> {
      const left = windowMs - (Date.now() % windowMs);
      if (left < needMs) await sleep(left + 50);
    }

    it('two processes admit exactly N calls of one principal together and refuse call N+1 with -32023 and Retry-After', async () => {
      const doc = config([{ calls: 6, per: 'minute' }]);
      const [a, b] = await Promise.all([gateway(doc), gateway(doc)]);
      const [sa, sb] = await Promise.all([session(a), session(b)]);
      await roomInWindow(60_000, 15_000);
      for (let i = 0; i < 6; i++) {
        const res = await (i % 2 === 0 ? call(a, sa) : call(b, sb));
        assert.equal(res.status, 200, `call ${i + 1}: ${res.text}`);
        assert.equal(res.message?.error, undefined, `call ${i + 1}: ${res.text}`);
      }
      const served = backend.requests;
      const over = await postMcp(
        b.url,
        { ...toolsCallRequest('lookup', {}), id: 'seventh' },
        {
          token: BOT.token,
          sessionId: sb,
          protocolVersion: '2025-11-25',
        },
      );
      const expectedWait = 60_000 - (Date.now() % 60_000);
      assert.equal(over.status, 429, over.text);
      const body = JSON.parse(over.text);
      assert.equal(body.id, 'seventh');
      assert.equal(body.error.code, -32023);
      assert.equal(body.error.message, 'Rate limit reached: 6 calls per minute');
      assert.equal(body.error.data.limit, 6);
      assert.equal(body.error.data.remaining, 0);
      assert.ok(
        Math.abs(body.error.data.retryAfterMs - expectedWait) < 1_000,
        `retryAfterMs ${body.error.data.retryAfterMs} vs ${expectedWait}`,
      );
      assert.equal(Number(over.headers.get('retry-after')), Math.ceil(body.error.data.retryAfterMs / 1000));
      assert.ok(Math.abs(Number(over.headers.get('retry-after')) - Math.ceil(expectedWait / 1000)) <= 1);
      assert.equal(over.headers.get('ratelimit-limit'), '6');
      assert.equal(over.headers.get('ratelimit-remaining'), '0');
      assert.equal(backend.requests, served, 'the refused call reached the service');
      // the same principal on the other process, and in the stateless revision, is over the limit too
      assert.equal((await call(a, sa)).status, 429);
      const modern = await postModern(
        a.url,
        modernRequest('tools/call', { name: 'lookup', arguments: {} }, 9),
        BOT.token,
      );
      assert.equal(modern.status, 429, modern.text);
      assert.equal(modern.message?.error?.code, -32023);
      // another principal is unaffected
      const other = await call(a, await session(a, OTHER.token), 'lookup', OTHER.token);
      assert.equal(other.status, 200, other.text);
      assert.equal(other.message?.error, undefined);
      // the audit records the refusal
      const audit = await eventually(async () => {
        const { readFileSync } = await import('node:fs');
        const lines = readFileSync(b.auditLogPath, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
        const refused = lines.find((l) => l.outcome === 'refused');
        assert.ok(refused);
        return refused;
      });
      assert.deepEqual(audit.error, { code: 'RATE_LIMITED', message: 'Rate limit reached: 6 calls per minute' });
    });

    /** A store of its own (a fresh gateway name), connected, with `timeout_ms` as given. */
    async function directStore(timeoutMs = 50): Promise<SharedStore> {
      const store = new SharedStore(
        { url: redis.url, password: { secret: 'STORE_PASSWORD' }, timeout_ms: timeoutMs },
        'store-secret',
        `direct-${randomBytes(4).toString('hex')}`,
        () => undefined,
      );
      assert.ok(await store.connected(5_000), 'the store connected');
      return store;
    }

    it('counts the calls of one event-loop turn in one script run, in order and exactly: 600 at once against 500', async () => {
      const store = await directStore();
      try {
        await roomInWindow(60_000, 15_000);
        const limits = [
          { key: `${store.prefix}limit:a:bot`, windowMs: 60_000, calls: 500 },
          { key: `${store.prefix}limit:b:bot`, windowMs: 3_600_000, calls: 10_000 },
        ];
        const replies = await Promise.all(Array.from({ length: 600 }, () => store.countCall(limits)));
        assert.deepEqual(
          replies.map((r) => r[0]),
          [...Array<number>(500).fill(1), ...Array<number>(100).fill(0)],
        );
        for (const [, index, retryAfterMs] of replies.slice(500)) {
          assert.equal(index, 1);
          assert.ok(retryAfterMs > 0 && retryAfterMs <= 60_000, String(retryAfterMs));
        }
        // a refused call counted nowhere: the hour's limit holds 500, so 9,500 more pass it
        const hour = await store.countCall([limits[1]].map((l) => ({ ...l, calls: 500 })));
        assert.deepEqual(hour.slice(0, 2), [0, 1]);
      } finally {
        await store.close();
      }
    });

    it('answers random batches (shared counters, runs of the same limits, refusals amid admissions) as one call at a time would', async () => {
      const store = await directStore();
      try {
        // The script names a counter KEY:START, so the key counted below over a minute and over an hour has one
        // counter for both in the minute that starts an hour. The gateway's limits never share a key (a limit's
        // id names its window); this test's model does, so it stays out of that minute.
        const intoHour = Date.now() % 3_600_000;
        if (intoHour < 60_000) await sleep(60_000 - intoHour + 50);
        await roomInWindow(60_000, 20_000);
        // three principals' counters over two windows, one key over both; counts small enough that most batches
        // refuse some calls
        const counters = ['a:p1', 'a:p2', 'b:p1', 'b:p2', 'c:p3', 'a:p1'].map((id, i) => ({
          key: `${store.prefix}limit:${id}`,
          windowMs: i % 2 === 0 ? 60_000 : 3_600_000,
        }));
        const model = new Map<string, number>();
        const counter = (l: { key: string; windowMs: number }): string => `${l.key} ${l.windowMs}`;
        let refused = 0;
        let seed = 7;
        const random = (n: number): number => {
          seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
          return seed % n;
        };
        // a pool of limit arrays, so that consecutive calls often carry the same one (the store counts such a run
        // in one step), as the gateway's calls of one principal and tool do
        const pool = Array.from({ length: 6 }, () => {
          const limits = counters.filter(() => random(3) === 0).map((c) => ({ ...c, calls: 1 + random(40) }));
          return limits.length > 0
            ? limits.slice(0, 3)
            : [{ ...counters[random(counters.length)], calls: 1 + random(40) }];
        });
        // one key over two windows in one call: two counters
        pool.push([
          { ...counters[0], calls: 30 },
          { ...counters[5], calls: 50 },
        ]);
        for (let batch = 0; batch < 60; batch++) {
          const calls: (typeof pool)[number][] = [];
          for (let i = 1 + random(16); i > 0; i--) {
            calls.push(calls.length > 0 && random(2) === 0 ? calls[calls.length - 1] : pool[random(pool.length)]);
          }
          const replies = await Promise.all(calls.map((limits) => store.countCall(limits)));
          calls.forEach((limits, i) => {
            const over = limits.map((l) => (model.get(counter(l)) ?? 0) + 1 > l.calls);
            const admitted = !over.includes(true);
            assert.equal(replies[i][0], admitted ? 1 : 0, `batch ${batch}, call ${i}: ${JSON.stringify(limits)}`);
            if (admitted) {
              for (const l of limits) model.set(counter(l), (model.get(counter(l)) ?? 0) + 1);
            } else {
              refused += 1;
              assert.ok(over[replies[i][1] - 1], `batch ${batch}, call ${i}: the refusal names a limit reached`);
            }
          });
        }
        assert.ok(model.size > 0 && refused > 0, `some calls were counted, ${refused} refused`);
      } finally {
        await store.close();
      }
    });

    it('takes an answer that arrived while its own event loop was busy past timeout_ms: no outage', async () => {
      const store = await directStore(50);
      try {
        const limits = [{ key: `${store.prefix}limit:busy:bot`, windowMs: 3_600_000, calls: 100 }];
        const answer = store.countCall(limits);
        // once the call is on its way (batched at the end of this turn, written to the socket at the end of the
        // next), the store answers within microseconds, but this process reads the answer only after 200 ms of work
        for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
        const until = Date.now() + 200;
        while (Date.now() < until);
        assert.deepEqual(await answer, [1, 0, 0]);
        assert.equal(store.available, true);
      } finally {
        await store.close();
      }
    });

    it('reads the ended sessions the store holds even when its subscription connects before its commands do', async () => {
      // a proxy to the store that holds the first connection (the command one) for a while, the next not at all
      const held: Socket[] = [];
      const proxy = createServer((socket) => {
        const upstream = connect(redis.port, '127.0.0.1');
        const pipe = (): void => void socket.pipe(upstream).pipe(socket);
        socket.on('error', () => upstream.destroy());
        upstream.on('error', () => socket.destroy());
        held.push(socket, upstream);
        if (held.length === 2) setTimeout(pipe, 400);
        else pipe();
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const url = `redis://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const lines: string[] = [];
      const gatewayName = `race-${randomBytes(4).toString('hex')}`;
      const writer = new SharedStore({ url: redis.url }, 'store-secret', gatewayName, () => undefined);
      const reader = new SharedStore({ url, timeout_ms: 2_000 }, 'store-secret', gatewayName, (_level, msg, fields) =>
        lines.push(`${msg} ${JSON.stringify(fields)}`),
      );
      try {
        assert.ok(await writer.connected(5_000), 'the writer connected');
        const expires = Date.now() + 60_000;
        await writer.revoke('mac-ended-before-start', expires);
        await eventually(() => held.length >= 2, { what: 'the command connection at the proxy' });
        const seen: string[] = [];
        reader.onRevoked((mac) => seen.push(mac));
        await eventually(() => assert.deepEqual(seen, ['mac-ended-before-start']), { timeoutMs: 5_000 });
        assert.deepEqual(
          lines.filter((l) => l.startsWith('ended sessions')),
          [],
        );
      } finally {
        await Promise.all([writer.close(), reader.close()]);
        for (const socket of held) socket.destroy();
        proxy.close();
      }
    });

    it('reads 100,000 ended sessions at connection without taking the store for down (one agent can end that many)', async () => {
      const gatewayName = `many-${randomBytes(4).toString('hex')}`;
      const writer = new SharedStore(
        { url: redis.url, timeout_ms: 5_000 },
        'store-secret',
        gatewayName,
        () => undefined,
      );
      const lines: string[] = [];
      const reader = new SharedStore({ url: redis.url, timeout_ms: 50 }, 'store-secret', gatewayName, (_l, msg) =>
        lines.push(msg),
      );
      try {
        assert.ok(await writer.connected(5_000), 'the writer connected');
        const client = (
          writer as unknown as { client: { zadd(k: string, ...a: (string | number)[]): Promise<unknown> } }
        ).client;
        const expires = Date.now() + 3_600_000;
        for (let from = 0; from < 100_000; from += 10_000) {
          const args: (string | number)[] = [];
          for (let i = from; i < from + 10_000; i++) args.push(expires, `ended-${i}`.padEnd(43, '_'));
          await client.zadd(`${writer.prefix}revoked`, ...args);
        }
        const seen = new Set<string>();
        reader.onRevoked((mac) => seen.add(mac));
        await eventually(() => assert.equal(seen.size, 100_000), { timeoutMs: 5_000 });
        assert.equal(reader.available, true);
        assert.deepEqual(
          lines.filter((l) => l !== 'limit store connected'),
          [],
        );
      } finally {
        await Promise.all([writer.close(), reader.close()]);
      }
    });

    it('fails only the call whose counter holds something else than a count, and counts it nowhere', async () => {
      const store = await directStore(2_000);
      const admin = new SharedStore(
        { url: redis.url, password: { secret: 'STORE_PASSWORD' } },
        'store-secret',
        'admin',
        () => undefined,
      );
      try {
        assert.ok(await admin.connected(5_000), 'the admin store connected');
        await roomInWindow(60_000, 15_000);
        const start = Date.now() - (Date.now() % 60_000);
        const hour = { key: `${store.prefix}limit:hour:bot`, windowMs: 3_600_000, calls: 100 };
        const broken = { key: `${store.prefix}limit:minute:bot`, windowMs: 60_000, calls: 100 };
        // another program wrote text where this window's count belongs
        await (admin as unknown as { client: { set(k: string, v: string): Promise<unknown> } }).client.set(
          `${broken.key}:${start}`,
          'not a count',
        );
        const [bad, good] = await Promise.allSettled([store.countCall([hour, broken]), store.countCall([hour])]);
        assert.equal(bad.status, 'rejected');
        assert.match(String((bad as PromiseRejectedResult).reason), /holds no count for limit 2/);
        assert.deepEqual((good as PromiseFulfilledResult<unknown>).value, [1, 0, 0]);
        // the failed call's first limit was given back: only the good call counts in the hour
        const again = await store.countCall([{ ...hour, calls: 2 }]);
        assert.deepEqual(again, [1, 0, 0]);
        assert.deepEqual((await store.countCall([{ ...hour, calls: 2 }])).slice(0, 2), [0, 1]);
        assert.equal(store.available, true);
      } finally {
        await store.close();
        await admin.close();
      }
    });

    it('two processes under 120 concurrent calls admit exactly the limit of 50 together', async () => {
      const doc = config([{ calls: 50, per: 'minute' }]);
      const [a, b] = await Promise.all([gateway(doc), gateway(doc)]);
      const [sa, sb] = await Promise.all([session(a), session(b)]);
      await roomInWindow(60_000, 20_000);
      const results = await Promise.all(
        Array.from({ length: 120 }, (_, i) => (i % 2 === 0 ? call(a, sa) : call(b, sb))),
      );
      const outcomes = results.map((r) =>
        r.status === 200 && r.message?.result !== undefined ? 'ok' : `${r.status} ${r.message?.error?.message}`,
      );
      const refusal = '429 Rate limit reached: 50 calls per minute';
      assert.equal(outcomes.filter((o) => o === 'ok').length, 50, outcomes.join('\n'));
      assert.equal(outcomes.filter((o) => o === refusal).length, 70, outcomes.join('\n'));
    });

    it('a per-tool limit refuses that tool only, naming it and no other limit', async () => {
      const doc = config([
        { calls: 100, per: 'minute' },
        { tool: 'create_ticket', calls: 2, per: 'hour' },
      ]);
      const [a, b] = await Promise.all([gateway(doc), gateway(doc)]);
      const [sa, sb] = await Promise.all([session(a), session(b)]);
      await roomInWindow(3_600_000, 15_000);
      assert.equal((await call(a, sa, 'create_ticket')).status, 200);
      assert.equal((await call(b, sb, 'create_ticket')).status, 200);
      const over = await call(a, sa, 'create_ticket');
      assert.equal(over.status, 429);
      assert.equal(over.message?.error?.message, 'Rate limit reached: 2 calls per hour for create_ticket');
      // nothing of the principal's other limit (100 calls a minute) in the refusal (the request id and retryAfterMs
      // are numbers that may hold "100")
      assert.doesNotMatch(over.message?.error?.message ?? '', /100|minute/);
      const data = over.message?.error?.data as { limit?: number; remaining?: number } | undefined;
      assert.equal(data?.limit, 2);
      assert.equal(data?.remaining, 0);
      for (let i = 0; i < 5; i++) assert.equal((await call(i % 2 ? a : b, i % 2 ? sa : sb, 'lookup')).status, 200);
    });

    it('counts a refused call against none of its limits', async () => {
      const doc = config([
        { calls: 3, per: 'hour' },
        { tool: 'create_ticket', calls: 1, per: 'hour' },
      ]);
      const [a, b] = await Promise.all([gateway(doc), gateway(doc)]);
      const [sa, sb] = await Promise.all([session(a), session(b)]);
      await roomInWindow(3_600_000, 15_000);
      assert.equal((await call(a, sa, 'create_ticket')).status, 200);
      // refused by the tool's limit: the hour's count of every tool stays at 1
      for (let i = 0; i < 5; i++)
        assert.equal((await call(i % 2 ? a : b, i % 2 ? sa : sb, 'create_ticket')).status, 429);
      assert.equal((await call(b, sb, 'lookup')).status, 200);
      assert.equal((await call(a, sa, 'lookup')).status, 200);
      const over = await call(b, sb, 'lookup');
      assert.equal(over.status, 429);
      assert.equal(over.message?.error?.message, 'Rate limit reached: 3 calls per hour');
    });

    it("a day's quota survives a gateway restart", async () => {
      const doc = config([{ calls: 3, per: 'day' }]);
      await roomInWindow(86_400_000, 30_000);
      const first = await gateway(doc);
      const s = await session(first);
      for (let i = 0; i < 3; i++) assert.equal((await call(first, s)).status, 200);
      first.child.kill('SIGKILL');
      await first.exited;
      const second = await gateway(doc);
      const over = await call(second, s);
      assert.equal(over.status, 429, over.text);
      assert.equal(over.message?.error?.message, 'Rate limit reached: 3 calls per day');
      const untilMidnight = Math.ceil((86_400_000 - (Date.now() % 86_400_000)) / 1000);
      assert.ok(Math.abs(Number(over.headers.get('retry-after')) - untilMidnight) <= 1);
      const ready = (await (await fetch(`${second.origin}/readyz`)).json()) as Record<string, unknown>;
      assert.equal(ready.rate_limits, 'shared');
      assert.equal(ready.store, 'available');
    });

    it('a DELETE on one process makes the id invalid on the other within 100 ms', async () => {
      const doc = config([]);
      const [a, b] = await Promise.all([gateway(doc), gateway(doc)]);
      const id = await session(a);
      const ping = (gw: GatewayProcess) =>
        postMcp(
          gw.url,
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          { token: BOT.token, sessionId: id, protocolVersion: '2025-11-25' },
        );
      assert.equal((await ping(b)).status, 200);
      const deleted = await postMcp(a.url, '', {
        method: 'DELETE',
        token: BOT.token,
        sessionId: id,
        protocolVersion: '2025-11-25',
      });
      assert.equal(deleted.status, 200);
      const ended = Date.now();
      let status = 200;
      while (status !== 404 && Date.now() - ended < 1_000) status = (await ping(b)).status;
      const took = Date.now() - ended;
      assert.equal(status, 404);
      assert.ok(took <= 100, `the other process still honoured the id ${took} ms after the DELETE`);
    });

    for (const withStore of [true, false]) {
      it(`10,000 sessions of one principal opened and ended within a minute: every DELETE 2xx, every ended id refused (${withStore ? 'with' : 'without'} the store)`, async () => {
        const doc = withStore ? config([]) : botConfig([tool('lookup', `${backend.url}/lookup`)], { name: 'no-store' });
        const gw = await gateway(doc);
        const dispatcher = new Agent({ connections: 16 });
        const request = (method: string, body: string, headers: Record<string, string>) =>
          fetch(gw.url, {
            method,
            body: method === 'DELETE' ? undefined : body,
            headers: {
              authorization: `Bearer ${BOT.token}`,
              accept: 'application/json, text/event-stream',
              'content-type': 'application/json',
              'mcp-protocol-version': '2025-11-25',
              ...headers,
            },
            // @ts-expect-error undici's dispatcher option on Node's fetch
            dispatcher,
          });
        const started = Date.now();
        const statuses = new Map<string, number>();
        const count = (what: string) => statuses.set(what, (statuses.get(what) ?? 0) + 1);
        let next = 0;
        const init = JSON.stringify(initializeRequest('2025-11-25'));
        const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
        await Promise.all(
          Array.from({ length: 16 }, async () => {
            while (next < 10_000) {
              next++;
              const opened = await request('POST', init, {});
              await opened.text();
              const id = opened.headers.get('mcp-session-id')!;
              const deleted = await request('DELETE', '', { 'mcp-session-id': id });
              await deleted.text();
              count(`DELETE ${deleted.status}`);
              const after = await request('POST', ping, { 'mcp-session-id': id });
              await after.text();
              count(`ping after DELETE ${after.status}`);
            }
          }),
        );
        const took = Date.now() - started;
        await dispatcher.close();
        assert.deepEqual(Object.fromEntries(statuses), { 'DELETE 200': 10_000, 'ping after DELETE 404': 10_000 });
        assert.ok(took < 60_000, `10,000 sessions took ${took} ms`);
      });
    }

    for (const policy of ['allow', 'refuse'] as const) {
      it(`with the store killed, on_unavailable: ${policy} ${policy === 'allow' ? 'passes' : 'refuses'} calls within the timeout, logs one line, and recovers`, async () => {
        const doc = config([{ calls: 1_000, per: 'minute' }], { on_unavailable: policy, timeout_ms: 50 });
        const gw = await gateway(doc);
        const s = await session(gw);
        assert.equal((await call(gw, s)).status, 200);
        const logFrom = gw.stdout().length;
        await redis.kill();
        const outcomes: number[] = [];
        let slowest = 0;
        for (let i = 0; i < 20; i++) {
          const t = Date.now();
          outcomes.push((await call(gw, s)).status);
          slowest = Math.max(slowest, Date.now() - t);
        }
        // a frozen store: the command waits for its timeout, then the policy decides
        await redis.restart();
        await eventually(async () =>
          assert.equal(((await (await fetch(`${gw.origin}/readyz`)).json()) as { store?: string }).store, 'available'),
        );
        redis.pause(true);
        for (let i = 0; i < 5; i++) {
          const t = Date.now();
          outcomes.push((await call(gw, s)).status);
          slowest = Math.max(slowest, Date.now() - t);
        }
        redis.pause(false);
        // under refuse the process leaves the load balancer's pool while the store is down
        const ready = await fetch(`${gw.origin}/readyz`);
        assert.equal(ready.status, policy === 'refuse' ? 503 : 200);
        const expected = policy === 'allow' ? 200 : 503;
        assert.deepEqual(new Set(outcomes), new Set([expected]));
        assert.ok(slowest < 50 + 450, `a call waited ${slowest} ms with timeout_ms 50`);
        if (policy === 'refuse') {
          const refused = await call(gw, s);
          if (refused.status === 503) {
            assert.equal(
              refused.message?.error?.message,
              'Service Unavailable: the rate limit store is unavailable; try again in a moment',
            );
          }
        }
        await eventually(async () => assert.equal((await call(gw, s)).status, 200));
        const lines = gw
          .stdout()
          .slice(logFrom)
          .split('\n')
          .filter((l) => l.includes('"limit store unavailable"'));
        assert.ok(lines.length >= 1 && lines.length <= 2, `one line per outage (two outages here): ${lines.length}`);
        assert.match(gw.stdout().slice(logFrom), /limit store available again/);
      });
    }
  });
}
