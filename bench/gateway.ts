/**
 * The gateway benchmark (`npm run bench`, or `node dist/bench/run.js gateway`). Every party runs in its own
 * process — the echo backend, the minimal proxy, the gateway (the built CLI) — and the load generator
 * (autocannon, in this process) never shares an event loop with them.
 *
 * Rows: `tools/call` through the gateway with validate_input on (a 2025 call in a signed session), with it off,
 * a 2026-07-28 call (no session, `_meta` and the mirrored headers) to a gateway with the same config, a second
 * tool of that config with response controls (an output check and one redact pattern), the gateway with metrics on
 * (each row a gateway process of its own),
 * optionally the same 2025 call on a baseline build (`BENCH_BASELINE_CLI=/path/to/dist/src/cli/main.js`), the
 * minimal Node proxy (the practical limit), nginx (one worker, when installed), the official SDK's `McpServer`
 * (1.x and 2.x) tuned for speed and FastMCP (for the record), and a direct call to the backend; every request carries its own
 * JSON-RPC id. Targets are reported, not asserted; start-up has its own suite (`startup.ts`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { GatewayConfig, ToolConfig } from '../src/config/gateway-config';
import { generateInputSchema, generateOutputSchema, type InputSpec, toolDescription } from '../src/schema';
import { nginxBinary, startNginx } from './nginx';
import { children, stopChild, track } from './children';
import { cpuMs } from './proc';

/** Seconds of load per row and round. */
export const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 3);
/**
 * Rounds: the rows run interleaved (on, off, proxy, direct, on, off, …) and each row reports the mean of its
 * rounds, so a burst of load from elsewhere on the machine does not fall on one row only.
 */
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
/**
 * Seconds of unmeasured load per row before its first round: the JIT of a process just started needs a few
 * seconds of traffic (on a loaded machine a 1 s warm-up left the first row measuring twice the CPU per call).
 */
export const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 3);
/** Concurrent connections per row. */
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** Rounds of a paired ratio ({@link pairedRatio}). */
export const PAIRED_ROUNDS = Number(process.env.BENCH_PAIRED_ROUNDS ?? 8);
/** Processes per side of the paired ratios of suites that start several (a round each in turn). */
export const PAIRED_PROCESSES = Math.max(1, Math.floor(Number(process.env.BENCH_PAIRED_PROCESSES ?? 4)) || 1);
/** Seconds of load per round of a paired ratio. */
export const PAIRED_DURATION_S = Number(process.env.BENCH_PAIRED_DURATION_S ?? 3);

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
  requests?: readonly { setupRequest?: (req: Record<string, unknown>) => Record<string, unknown> }[];
  connections: number;
  pipelining: number;
  duration: number;
}) => Promise<AutocannonResult>;

export const autocannon = require('autocannon') as Autocannon;

export const ROOT = path.resolve(__dirname, '..', '..');
export const CLI = path.join(ROOT, 'dist', 'src', 'cli', 'main.js');

/** A second build to compare with (its `dist/src/cli/main.js`), or none. */
const BASELINE_CLI = process.env.BENCH_BASELINE_CLI;

/** Node arguments for `cdktf-mcp-gateway serve …` from the build (or from `cli`). */
export function serveArgs(args: string[], cli = CLI): string[] {
  return [cli, 'serve', ...args];
}

/** Spawns `node args…` and resolves with the child and the first stdout line that parses as JSON matching `pick`. */
export function spawnAndRead<T>(
  args: string[],
  pick: (line: Record<string, unknown>) => T | undefined,
  timeoutMs = 15_000,
  node = process.execPath,
): Promise<{ child: ChildProcess; value: T }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    track(child);
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
 * Tool `i` of a many-tool config: a distinct generated schema per tool (its own pattern, range, enum and bounds,
 * so the validation module's cache of compiled schemas cannot share work between tools), shaped like a real tool
 * with a nested array of objects.
 */
export function generatedTool(backendUrl: string, i: number): ToolConfig {
  const input: InputSpec = {
    [`account_${i}`]: { type: 'string', required: true, pattern: `^A${i}-[0-9]{4}$` },
    limit: { type: 'integer', minimum: 1, maximum: 100 + i },
    status: { type: 'string', enum: ['open', 'pending', 'closed', `state_${i}`] },
    created_after: { type: 'string', format: 'date-time' },
    tags: { type: 'array', maxItems: 10 + (i % 7), items: { type: 'string', maxLength: 16 + (i % 64) } },
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

/**
 * `serve` of `config` (written to `dir/label.json`) on a free port, auditing to a file beside it (or as the config
 * says, with `configAudit`); its process and MCP URL.
 */
export async function startGatewayProcess(
  dir: string,
  config: GatewayConfig,
  label: string,
  cli = CLI,
  configAudit = false,
): Promise<{ child: ChildProcess; url: string }> {
  const file = path.join(dir, `${label}.json`);
  writeFileSync(file, JSON.stringify(config));
  const audit = configAudit ? [] : ['--audit-log', path.join(dir, `${label}.audit.jsonl`)];
  const { child, value } = await spawnAndRead(serveArgs(['--config', file, '--port', '0', ...audit], cli), urlOf);
  return { child, url: value };
}

const CALL_ARGS = { customer_id: 'C-0042', limit: 5, status: 'open' };
export const callBody = (id: number, tool = 'get_customer') =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: CALL_ARGS } });

/** Opens a 2025-11-25 session with raw requests (`initialize`, `initialized`): the headers its requests carry. */
export async function sessionHeaders(url: string, base: Record<string, string>): Promise<Record<string, string>> {
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
  return headers;
}

/** Opens an MCP session with raw requests; returns the headers autocannon sends with every call. */
export async function mcpHeaders(url: string, token: string): Promise<Record<string, string>> {
  const headers = await sessionHeaders(url, {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${token}`,
  });
  // One checked call: the row measures successful calls, not fast refusals.
  const probe = await fetch(url, { method: 'POST', headers, body: callBody(1) });
  const text = await probe.text();
  if (!text.includes('"structuredContent"') || text.includes('"isError":true'))
    throw new Error(`probe call failed: ${text.slice(0, 300)}`);
  return headers;
}

export const MODERN_VERSION = '2026-07-28';
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
};
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
  /**
   * The request; a `body` function is called for every request with a new JSON-RPC id (concurrent requests that
   * share one id stall some servers' session transports, and a real client never sends them).
   */
  readonly options: { method: string; headers?: Record<string, string>; body?: string | ((id: number) => string) };
  /** The serving process, for its CPU time. @default - not measured */
  readonly pid?: number;
}

let nextRequestId = 10;

/** autocannon's request options for a target: a fixed body, or a new JSON-RPC id for every request. */
function requestOptions(
  target: Target,
): Omit<Parameters<Autocannon>[0], 'url' | 'connections' | 'pipelining' | 'duration'> {
  const { body, ...rest } = target.options;
  if (typeof body !== 'function') return { ...rest, body };
  return { ...rest, requests: [{ setupRequest: (req) => ({ ...req, body: body(nextRequestId++) }) }] };
}

/** Unmeasured load (JIT, connection pools). */
async function warm(target: Target, connections = CONNECTIONS): Promise<void> {
  if (WARMUP_S <= 0) return;
  const options = requestOptions(target);
  await autocannon({ url: target.url, ...options, connections, pipelining: 1, duration: WARMUP_S });
}

async function load(target: Target, connections = CONNECTIONS, duration = DURATION_S): Promise<Row> {
  const options = requestOptions(target);
  const cpuBefore = cpuMs(target.pid);
  const r = await autocannon({ url: target.url, ...options, connections, pipelining: 1, duration });
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

/** The median of some numbers (the mean of the middle two for an even count) and their range. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** The {@link Spread} of `xs` (at least one number). */
export function spread(xs: readonly number[]): Spread {
  const sorted = [...xs].sort((p, q) => p - q);
  const middle = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1] };
}

/** A ratio of two targets measured side by side: the median of its rounds and their range. */
export interface PairedRatio {
  /** CPU per call of `b` over that of `a`. */
  readonly cpu: Spread;
  /** Requests per second of `b` over those of `a`. */
  readonly rps: Spread;
}

/**
 * Loads `a` and `b` at the same time, half the connections each, for {@link PAIRED_ROUNDS} rounds of
 * {@link PAIRED_DURATION_S} seconds, and returns the ratios of `b` to `a` per round: median and range. Both see
 * the same machine at the same moment. This machine's speed moves by ±20 % from one second to the next (one
 * gateway measured alone read 74 to 120 µs of CPU per call within a minute), so two identical gateways measured
 * one after the other read 0.83 to 1.02 of each other: no way to tell 1.05 from 1.15. Side by side, the same two
 * read 0.96 to 1.05 per round (`gateway A/A` in the table).
 *
 * Given lists (`a[i]` against `b[i]`), the rounds go to each pair in turn: two processes of one config differ by a
 * few percent for as long as they run (what their JIT made of them), so a ratio read on one pair of processes
 * leans with that pair, and on several it leans less.
 */
export async function pairedRatio(a: Target | readonly Target[], b: Target | readonly Target[]): Promise<PairedRatio> {
  if ([a].flat().length !== [b].flat().length) throw new Error('pairedRatio: as many targets a side');
  // a pair no round would reach is left out, not warmed for nothing
  const as = [a].flat().slice(0, Math.max(1, PAIRED_ROUNDS));
  const bs = [b].flat().slice(0, Math.max(1, PAIRED_ROUNDS));
  const connections = Math.max(1, CONNECTIONS >> 1);
  const run = (target: Target, duration: number) => load(target, connections, duration);
  // Each side warmed as long as a row is: one loaded here first (an A/A twin) would otherwise count its JIT
  // compilation in its first rounds' CPU while the other, already measured, does not.
  for (const [i, x] of as.entries()) await Promise.all([warm(x, connections), warm(bs[i], connections)]);
  const cpu: number[] = [];
  const rps: number[] = [];
  for (let round = 0; round < PAIRED_ROUNDS; round++) {
    const i = round % as.length;
    const [x, y] = await Promise.all([run(as[i], PAIRED_DURATION_S), run(bs[i], PAIRED_DURATION_S)]);
    cpu.push(y.cpuUs / x.cpuUs);
    rps.push(y.rps / x.rps);
  }
  return { cpu: spread(cpu), rps: spread(rps) };
}

/** Runs the targets interleaved for ROUNDS rounds; each row is the mean of its rounds (failures summed). */
export async function measure(targets: readonly Target[]): Promise<Row[]> {
  const runs: Row[][] = targets.map(() => []);
  // A warm-up round over every target first: a process serving several rows is warm on all of them before any is
  // measured (warming each row just before its first measurement left the first row of a process slower).
  for (const target of targets) await warm(target);
  // Each round starts one row later, so the first slot of a round (measured slower on a shared machine) does not
  // always fall on the same row.
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < targets.length; k++) {
      const i = (k + round) % targets.length;
      runs[i].push(await load(targets[i]));
    }
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

export const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/** What the bench echo backend answers, declared (the response-controls row validates it). */
const ECHO_OUTPUT = generateOutputSchema({
  method: { type: 'string', required: true },
  path: { type: 'string', required: true },
  query: { type: 'object', required: true },
  bytes: { type: 'integer', required: true },
});

/** `get_customer` with response controls: its output validated and one redact pattern matching every answer. */
function shapedTool(backendUrl: string): ToolConfig {
  return {
    ...getCustomerTool(backendUrl, 'get_customer_shaped'),
    output_schema: ECHO_OUTPUT,
    response: { redact_patterns: { customer: 'C-[0-9]{4}' } },
  };
}

/** Spawns one of the bench's framework servers and opens a session on it; `undefined` when it cannot start. */
async function frameworkTarget(name: string, file: string, backendUrl: string): Promise<Target | string> {
  try {
    const { child, value: port } = await spawnAndRead([path.join(__dirname, file), backendUrl], portOf);
    const url = `http://127.0.0.1:${port}/mcp`;
    const headers = await mcpHeaders(url, 'unused');
    return { name, url, pid: child.pid, options: { method: 'POST', headers, body: (id) => callBody(id) } };
  } catch (err) {
    return `${name}: did not start (${(err as Error).message.split('\n')[0]})`;
  }
}

/** Whether a package resolves from the bench (a devDependency may be absent). */
function installed(pkg: string): boolean {
  try {
    require.resolve(pkg);
    return true;
  } catch {
    return false;
  }
}

/** Runs every row and prints the tables. */
export async function runGatewayBench(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-gw-bench-'));
  const token = `bench_${randomBytes(16).toString('hex')}`;
  const sha256 = createHash('sha256').update(token).digest('hex');
  const notes: string[] = [];
  try {
    const { value: backendPort } = await spawnAndRead([path.join(__dirname, 'echo-backend.js')], portOf);
    const backendUrl = `http://127.0.0.1:${backendPort}`;

    const targets: Target[] = [];
    const gateways: ChildProcess[] = [];
    const row: Record<string, number> = {};
    const add = (key: string, target: Target) => {
      row[key] = targets.length;
      targets.push(target);
    };
    // Every row has a gateway process of its own, as the proxy has, so each ratio compares processes serving one
    // kind of call (docs/benchmarks.md says what serving three kinds from one process did to the 2025 row). The
    // three validate_input on processes load the same config: the session-check ratio compares like with like.
    const bothTools = [getCustomerTool(backendUrl), shapedTool(backendUrl)];
    const gatewayRow = async (label: string, config: GatewayConfig, cli?: string) => {
      const gw = await startGatewayProcess(dir, config, label, cli);
      gateways.push(gw.child);
      return { url: gw.url, pid: gw.child.pid, headers: await mcpHeaders(gw.url, token) };
    };
    for (const validate of [true, false]) {
      const tools = validate ? bothTools : [getCustomerTool(backendUrl)];
      const gw = await gatewayRow(validate ? 'on' : 'off', gatewayConfig(tools, validate, sha256));
      add(validate ? 'on' : 'off', {
        name: `gateway, validate_input ${validate ? 'on' : 'off'} (2025, signed session)`,
        url: gw.url,
        pid: gw.pid,
        options: { method: 'POST', headers: gw.headers, body: (id) => callBody(id) },
      });
    }
    const modern = await gatewayRow('modern', gatewayConfig(bothTools, true, sha256));
    add('modern', {
      name: 'gateway, validate_input on (2026-07-28, no session check)',
      url: modern.url,
      pid: modern.pid,
      options: { method: 'POST', headers: await modernHeaders(modern.url, token), body: modernCallBody },
    });
    const shaped = await gatewayRow('shaped', gatewayConfig(bothTools, true, sha256));
    const probe = await fetch(shaped.url, {
      method: 'POST',
      headers: shaped.headers,
      body: callBody(3, 'get_customer_shaped'),
    });
    if (!(await probe.text()).includes('[redacted]')) throw new Error('the response-controls tool did not redact');
    add('shaped', {
      name: 'gateway, validate_input on, response controls on (output check + 1 redact pattern)',
      url: shaped.url,
      pid: shaped.pid,
      options: { method: 'POST', headers: shaped.headers, body: (id) => callBody(id, 'get_customer_shaped') },
    });
    // the same gateway with `metrics: true`: the cost of counting every call
    const withMetrics = await gatewayRow('metrics', gatewayConfig([getCustomerTool(backendUrl)], true, sha256, true));
    add('metrics', {
      name: 'gateway, validate_input on, metrics on (2025, signed session)',
      url: withMetrics.url,
      pid: withMetrics.pid,
      options: { method: 'POST', headers: withMetrics.headers, body: (id) => callBody(id) },
    });
    if (BASELINE_CLI !== undefined) {
      const gw = await gatewayRow('baseline', gatewayConfig([getCustomerTool(backendUrl)], true, sha256), BASELINE_CLI);
      add('baseline', {
        name: 'baseline build, validate_input on (2025 session)',
        url: gw.url,
        pid: gw.pid,
        options: { method: 'POST', headers: gw.headers, body: (id) => callBody(id) },
      });
    }
    const proxy = await spawnAndRead([path.join(__dirname, 'minimal-proxy.js'), backendUrl], portOf);
    add('proxy', {
      name: 'minimal Node proxy (limit)',
      url: `http://127.0.0.1:${proxy.value}/mcp`,
      pid: proxy.child.pid,
      options: { method: 'POST', headers: { 'content-type': 'application/json' }, body: (id) => callBody(id) },
    });
    const nginx = nginxBinary();
    if (nginx === undefined) notes.push('nginx not installed: no nginx row (apt-get install -y nginx)');
    else {
      const n = await startNginx(nginx, dir, backendPort);
      add('nginx', {
        name: 'nginx, 1 worker, keep-alive upstream (forwards the request as is)',
        url: `http://127.0.0.1:${n.port}/mcp`,
        pid: n.child.pid,
        options: { method: 'POST', headers: { 'content-type': 'application/json' }, body: (id) => callBody(id) },
      });
    }
    const sdk = await frameworkTarget(
      'SDK 1.x McpServer, JSON responses, keep-alive agent',
      'sdk-server.js',
      backendUrl,
    );
    if (typeof sdk === 'string') notes.push(sdk);
    else add('sdk', sdk);
    const sdk2 = await frameworkTarget(
      'SDK 2.x McpServer, JSON responses, keep-alive agent',
      'sdk2-server.js',
      backendUrl,
    );
    if (typeof sdk2 === 'string') notes.push(sdk2);
    else add('sdk2', sdk2);
    if (!installed('fastmcp')) notes.push('fastmcp not installed: no FastMCP row');
    else {
      const fast = await frameworkTarget('FastMCP, HTTP stream, JSON responses', 'fastmcp-server.js', backendUrl);
      if (typeof fast === 'string') notes.push(fast);
      else add('fastmcp', fast);
    }
    add('direct', {
      name: 'backend direct',
      url: `${backendUrl}/customers/C-0042?limit=5&status=open`,
      options: { method: 'GET' },
    });
    const rows = await measure(targets);
    // A twin of the validation-on gateway, loaded only beside it: what a paired ratio reads with no difference.
    const twin = await gatewayRow('twin', gatewayConfig(bothTools, true, sha256));
    const on = targets[row.on];
    const twinTarget: Target = {
      ...on,
      url: twin.url,
      pid: twin.pid,
      options: { ...on.options, headers: twin.headers },
    };
    const paired: [string, string, string, (r: PairedRatio) => Spread, string][] = [
      ['gateway A/A (two identical gateways), CPU per call', 'on', 'twin', (r) => r.cpu, 'about 1.00'],
      ['signed-session call / a call with no session check, CPU per call', 'modern', 'on', (r) => r.cpu, '<= 1.05'],
      ['metrics on / off, CPU per call', 'on', 'metrics', (r) => r.cpu, '<= 1.03'],
      ['validation on / off, req/s', 'off', 'on', (r) => r.rps, '>= 0.97'],
      ['response controls on / off, CPU per call', 'on', 'shaped', (r) => r.cpu, '<= 1.05'],
      ['gateway (validation on, 2025 signed session) / minimal Node proxy, req/s', 'proxy', 'on', (r) => r.rps, '-'],
      ['gateway (2026-07-28 call) / minimal Node proxy, req/s', 'proxy', 'modern', (r) => r.rps, '-'],
    ];
    const pairedRows: string[] = [];
    for (const [label, a, b, pick, target] of paired) {
      const first = targets[row[a]];
      const second = b === 'twin' ? twinTarget : targets[row[b]];
      if (first === undefined || second === undefined) continue;
      const r = pick(await pairedRatio(first, second));
      pairedRows.push(`| ${label} | ${fmt(r.median, 2)} | ${fmt(r.min, 2)}–${fmt(r.max, 2)} | ${target} |`);
    }
    await Promise.all(gateways.map((g) => stopChild(g)));

    console.log(
      `tools/call, ${CONNECTIONS} connections, pipelining 1, ${DURATION_S} s per row x ${ROUNDS} rounds interleaved, mean (autocannon), a new JSON-RPC id per request\n`,
    );
    console.log('| row | req/s | p50 ms | p99 ms | server CPU µs/call | failed |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const r of rows)
      console.log(
        `| ${r.name} | ${fmt(r.rps)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${fmt(r.cpuUs)} | ${r.failures} |`,
      );
    for (const note of notes) console.log(`\n${note}`);
    const get = (key: string): Row | undefined => (row[key] === undefined ? undefined : rows[row[key]]);
    const ratio = (label: string, value: number | undefined, target: string) =>
      console.log(`| ${label} | ${value === undefined ? 'n/a' : fmt(value, 2)} | ${target} |`);
    const rps = (a: string, b: string) => {
      const x = get(a);
      const y = get(b);
      return x === undefined || y === undefined ? undefined : x.rps / y.rps;
    };
    const cpu = (a: string, b: string) => {
      const x = get(a);
      const y = get(b);
      return x === undefined || y === undefined ? undefined : x.cpuUs / y.cpuUs;
    };
    console.log(`\n| ratio | value | target |`);
    console.log('|---|---:|---|');
    ratio('gateway (validation on, 2025 signed session) / minimal Node proxy, req/s', rps('on', 'proxy'), '>= 0.95');
    ratio('gateway (2026-07-28 call) / minimal Node proxy, req/s', rps('modern', 'proxy'), '>= 0.95');
    ratio(
      'signed-session call / a call with no session check (2026-07-28), CPU per call',
      cpu('on', 'modern'),
      '<= 1.05',
    );
    if (get('baseline') !== undefined) {
      ratio('2025 signed session / baseline build, req/s', rps('on', 'baseline'), '>= 0.95');
      ratio('2025 signed session / baseline build, CPU per call', cpu('on', 'baseline'), '<= 1.05');
    }
    ratio('metrics on / off, CPU per call', cpu('metrics', 'on'), '<= 1.03');
    ratio('metrics on / off, req/s', rps('metrics', 'on'), '-');
    ratio('validation on / off, req/s', rps('on', 'off'), '>= 0.97');
    ratio('validation on / off, CPU per call', cpu('on', 'off'), '-');
    ratio('response controls on / off, CPU per call', cpu('shaped', 'on'), '<= 1.05');
    ratio('response controls on / off, req/s', rps('shaped', 'on'), '-');
    ratio('gateway / minimal Node proxy, CPU per call', cpu('on', 'proxy'), '-');
    ratio('gateway / nginx, req/s', rps('on', 'nginx'), 'report');
    // per core: calls per CPU-second of the serving process (nginx is one single-threaded worker)
    ratio('gateway / nginx, calls per CPU-second (per core)', cpu('nginx', 'on'), 'report');
    ratio('gateway / SDK McpServer tuned for speed, req/s', rps('on', 'sdk'), 'report');
    ratio('gateway / SDK McpServer tuned for speed, calls per CPU-second', cpu('sdk', 'on'), 'report');
    ratio('gateway / SDK 2.x McpServer tuned for speed, req/s', rps('on', 'sdk2'), 'report');
    ratio('gateway / SDK 2.x McpServer tuned for speed, calls per CPU-second', cpu('sdk2', 'on'), 'report');
    ratio('gateway / FastMCP, req/s', rps('on', 'fastmcp'), 'report');
    ratio('gateway / FastMCP, calls per CPU-second', cpu('fastmcp', 'on'), 'report');

    console.log(
      `\nThe same ratios side by side (both targets loaded at once, ${CONNECTIONS >> 1} connections each, ` +
        `${PAIRED_ROUNDS} rounds of ${PAIRED_DURATION_S} s): the median of the rounds and their range. The steadier ` +
        `reading on a machine whose speed moves from one second to the next; the A/A row shows what no difference reads.\n`,
    );
    console.log('| ratio, side by side | median | range | target |');
    console.log('|---|---:|---:|---|');
    for (const line of pairedRows) console.log(line);
  } finally {
    await Promise.all([...children].map((c) => stopChild(c)));
    rmSync(dir, { recursive: true, force: true });
  }
}
