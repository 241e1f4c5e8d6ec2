/**
 * The rate-limit benchmark (`npm run bench`, or `node dist/bench/run.js rate-limits`).
 *
 * Rows: a `tools/call` through the gateway (the built CLI, its own process) with no limit; with two limits
 * (every tool per minute, the tool per second) counted in a redis-server on 127.0.0.1 (Debian's, started here);
 * with the same limits counted in the process (no store); and a second gateway without limits (the A/A row: how
 * far two identical gateways differ); and one without limits writing its audit to the store (`audit_log: 'store'`)
 * rather than a file. The counts are far above the load, so every call is admitted and counted.
 * Then the latency of the first two at a fixed rate, and each ratio side by side (both gateways loaded at once, in
 * rounds). Targets are reported, not asserted.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { GatewayConfig, RateLimitConfig } from '../src/config';
import {
  callBody,
  CONNECTIONS,
  DURATION_S,
  fmt,
  gatewayConfig,
  getCustomerTool,
  mcpHeaders,
  measure,
  PAIRED_DURATION_S,
  PAIRED_PROCESSES,
  PAIRED_ROUNDS,
  pairedRatio,
  portOf,
  ROUNDS,
  spawnAndRead,
  startGatewayProcess,
  type Spread,
  type Target,
} from './gateway';
import { children, stopChild } from './children';

const LIMITS: RateLimitConfig[] = [
  { calls: 1_000_000_000, per: 'minute' },
  { calls: 1_000_000_000, per: 'second', tool: 'get_customer' },
];

/** Debian's redis-server on a free loopback port, without persistence; `undefined` when it is not installed. */
async function startRedis(dir: string): Promise<{ child: ChildProcess; url: string } | undefined> {
  if (spawnSync('sh', ['-c', 'command -v redis-server']).status !== 0) return undefined;
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    {
      stdio: 'ignore',
    },
  );
  children.add(child);
  for (let i = 0; i < 250; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return { child, url: `redis://127.0.0.1:${port}` };
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`redis-server did not listen on 127.0.0.1:${port}`);
}

/** Calls per second of the fixed-rate rows: a steady load well below what either gateway serves. */
const FIXED_RATE = Number(process.env.BENCH_FIXED_RATE ?? 1_000);
/** Seconds of each fixed-rate round; the rows take turns, {@link ROUNDS} times. */
const FIXED_SECONDS = Number(process.env.BENCH_FIXED_SECONDS ?? 5);

/**
 * Latency of calls sent at a fixed rate (each on time, whatever the answers before it), in ms with µs precision:
 * what one call costs when the machine is not saturated, which the saturated rows above cannot show.
 */
async function fixedRate(target: Target, seconds: number): Promise<number[]> {
  const { Agent, request } = await import('undici');
  const dispatcher = new Agent({ connections: 64 });
  const body = target.options.body as (id: number) => string;
  const times: number[] = [];
  const pending: Promise<void>[] = [];
  const started = process.hrtime.bigint();
  const total = Math.round(FIXED_RATE * seconds);
  for (let i = 0; i < total; i++) {
    const due = started + BigInt(Math.round((i * 1e9) / FIXED_RATE));
    const wait = Number(due - process.hrtime.bigint()) / 1e6;
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const sent = process.hrtime.bigint();
    pending.push(
      request(target.url, { method: 'POST', headers: target.options.headers, body: body(i + 10), dispatcher }).then(
        async (res) => {
          await res.body.text();
          if (res.statusCode !== 200) throw new Error(`${target.name}: HTTP ${res.statusCode}`);
          times.push(Number(process.hrtime.bigint() - sent) / 1e6);
        },
      ),
    );
  }
  await Promise.all(pending);
  await dispatcher.close();
  return times;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

export async function runRateLimitsBench(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-gw-bench-limits-'));
  const token = `bench_${randomBytes(16).toString('hex')}`;
  const sha256 = createHash('sha256').update(token).digest('hex');
  try {
    const redis = await startRedis(dir);
    if (redis === undefined) {
      console.log('not run: needs redis-server (apt-get install redis-server)');
      return;
    }
    const { value: backendPort } = await spawnAndRead([path.join(__dirname, 'echo-backend.js')], portOf);
    const tools = [getCustomerTool(`http://127.0.0.1:${backendPort}`)];
    const base = gatewayConfig(tools, true, sha256);
    const withLimits = (store: boolean): GatewayConfig => ({
      ...base,
      gateway: { ...base.gateway, rate_limits: LIMITS, ...(store ? { store: { url: redis.url } } : {}) },
    });
    const gateways = [
      ['gateway, no limit', base],
      ['gateway, 2 limits in a loopback store', withLimits(true)],
      ['gateway, 2 limits per process (no store)', withLimits(false)],
      ['gateway, no limit (A/A: a second one)', base],
      [
        "gateway, no limit, audit_log: 'store' (the loopback store)",
        { ...base, gateway: { ...base.gateway, audit_log: 'store', store: { url: redis.url } } },
      ],
    ] as const;
    // PAIRED_PROCESSES of each, for the side-by-side ratios; the rows are measured on the first of each
    const sides: Target[][] = gateways.map(() => []);
    const started: ChildProcess[] = [];
    for (let n = 0; n < PAIRED_PROCESSES; n++) {
      for (const [i, [name, config]] of gateways.entries()) {
        const label = `gw${i}-${n}`;
        const gw = await startGatewayProcess(dir, config, label, undefined, config.gateway.audit_log === 'store');
        started.push(gw.child);
        const headers = await mcpHeaders(gw.url, token);
        sides[i].push({
          name,
          url: gw.url,
          pid: gw.child.pid,
          options: { method: 'POST', headers, body: (id) => callBody(id) },
        });
      }
    }
    const targets = sides.map((side) => side[0]);
    const probe = await fetch(targets[1].url, {
      method: 'POST',
      headers: targets[1].options.headers,
      body: callBody(9),
    });
    const ready = await (await fetch(targets[1].url.replace('/mcp', '/readyz'))).json();
    if (probe.status !== 200 || (ready as { rate_limits?: string }).rate_limits !== 'shared') {
      throw new Error(`the limited gateway does not count in the store: HTTP ${probe.status} ${JSON.stringify(ready)}`);
    }
    const rows = await measure(targets);
    const fixed: number[][] = [[], []];
    for (let round = 0; round < ROUNDS; round++) {
      for (const k of round % 2 === 0 ? [0, 1] : [1, 0]) fixed[k].push(...(await fixedRate(targets[k], FIXED_SECONDS)));
    }
    const store = await pairedRatio(sides[0], sides[1]);
    const local = await pairedRatio(sides[0], sides[2]);
    const aa = await pairedRatio(sides[0], sides[3]);
    const auditStore = await pairedRatio(sides[0], sides[4]);
    await Promise.all(started.map((c) => stopChild(c)));

    console.log(
      `tools/call, ${CONNECTIONS} connections, pipelining 1, ${DURATION_S} s per row x ${ROUNDS} rounds interleaved, mean (autocannon)\n`,
    );
    console.log('| row | req/s | p50 ms | p99 ms | gateway CPU µs/call | failed |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const r of rows) {
      console.log(
        `| ${r.name} | ${fmt(r.rps)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${fmt(r.cpuUs)} | ${r.failures} |`,
      );
    }
    const [off, shared] = rows;
    const [fixedOff, fixedOn] = fixed.map((t) => [...t].sort((a, b) => a - b));
    console.log(
      `\ntools/call at a fixed ${FIXED_RATE} calls/s, ${FIXED_SECONDS} s x ${ROUNDS} rounds per row, taking turns\n`,
    );
    console.log('| row | calls | p50 ms | p99 ms |');
    console.log('|---|---:|---:|---:|');
    for (const [k, sorted] of [fixedOff, fixedOn].entries()) {
      console.log(
        `| ${targets[k].name} | ${sorted.length} | ${fmt(percentile(sorted, 0.5), 2)} | ${fmt(percentile(sorted, 0.99), 2)} |`,
      );
    }
    const range = (r: Spread) => `${fmt(r.median, 2)} (${fmt(r.min, 2)}–${fmt(r.max, 2)})`;
    console.log('\n| ratio | value | target |');
    console.log('|---|---:|---|');
    console.log(`| store limits on / off, req/s | ${fmt(shared.rps / off.rps, 2)} | >= 0.85 |`);
    console.log(
      `| store limits on − off, p99 ms at ${FIXED_RATE} calls/s | ${fmt(percentile(fixedOn, 0.99) - percentile(fixedOff, 0.99), 2)} | < +1 |`,
    );
    console.log(
      `| store limits on − off, p99 ms saturated (${CONNECTIONS} connections) | ${fmt(shared.p99 - off.p99, 1)} | – |`,
    );
    const side = `side by side (${PAIRED_ROUNDS} rounds of ${PAIRED_DURATION_S} s, ${PAIRED_PROCESSES} processes a side), req/s: median (range)`;
    console.log(`| store limits on / off ${side} | ${range(store.rps)} | >= 0.85 |`);
    console.log(`| store limits on / off side by side, CPU per call | ${range(store.cpu)} | – |`);
    console.log(`| per-process limits on / off ${side} | ${range(local.rps)} | – |`);
    console.log(`| A/A: no limit / no limit ${side} | ${range(aa.rps)} | ~1.00 (the noise) |`);
    console.log(`| audit to the store / to a file ${side} | ${range(auditStore.rps)} | – |`);
    console.log(`| audit to the store / to a file side by side, CPU per call | ${range(auditStore.cpu)} | – |`);
  } finally {
    await Promise.all([...children].map((c) => stopChild(c)));
    rmSync(dir, { recursive: true, force: true });
  }
}
