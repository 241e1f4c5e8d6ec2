/**
 * The start-up benchmark (`node dist/bench/run.js startup`): a gateway process on a config of 1, 1,000 and 10,000
 * distinct generated tools (each its own pattern, range, enum and array of bounded strings). Per row: time from
 * spawn to the first `/readyz` 200, CPU time to then, resident memory at `/readyz`, 300 ms later and once the
 * process has been idle a while (what the gateway holds once serving, not only at the instant it says ready), the
 * first `tools/list` page in a 2026-07-28 request and in a 2025-11-25 session, and a `tools/call` of the first and
 * of the last tool. Targets are reported, not asserted.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { children, stopChild } from './children';
import { rssMb, threadCpuMs } from './proc';
import {
  fmt,
  gatewayConfig,
  generatedTool,
  MODERN_META,
  MODERN_VERSION,
  portOf,
  serveArgs,
  sessionHeaders,
  spawnAndRead,
  spread,
  urlOf,
} from './gateway';

/** Starts per row (`BENCH_STARTUP_RUNS`): one start is at the mercy of whatever else the machine does. */
export const STARTUP_RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 5);

/** How long after `/readyz` the steady resident memory is read. */
const SETTLE_MS = 300;

/**
 * How long after `/readyz` the resident memory of the idle gateway is read (`BENCH_IDLE_MS`), its calls measured
 * meanwhile: V8 gives back the young generation grown while the config compiled once the process is idle (its
 * memory reducer), some seconds after the last full collection.
 */
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 15_000);

/** Timed requests per figure, after one untimed request that warms the path. */
const TIMED = 20;

/** What one start of a gateway measured. */
interface StartupRun {
  readonly readyMs: number;
  /** CPU time of the gateway process (every thread) from spawn to that `/readyz`, ms: steadier than wall time. */
  readonly cpuMs: number;
  readonly rssReadyMb: number;
  /** VmRSS {@link SETTLE_MS} after `/readyz`. */
  readonly rssSteadyMb: number;
  /** VmRSS {@link IDLE_MS} after `/readyz`, the calls below made meanwhile. */
  readonly rssIdleMb: number;
  /** Mean time of the first `tools/list` page, ms, and the tools on it: a 2026-07-28 request, a 2025 session. */
  readonly modernPageMs: number;
  readonly modernPageTools: number;
  readonly sessionPageMs: number;
  readonly sessionPageTools: number;
  /** The first `tools/call` of the first and of the last tool (after one of a middle tool), then their means. */
  readonly firstToolColdMs: number;
  readonly lastToolColdMs: number;
  readonly firstToolMs: number;
  readonly lastToolMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The arguments a generated tool accepts (its own pattern for `account_<i>`). */
const callArgs = (i: number) => ({ [`account_${i}`]: `A${i}-1234`, limit: 5, customer: { name: 'Ada' } });
const toolName = (i: number) => `tool_${String(i).padStart(4, '0')}`;

/** Runs `request` once untimed, then {@link TIMED} times; the mean ms and the last answer's text. */
async function timedMean(request: (id: number) => Promise<Response>): Promise<{ ms: number; text: string }> {
  let text = await (await request(0)).text();
  let total = 0;
  for (let i = 1; i <= TIMED; i++) {
    const t0 = process.hrtime.bigint();
    text = await (await request(i)).text();
    total += Number(process.hrtime.bigint() - t0) / 1e6;
  }
  return { ms: total / TIMED, text };
}

/** One timed request, ms. */
async function timedOnce(request: () => Promise<Response>): Promise<{ ms: number; text: string }> {
  const t0 = process.hrtime.bigint();
  const text = await (await request()).text();
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, text };
}

const toolsOn = (text: string) => (JSON.parse(text) as { result?: { tools?: unknown[] } }).result?.tools?.length;

/** One start of the gateway on `file` (a config of `count` tools) and what it measured. */
async function startOnce(dir: string, file: string, token: string, count: number): Promise<StartupRun> {
  const started = process.hrtime.bigint();
  const { child, value: url } = await spawnAndRead(
    serveArgs(['--config', file, '--port', '0', '--audit-log', path.join(dir, `many-${count}.audit.jsonl`)]),
    urlOf,
    120_000,
  );
  try {
    const readyz = new URL('/readyz', url).toString();
    let readyMs = Number.NaN;
    let readyAt = Date.now();
    for (let i = 0; i < 20_000; i++) {
      const res = await fetch(readyz).catch(() => undefined);
      await res?.arrayBuffer();
      if (res?.status === 200) {
        readyMs = Number(process.hrtime.bigint() - started) / 1e6;
        readyAt = Date.now();
        break;
      }
      await sleep(5);
    }
    const cpuMs = threadCpuMs(child.pid);
    const rssReadyMb = rssMb(child.pid);
    await sleep(SETTLE_MS);
    const rssSteadyMb = rssMb(child.pid);

    const base = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    };
    const modern = await timedMean((id) =>
      fetch(url, {
        method: 'POST',
        headers: { ...base, 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/list' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: MODERN_META } }),
      }),
    );
    const session = await sessionHeaders(url, base);
    const post = (body: unknown) => fetch(url, { method: 'POST', headers: session, body: JSON.stringify(body) });
    const list = await timedMean((id) => post({ jsonrpc: '2.0', id, method: 'tools/list' }));
    const call = (i: number) => (id: number) =>
      post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: toolName(i), arguments: callArgs(i) } });
    const last = count - 1;
    // The process's first calls warm what every call uses (the HTTP client, the JIT): a call of a middle tool
    // takes that, so that the first and the last tool's first calls each pay only for their own validator.
    if (count > 2) await timedOnce(() => call(Math.floor(count / 2))(1));
    const firstCold = await timedOnce(() => call(0)(1));
    const lastCold = await timedOnce(() => call(last)(1));
    for (const answer of [firstCold.text, lastCold.text]) {
      if (!answer.includes('"structuredContent"') || answer.includes('"isError":true'))
        throw new Error(`call failed: ${answer.slice(0, 300)}`);
    }
    const first = await timedMean(call(0));
    const lastTool = await timedMean(call(last));
    await sleep(readyAt + IDLE_MS - Date.now());
    const rssIdleMb = rssMb(child.pid);
    return {
      readyMs,
      cpuMs,
      rssReadyMb,
      rssSteadyMb,
      rssIdleMb,
      modernPageMs: modern.ms,
      modernPageTools: toolsOn(modern.text) ?? Number.NaN,
      sessionPageMs: list.ms,
      sessionPageTools: toolsOn(list.text) ?? Number.NaN,
      firstToolColdMs: firstCold.ms,
      lastToolColdMs: lastCold.ms,
      firstToolMs: first.ms,
      lastToolMs: lastTool.ms,
    };
  } finally {
    await stopChild(child);
  }
}

/** The targets of a row, by tool count. */
interface Targets {
  readonly readyMs?: number;
  readonly rssMb?: number;
  readonly pageMs?: number;
}

const TARGETS: readonly (readonly [number, Targets])[] = [
  [1, {}],
  [1_000, { readyMs: 250, rssMb: 70 }],
  [10_000, { readyMs: 1_000, rssMb: 200, pageMs: 20 }],
];

/** Prints the start-up table of `count` distinct tools: the median of {@link STARTUP_RUNS} starts per figure. */
async function printRow(dir: string, backendUrl: string, token: string, sha256: string, count: number, t: Targets) {
  const tools = Array.from({ length: count }, (_, i) => generatedTool(backendUrl, i));
  const file = path.join(dir, `many-${count}.json`);
  writeFileSync(file, JSON.stringify(gatewayConfig(tools, true, sha256)));
  const runs: StartupRun[] = [];
  for (let i = 0; i < STARTUP_RUNS; i++) runs.push(await startOnce(dir, file, token, count));
  const m = (pick: (r: StartupRun) => number) => spread(runs.map(pick)).median;
  const limit = (value: number | undefined, unit: string) => (value === undefined ? '-' : `< ${value} ${unit}`);
  const n = count.toLocaleString('en-US');
  console.log(`\n| ${n} distinct tool${count === 1 ? '' : 's'}, median of ${STARTUP_RUNS} starts | value | target |`);
  console.log('|---|---:|---|');
  console.log(
    `| start to /readyz 200 (fastest) | ${fmt(m((r) => r.readyMs))} ms (${fmt(Math.min(...runs.map((r) => r.readyMs)))}) | ${limit(t.readyMs, 'ms')} |`,
  );
  console.log(`| CPU time of the gateway process to /readyz | ${fmt(m((r) => r.cpuMs))} ms | - |`);
  console.log(
    `| resident memory (VmRSS) at /readyz | ${fmt(
      m((r) => r.rssReadyMb),
      1,
    )} MB | - |`,
  );
  console.log(
    `| resident memory ${SETTLE_MS} ms after /readyz | ${fmt(
      m((r) => r.rssSteadyMb),
      1,
    )} MB | ${limit(t.rssMb, 'MB')} |`,
  );
  console.log(
    `| resident memory ${IDLE_MS / 1000} s after /readyz, idle but for the calls below | ${fmt(
      m((r) => r.rssIdleMb),
      1,
    )} MB | ${limit(t.rssMb, 'MB')} |`,
  );
  for (const [label, ms, tools] of [
    ['2026-07-28', (r: StartupRun) => r.modernPageMs, (r: StartupRun) => r.modernPageTools],
    ['2025-11-25 session', (r: StartupRun) => r.sessionPageMs, (r: StartupRun) => r.sessionPageTools],
  ] as const) {
    console.log(
      `| first tools/list page, ${label} (${fmt(m(tools))} tools), mean of ${TIMED} | ${fmt(m(ms), 1)} ms | ${limit(t.pageMs, 'ms')} |`,
    );
  }
  console.log(
    `| tools/call of the first / last tool, its first call | ${fmt(
      m((r) => r.firstToolColdMs),
      2,
    )} / ${fmt(
      m((r) => r.lastToolColdMs),
      2,
    )} ms | - |`,
  );
  console.log(
    `| tools/call of the first / last tool, mean of ${TIMED} | ${fmt(
      m((r) => r.firstToolMs),
      2,
    )} / ${fmt(
      m((r) => r.lastToolMs),
      2,
    )} ms | the same |`,
  );
}

/** The start-up rows, with their own echo backend. */
export async function runStartupBench(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-gw-bench-startup-'));
  const token = `bench_${randomBytes(16).toString('hex')}`;
  const sha256 = createHash('sha256').update(token).digest('hex');
  try {
    const { value: backendPort } = await spawnAndRead([path.join(__dirname, 'echo-backend.js')], portOf);
    for (const [count, targets] of TARGETS) {
      await printRow(dir, `http://127.0.0.1:${backendPort}`, token, sha256, count, targets);
    }
  } finally {
    await Promise.all([...children].map((c) => stopChild(c)));
    rmSync(dir, { recursive: true, force: true });
  }
}
