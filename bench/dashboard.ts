/**
 * The dashboard benchmark (`npm run bench`, or `node dist/bench/run.js dashboard`): ingest of 1,000,000 audit
 * records by the built CLI (`cdktf-mcp-gateway dashboard`, its own process), from the start of the process to its
 * `Dashboard: URL` line (it reads every file before listening); then its resident memory, and the time of the
 * API answers the page polls. Targets are reported, not asserted.
 *
 * The records look like a busy week: 2 files (replicas), 3 gateways, 40 agents, 30 tools, 20 % refused with 12
 * distinct messages, 2 % service errors, spread over the last 7 days.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import * as path from 'node:path';
import { cpuMs, rssMb } from './proc';

const RECORDS = Number(process.env.BENCH_DASHBOARD_RECORDS ?? 1_000_000);
const ROOT = path.resolve(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'src', 'cli', 'main.js');
/** Requests per API row. */
const QUERIES = 20;

/** Writes the benchmark's audit files into `dir`; returns the characters written. */
export function writeAuditFiles(dir: string): number {
  const now = Date.now();
  const weekMs = 7 * 24 * 3600_000;
  let bytes = 0;
  const files = [0, 1].map((i) => openSync(path.join(dir, `audit-${i}.jsonl`), 'w'));
  const batch = ['', ''];
  for (let n = 0; n < RECORDS; n++) {
    const replica = n % 2;
    const roll = (n * 7919) % 100;
    const outcome = roll < 20 ? 'refused' : roll < 22 ? 'error' : 'ok';
    const tool = `tool_${(n * 31) % 30}`;
    const record = {
      // oldest first, as a gateway writes them; the oldest 10 minutes inside the 7-day window, so that minute
      // buckets and the time to write and ingest them do not push a record out before the summary is read
      ts: new Date(now - weekMs + 600_000 + Math.floor((n / RECORDS) * (weekMs - 660_000))).toISOString(),
      gateway: `gateway-${n % 3}`,
      session: `sess-${n % 1000}`,
      principal: `agent-${(n * 13) % 40}`,
      client: { name: 'agent-sdk', version: '1.2.0' },
      tool,
      outcome,
      error:
        outcome === 'ok'
          ? null
          : {
              // the gateway's own codes and messages (see docs/input-and-validation.md), so the scanner sees realistic lines
              code: outcome === 'refused' ? 'INVALID_ARGS' : 'SERVICE_HTTP_STATUS',
              message:
                outcome === 'refused'
                  ? [
                      `Missing required parameter: \`${['priority', 'customer_id', 'limit', 'email'][n % 4]}\``,
                      'Invalid value for `priority`: expected one of "low", "normal", "high"',
                      'Invalid value for `limit`: expected <= 100',
                    ][n % 3]
                  : 'Service error: HTTP 503',
            },
      duration_ms: (n % 50) + 1,
    };
    batch[replica] += `${JSON.stringify(record)}\n`;
    if (batch[replica].length > 1 << 20) {
      bytes += writeSync(files[replica], batch[replica]);
      batch[replica] = '';
    }
  }
  for (const i of [0, 1]) {
    bytes += writeSync(files[i], batch[i]);
    closeSync(files[i]);
  }
  return bytes;
}

/** Starts the dashboard and resolves with the URL of its `Dashboard:` line and the ms it took. */
function startDashboard(dir: string): Promise<{ child: ChildProcess; url: string; ms: number }> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [CLI, 'dashboard', '--audit-dir', dir, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`dashboard did not start within 120 s: ${err}`)), 120_000);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /^Dashboard: (\S+)$/m.exec(out)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        resolve({ child, url, ms: Number(process.hrtime.bigint() - started) / 1e6 });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`dashboard exited (${code}): ${err}`));
    });
  });
}

async function timeQueries(url: string): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < QUERIES; i++) {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
    await res.arrayBuffer();
  }
  return Number(process.hrtime.bigint() - started) / 1e6 / QUERIES;
}

/** Runs the rows and prints the tables. */
export async function runDashboardBench(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-dashboard-'));
  let child: ChildProcess | undefined;
  try {
    const bytes = writeAuditFiles(dir);
    const sizeMb = [0, 1].reduce((sum, i) => sum + statSync(path.join(dir, `audit-${i}.jsonl`)).size, 0) / 1024 / 1024;
    const started = await startDashboard(dir);
    child = started.child;
    const rss = rssMb(child.pid!);
    const cpu = cpuMs(child.pid!);
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    const summary = (await (await fetch(`${started.url}api/summary?window=7d`)).json()) as {
      totals: { calls: number };
      ingest: { records: number; malformed: number };
    };
    if (summary.totals.calls !== RECORDS) throw new Error(`ingested ${summary.totals.calls} of ${RECORDS} records`);
    const fmt = (n: number, d = 0): string =>
      n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
    console.log(
      `${fmt(RECORDS)} audit records in 2 files (${fmt(sizeMb, 1)} MB, ${fmt(bytes)} chars), built CLI, start to "Dashboard:" line\n`,
    );
    console.log('| row | value | target |');
    console.log('|---|---:|---|');
    console.log(`| ingest ${fmt(RECORDS)} records (process start to listening) | ${fmt(started.ms)} ms | < 5000 ms |`);
    console.log(`| records/s | ${fmt(RECORDS / (started.ms / 1000))} | >= 200,000 |`);
    console.log(`| CPU time of the dashboard process to listening (user + sys) | ${fmt(cpu)} ms | < 5000 ms |`);
    console.log(`| load average (1 min) during the row, ${cpus().length} cores | ${load} | - |`);
    console.log(`| resident memory after ingest (VmRSS) | ${fmt(rss, 1)} MB | bounded (see docs/dashboard.md) |`);
    for (const window of ['1h', '24h', '7d']) {
      const ms = await timeQueries(`${started.url}api/summary?window=${window}`);
      console.log(`| GET /api/summary?window=${window} (mean of ${QUERIES}) | ${fmt(ms, 1)} ms | < 250 ms |`);
    }
    const tsMs = await timeQueries(`${started.url}api/timeseries?window=7d`);
    console.log(`| GET /api/timeseries?window=7d (mean of ${QUERIES}) | ${fmt(tsMs, 1)} ms | < 250 ms |`);
    console.log(`| resident memory after the queries (VmRSS) | ${fmt(rssMb(child.pid!), 1)} MB | - |`);
  } finally {
    child?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}
