/**
 * The gateway benchmark (`npm run bench`, or `node dist/bench/run.js gateway`). Every party runs in its own
 * process — the echo backend, the minimal proxy, the gateway (the built CLI) — and the load generator
 * (autocannon, in this process) never shares an event loop with them.
 *
 * Rows: `tools/call` through the gateway with validate_input on (a 2025 call in a signed session), with it off,
 * a 2026-07-28 call (no session, `_meta` and the mirrored headers) on the same gateway, optionally the same 2025
 * call on a baseline build (`BENCH_BASELINE_CLI=/path/to/dist/src/cli/main.js`, e.g. a build of the commit before
 * signed sessions, whose sessions are an in-memory map), the minimal Node proxy (the practical limit), and a
 * direct call to the backend; then start-up time to `/readyz` and resident memory with a config of 1,000 generated
 * tools. Targets are reported, not asserted.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { GatewayConfig, ToolConfig } from '../src/contract/gateway-config';
import { generateInputSchema, type InputSpec, toolDescription } from '../src/schema';

/** Seconds of load per row and round. */
export const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 3);
/**
 * Rounds: the rows run interleaved (on, off, proxy, direct, on, off, …) and each row reports the mean of its
 * rounds, so a burst of load from elsewhere on the machine does not fall on one row only.
 */
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
/** Concurrent connections per row. */
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** Tools in the start-up / memory row. */
const MANY_TOOLS = 1_000;

/** The subset of autocannon's programmatic API used here (the package ships no types). */
interface AutocannonResult {
  readonly requests: { readonly average: number; readonly total: number };
  readonly latency: { readonly p50: number; readonly p99: number };
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
}
type Autocannon = (options: {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  pipelining: number;
  duration: number;
}) => Promise<AutocannonResult>;

export const autocannon = require('autocannon') as Autocannon;

export const ROOT = path.resolve(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'src', 'cli', 'main.js');

/** A second build to compare with (its `dist/src/cli/main.js`), or none. */
const BASELINE_CLI = process.env.BENCH_BASELINE_CLI;

/** Node arguments for `cdktf-mcp-gateway serve …` from the build (or from `cli`). */
export function serveArgs(args: string[], cli = CLI): string[] {
  return [cli, 'serve', ...args];
}

export const children = new Set<ChildProcess>();

/** Spawns `node args…` and resolves with the child and the first stdout line that parses as JSON matching `pick`. */
export function spawnAndRead<T>(
  args: string[],
  pick: (line: Record<string, unknown>) => T | undefined,
  timeoutMs = 15_000,
  node = process.execPath,
): Promise<{ child: ChildProcess; value: T }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    child.on('close', () => children.delete(child));
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')}: no start line in ${timeoutMs} ms: ${err}`));
    }, timeoutMs);
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
    });
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      for (const line of out.split('\n')) {
        try {
          const value = pick(JSON.parse(line) as Record<string, unknown>);
          if (value !== undefined) {
            clearTimeout(timer);
            resolve({ child, value });
            return;
          }
        } catch {
          /* not a (complete) JSON line */
        }
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited ${code}: ${err}`));
    });
  });
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await closed;
  clearTimeout(timer);
}

export const portOf = (line: Record<string, unknown>) => (typeof line.port === 'number' ? line.port : undefined);
export const urlOf = (line: Record<string, unknown>) =>
  line.msg === 'listening' && typeof line.url === 'string' ? line.url : undefined;

export function getCustomerTool(backendUrl: string, name = 'get_customer'): ToolConfig {
  return {
    name,
    description: 'Look up a customer',
    input_schema: {
      type: 'object',
      properties: {
        customer_id: { type: 'string', pattern: '^C-[0-9]{4}$' },
        limit: { type: 'integer', minimum: 1, maximum: 100 },
        status: { type: 'string', enum: ['open', 'pending', 'closed'] },
      },
      required: ['customer_id'],
      additionalProperties: false,
    },
    backend: { url: `${backendUrl}/customers/{customer_id}`, method: 'GET', timeout_ms: 10_000 },
  };
}

/**
 * Tool `i` of the 1,000-tool config: a distinct generated schema per tool (names and limits vary, so the
 * validation module's cache of compiled schemas cannot share work between tools), shaped like a real tool
 * with a nested array of objects.
 */
function generatedTool(backendUrl: string, i: number): ToolConfig {
  const input: InputSpec = {
    [`account_${i}`]: { type: 'string', required: true, pattern: '^A-[0-9]{4}$' },
    limit: { type: 'integer', minimum: 1, maximum: 100 + i },
    status: { type: 'string', enum: ['open', 'pending', 'closed', `state_${i}`] },
    created_after: { type: 'string', format: 'date-time' },
    tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 32 } },
    customer: {
      type: 'object',
      required: true,
      properties: {
        name: { type: 'string', required: true, maxLength: 200 },
        email: { type: 'string', format: 'email' },
        addresses: {
          type: 'array',
          maxItems: 5,
          items: { type: 'object', properties: { zip_code: { type: 'integer', required: true } } },
        },
      },
    },
  };
  return {
    name: `tool_${String(i).padStart(4, '0')}`,
    description: toolDescription(`Generated tool ${i}`, input),
    input_schema: generateInputSchema(input),
    backend: { url: `${backendUrl}/accounts/{account_${i}}`, method: 'POST', timeout_ms: 10_000 },
  };
}

export function gatewayConfig(
  tools: ToolConfig[],
  validateInput: boolean,
  sha256: string,
  metrics = false,
): GatewayConfig {
  return {
    version: 1,
    gateway: {
      name: 'bench',
      host: '127.0.0.1',
      port: 8080,
      validate_input: validateInput,
      auth: { tokens: [{ id: 'bench', sha256 }] },
      audit_log: true,
      max_concurrent_calls: 1024,
      ...(metrics ? { metrics: true } : {}), // left out when off: a baseline build may not know the field
    },
    tools,
  };
}

async function startGatewayProcess(
  dir: string,
  config: GatewayConfig,
  label: string,
  cli = CLI,
): Promise<{ child: ChildProcess; url: string }> {
  const file = path.join(dir, `${label}.json`);
  writeFileSync(file, JSON.stringify(config));
  const { child, value } = await spawnAndRead(
    serveArgs(['--config', file, '--port', '0', '--audit-log', path.join(dir, `${label}.audit.jsonl`)], cli),
    urlOf,
  );
  return { child, url: value };
}

const CALL_ARGS = { customer_id: 'C-0042', limit: 5, status: 'open' };
export const callBody = (id: number) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_customer', arguments: CALL_ARGS } });

/** Opens an MCP session with raw requests; returns the headers autocannon sends with every call. */
export async function mcpHeaders(url: string, token: string): Promise<Record<string, string>> {
  const base = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${token}`,
  };
  const init = await fetch(url, {
    method: 'POST',
    headers: base,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    }),
  });
  const sessionId = init.headers.get('mcp-session-id');
  await init.text();
  if (init.status !== 200 || sessionId === null) throw new Error(`initialize failed: HTTP ${init.status}`);
  const headers = { ...base, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
  const ack = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await ack.text();
  // One checked call: the row measures successful calls, not fast refusals.
  const probe = await fetch(url, { method: 'POST', headers, body: callBody(1) });
  const text = await probe.text();
  if (!text.includes('"structuredContent"') || text.includes('"isError":true'))
    throw new Error(`probe call failed: ${text.slice(0, 300)}`);
  return headers;
}

const MODERN_VERSION = '2026-07-28';
const modernCallBody = (id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'get_customer',
      arguments: CALL_ARGS,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
      },
    },
  });

/** The headers of a 2026-07-28 call (no session), after one checked call. */
async function modernHeaders(url: string, token: string): Promise<Record<string, string>> {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${token}`,
    'mcp-protocol-version': MODERN_VERSION,
    'mcp-method': 'tools/call',
    'mcp-name': 'get_customer',
  };
  const probe = await fetch(url, { method: 'POST', headers, body: modernCallBody(1) });
  const text = await probe.text();
  if (!text.includes('"resultType":"complete"') || text.includes('"isError":true'))
    throw new Error(`modern probe call failed: ${text.slice(0, 300)}`);
  return headers;
}

export interface Row {
  readonly name: string;
  readonly rps: number;
  /** CPU time (user + system) of the serving process per call, µs: insensitive to other load on the machine. */
  readonly cpuUs: number;
  readonly p50: number;
  readonly p99: number;
  readonly failures: number;
}

export interface Target {
  readonly name: string;
  readonly url: string;
  readonly options: { method: string; headers?: Record<string, string>; body?: string };
  /** The serving process, for its CPU time. @default - not measured */
  readonly pid?: number;
}

/** User + system CPU time of a process so far, in ms (`/proc/<pid>/stat`, clock ticks of 10 ms). */
function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

async function load(target: Target, warmUp: boolean): Promise<Row> {
  // A short warm-up (JIT, connection pools) that is not measured.
  if (warmUp)
    await autocannon({ url: target.url, ...target.options, connections: CONNECTIONS, pipelining: 1, duration: 1 });
  const cpuBefore = cpuMs(target.pid);
  const r = await autocannon({
    url: target.url,
    ...target.options,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: DURATION_S,
  });
  const cpuUs = ((cpuMs(target.pid) - cpuBefore) * 1000) / r.requests.total;
  return {
    name: target.name,
    rps: r.requests.average,
    cpuUs,
    p50: r.latency.p50,
    p99: r.latency.p99,
    failures: r.non2xx + r.errors + r.timeouts,
  };
}

/** Runs the targets interleaved for ROUNDS rounds; each row is the mean of its rounds (failures summed). */
export async function measure(targets: readonly Target[]): Promise<Row[]> {
  const runs: Row[][] = targets.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, target] of targets.entries()) runs[i].push(await load(target, round === 0));
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return runs.map((rs, i) => ({
    name: targets[i].name,
    rps: mean(rs.map((r) => r.rps)),
    cpuUs: mean(rs.map((r) => r.cpuUs)),
    p50: mean(rs.map((r) => r.p50)),
    p99: mean(rs.map((r) => r.p99)),
    failures: rs.reduce((n, r) => n + r.failures, 0),
  }));
}

/** Time from spawn to the first `/readyz` 200, and VmRSS right after, with `tools` generated tools. */
async function startupRow(
  dir: string,
  backendUrl: string,
  sha256: string,
): Promise<{ readyMs: number; rssMb: number }> {
  const tools = Array.from({ length: MANY_TOOLS }, (_, i) => generatedTool(backendUrl, i));
  const file = path.join(dir, 'many.json');
  writeFileSync(file, JSON.stringify(gatewayConfig(tools, true, sha256)));
  const started = process.hrtime.bigint();
  const { child, value: url } = await spawnAndRead(
    serveArgs(['--config', file, '--port', '0', '--audit-log', path.join(dir, 'many.audit.jsonl')]),
    urlOf,
  );
  const readyz = new URL('/readyz', url).toString();
  let readyMs = Number.NaN;
  for (let i = 0; i < 500; i++) {
    const res = await fetch(readyz).catch(() => undefined);
    await res?.arrayBuffer();
    if (res?.status === 200) {
      readyMs = Number(process.hrtime.bigint() - started) / 1e6;
      break;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const rssKb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? Number.NaN);
  await stopChild(child);
  return { readyMs, rssMb: rssKb / 1024 };
}

export const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/** Runs every row and prints the tables. */
export async function runGatewayBench(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-gw-bench-'));
  const token = `bench_${randomBytes(16).toString('hex')}`;
  const sha256 = createHash('sha256').update(token).digest('hex');
  try {
    const { value: backendPort } = await spawnAndRead([path.join(__dirname, 'echo-backend.js')], portOf);
    const backendUrl = `http://127.0.0.1:${backendPort}`;
    const { value: proxyPort } = await spawnAndRead([path.join(__dirname, 'minimal-proxy.js'), backendUrl], portOf);

    const targets: Target[] = [];
    const gateways: ChildProcess[] = [];
    let modernRow = -1;
    let baselineRow = -1;
    for (const validate of [true, false]) {
      const gw = await startGatewayProcess(
        dir,
        gatewayConfig([getCustomerTool(backendUrl)], validate, sha256),
        validate ? 'on' : 'off',
      );
      gateways.push(gw.child);
      const headers = await mcpHeaders(gw.url, token);
      const pid = gw.child.pid;
      targets.push({
        name: `gateway, validate_input ${validate ? 'on' : 'off'} (2025, signed session)`,
        url: gw.url,
        pid,
        options: { method: 'POST', headers, body: callBody(2) },
      });
      if (validate) {
        const modern = await modernHeaders(gw.url, token);
        modernRow = targets.length;
        targets.push({
          name: 'gateway, validate_input on (2026-07-28, no session)',
          url: gw.url,
          pid,
          options: { method: 'POST', headers: modern, body: modernCallBody(2) },
        });
      }
    }
    // the same gateway with `metrics: true`: the cost of counting every call (SPEC §4c; target within 5 %)
    const withMetrics = await startGatewayProcess(
      dir,
      gatewayConfig([getCustomerTool(backendUrl)], true, sha256, true),
      'metrics',
    );
    gateways.push(withMetrics.child);
    const metricsRow = targets.length;
    targets.push({
      name: 'gateway, validate_input on, metrics on (2025, signed session)',
      url: withMetrics.url,
      pid: withMetrics.child.pid,
      options: { method: 'POST', headers: await mcpHeaders(withMetrics.url, token), body: callBody(2) },
    });
    if (BASELINE_CLI !== undefined) {
      const gw = await startGatewayProcess(
        dir,
        gatewayConfig([getCustomerTool(backendUrl)], true, sha256),
        'baseline',
        BASELINE_CLI,
      );
      gateways.push(gw.child);
      baselineRow = targets.length;
      targets.push({
        name: 'baseline build, validate_input on (2025 session)',
        url: gw.url,
        pid: gw.child.pid,
        options: { method: 'POST', headers: await mcpHeaders(gw.url, token), body: callBody(2) },
      });
    }
    targets.push({
      name: 'minimal Node proxy (limit)',
      url: `http://127.0.0.1:${proxyPort}/mcp`,
      options: { method: 'POST', headers: { 'content-type': 'application/json' }, body: callBody(2) },
    });
    targets.push({
      name: 'backend direct',
      url: `${backendUrl}/customers/C-0042?limit=5&status=open`,
      options: { method: 'GET' },
    });
    const rows = await measure(targets);
    await Promise.all(gateways.map((g) => stopChild(g)));

    console.log(
      `tools/call, ${CONNECTIONS} connections, pipelining 1, ${DURATION_S} s per row x ${ROUNDS} rounds interleaved, mean (autocannon)\n`,
    );
    console.log('| row | req/s | p50 ms | p99 ms | gateway CPU µs/call | failed |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const r of rows)
      console.log(
        `| ${r.name} | ${fmt(r.rps)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${fmt(r.cpuUs)} | ${r.failures} |`,
      );
    const [on, , off] = rows;
    const proxy = rows.find((r) => r.name.startsWith('minimal'))!;
    console.log(`\n| ratio | value | target |`);
    console.log('|---|---:|---|');
    const modern = rows[modernRow];
    console.log(`| 2026-07-28 call / 2025 signed-session call, req/s | ${fmt(modern.rps / on.rps, 2)} | >= 0.95 |`);
    console.log(
      `| 2026-07-28 call / 2025 signed-session call, CPU per call | ${fmt(modern.cpuUs / on.cpuUs, 2)} | <= 1.05 |`,
    );
    if (baselineRow >= 0) {
      const base = rows[baselineRow];
      console.log(`| 2025 signed session / baseline session map, req/s | ${fmt(on.rps / base.rps, 2)} | >= 0.95 |`);
      console.log(
        `| 2025 signed session / baseline session map, CPU per call | ${fmt(on.cpuUs / base.cpuUs, 2)} | <= 1.05 |`,
      );
      console.log(
        `| 2026-07-28 call / baseline session map, CPU per call | ${fmt(modern.cpuUs / base.cpuUs, 2)} | <= 1.05 |`,
      );
    }
    const metrics = rows[metricsRow];
    console.log(`| metrics on / off, req/s | ${fmt(metrics.rps / on.rps, 2)} | >= 0.95 |`);
    console.log(`| metrics on / off, CPU per call | ${fmt(metrics.cpuUs / on.cpuUs, 2)} | <= 1.05 |`);
    console.log(`| validate on / off | ${fmt(on.rps / off.rps, 2)} | >= 0.95 |`);
    console.log(`| gateway (on) / proxy | ${fmt(on.rps / proxy.rps, 2)} | >= 0.75 |`);
    console.log(`| gateway (off) / proxy | ${fmt(off.rps / proxy.rps, 2)} | - |`);

    const startup = await startupRow(dir, backendUrl, sha256);
    console.log(`\n| ${MANY_TOOLS} tools | value | target |`);
    console.log('|---|---:|---|');
    console.log(`| start to /readyz 200 | ${fmt(startup.readyMs)} ms | < 1000 ms |`);
    console.log(`| resident memory (VmRSS) | ${fmt(startup.rssMb, 1)} MB | < 100 MB |`);
  } finally {
    await Promise.all([...children].map((c) => stopChild(c)));
    rmSync(dir, { recursive: true, force: true });
  }
}
