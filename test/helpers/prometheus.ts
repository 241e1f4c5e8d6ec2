/**
 * A real Prometheus server for tests: started on loopback with a generated config that scrapes one target every
 * second, queried through its HTTP API, stopped (and its data removed) by `close()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort } from './free-port';
import { eventually, GiveUp } from './eventually';

export interface PrometheusTarget {
  /** `127.0.0.1:PORT` */
  readonly address: string;
  /** @default '/metrics' */
  readonly metricsPath?: string;
  /** Sent as `Authorization: Bearer …` when the target is behind the gateway's authentication. */
  readonly bearerToken?: string;
}

export interface RunningPrometheus {
  readonly url: string;
  /** Runs an instant PromQL query; returns the result vector. */
  query(promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  close(): Promise<void>;
}

/** Starts `binary` (Debian's `prometheus`) scraping `target` every second. */
export async function startPrometheus(binary: string, target: PrometheusTarget): Promise<RunningPrometheus> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prometheus-test-'));
  const auth = target.bearerToken === undefined ? '' : `    authorization:\n      credentials: ${target.bearerToken}\n`;
  fs.writeFileSync(
    path.join(dir, 'prometheus.yml'),
    'global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n' +
      `scrape_configs:\n  - job_name: gateway\n    metrics_path: ${target.metricsPath ?? '/metrics'}\n${auth}` +
      `    static_configs:\n      - targets: ['${target.address}']\n`,
  );
  const port = await freePort();
  const child: ChildProcess = spawn(
    binary,
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString('utf8')).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new GiveUp(`prometheus exited (${child.exitCode}): ${stderr}`);
      return fetch(`${url}/-/ready`).then(
        (r) => r.ok,
        () => false,
      );
    },
    { timeoutMs: 30_000, intervalMs: 200, what: 'prometheus to be ready' },
  ).catch((err: Error) => {
    throw err instanceof GiveUp ? err : new Error(`prometheus not ready after 30 s: ${stderr}`);
  });
  return {
    url,
    async query(promql) {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await res.json()) as { status: string; data: { result: [] }; error?: string };
      if (body.status !== 'success') throw new Error(`query ${promql} failed: ${body.error}`);
      return body.data.result;
    },
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The value of one series (`name{labels}`, written exactly) in a text exposition, or `undefined`. */
export function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
