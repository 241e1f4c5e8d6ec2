/**
 * Config changes in place: how long from `apply-config`'s swap of the config file to the gateway reporting that it
 * serves the new config, and the latency of calls while configs are swapped in (a toggled `validate_input` every
 * 500 ms), beside the same load with no change. The gateway is a `serve --watch --status-file` process and
 * `apply-config` another, as in their container; the gateway (metrics on) reports the longest its event loop was held.
 * The load is 2026-07-28 `tools/call`s at a concurrency of 8 against a node:http echo backend.
 * Run alone with `node dist/bench/run.js reload`.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import * as http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { applyConfig } from '../src/cli/apply-config';
import type { ToolConfig } from '../src/config/gateway-config';
import { CLI, gatewayConfig, generatedTool, getCustomerTool, serveArgs, spawnAndRead, spread, urlOf } from './gateway';

const run = promisify(execFile);
import { stopChild } from './children';

/** Load per phase: long enough for a few reloads of the largest config (each checked by `apply-config` first). */
const phaseMs = (tools: number) => (tools > 1_000 ? 12_000 : 4_000);
const CONCURRENCY = 8;
const SWAP_EVERY_MS = 500;

interface LoadRow {
  readonly calls: number;
  readonly failed: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/** Runs the reload benchmark and prints its table. */
export async function runReloadBench(): Promise<void> {
  const backend = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
  );
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  const backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
  console.log(
    '| tools | phase | calls | failed | p50 | p99 (target < 50 ms) | max | longest event-loop hold (target ≤ 50 ms) | swap → serving (median, min–max) |',
  );
  console.log('| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  try {
    for (const count of [1, 1_000, 10_000]) {
      const tools =
        count === 1
          ? [getCustomerTool(backendUrl)]
          : [getCustomerTool(backendUrl), ...Array.from({ length: count - 1 }, (_, i) => generatedTool(backendUrl, i))];
      await benchOne(tools);
    }
  } finally {
    backend.close();
    backend.closeAllConnections();
  }
}

async function benchOne(tools: ToolConfig[]): Promise<void> {
  const token = randomBytes(24).toString('base64url');
  const sha256 = createHash('sha256').update(token).digest('hex');
  const state = mkdtempSync(path.join(tmpdir(), 'bench-reload-'));
  const upload = path.join(state, 'upload.json');
  const write = (validateInput: boolean): void => {
    const config = gatewayConfig(tools, validateInput, sha256, true);
    writeFileSync(upload, JSON.stringify({ ...config, gateway: { ...config.gateway, audit_log: false } }));
  };
  write(true);
  const first = await applyConfig({ configPath: upload, stateDir: state, timeoutMs: 1 });
  if (first.outcome !== 'stored') throw new Error(`apply-config: ${JSON.stringify(first)}`);
  const { child, value: url } = await spawnAndRead(
    serveArgs([
      '--config',
      path.join(state, 'gateway.json'),
      '--watch',
      '--status-file',
      path.join(state, 'status.json'),
    ]),
    urlOf,
    60_000,
  );
  try {
    await loopHoldMs(url, token); // starts the gateway's measure afresh
    const steady = await load(url, token, phaseMs(tools.length));
    row(tools.length, 'steady', steady, await loopHoldMs(url, token), '');
    const swaps: number[] = [];
    let on = true;
    let swapping = true;
    const swapper = (async () => {
      while (swapping) {
        on = !on;
        write(on);
        swaps.push(await applyInChild(upload, state));
        await new Promise((resolve) => setTimeout(resolve, SWAP_EVERY_MS));
      }
    })();
    const during = await load(url, token, phaseMs(tools.length));
    swapping = false;
    await swapper;
    const hold = await loopHoldMs(url, token);
    const s = spread(swaps);
    row(tools.length, `during ${swaps.length} reloads`, during, hold, `${s.median} ms (${s.min}–${s.max})`);
  } finally {
    await stopChild(child);
    rmSync(state, { recursive: true, force: true });
  }
}

/**
 * `apply-config` in a process of its own, as in the container: its check of the config (a gateway started on it)
 * must not stall this process's load generator. The ms it reports from the swap to the new config serving.
 */
async function applyInChild(upload: string, state: string): Promise<number> {
  const args = [CLI, 'apply-config', '--config', upload, '--state-dir', state, '--timeout-ms', '60000'];
  const { stdout } = await run(process.execPath, args);
  const ms = /serving \(reloaded in (\d+) ms\)/.exec(stdout)?.[1];
  if (ms === undefined) throw new Error(`apply-config: ${stdout}`);
  return Number(ms);
}

/**
 * The longest the gateway's event loop was held since the last look, ms: prom-client's
 * `nodejs_eventloop_lag_max_seconds` (node's event-loop delay monitor), which each scrape starts afresh.
 */
async function loopHoldMs(url: string, token: string): Promise<number> {
  const res = await fetch(new URL('/metrics', url), { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  const max = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)?.[1];
  if (max === undefined) throw new Error(`/metrics: HTTP ${res.status}, no nodejs_eventloop_lag_max_seconds`);
  return Number(max) * 1000;
}

function row(tools: number, phase: string, r: LoadRow, holdMs: number, swap: string): void {
  console.log(
    `| ${tools.toLocaleString('en-US')} | ${phase} | ${r.calls} | ${r.failed} | ${r.p50.toFixed(1)} ms | ${r.p99.toFixed(1)} ms | ${r.max.toFixed(1)} ms | ${holdMs.toFixed(1)} ms | ${swap} |`,
  );
}

/** {@link CONCURRENCY} loops of valid `tools/call`s for `ms`; every answer but a success counts as failed. */
async function load(url: string, token: string, ms: number): Promise<LoadRow> {
  const latencies: number[] = [];
  let failed = 0;
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'get_customer',
      arguments: { customer_id: 'C-0042' },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
      },
    },
  });
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${token}`,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'get_customer',
  };
  const end = Date.now() + ms;
  const loop = async (): Promise<void> => {
    while (Date.now() < end) {
      const started = performance.now();
      try {
        const res = await fetch(url, { method: 'POST', headers, body });
        const text = await res.text();
        if (res.status !== 200 || text.includes('"isError":true') || text.includes('"error"')) failed++;
      } catch {
        failed++;
      }
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  const sorted = latencies.sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { calls: sorted.length, failed, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] };
}

if (require.main === module) {
  runReloadBench().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
