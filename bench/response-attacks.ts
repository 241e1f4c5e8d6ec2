/**
 * A hostile backend against the response path, measured at a real gateway:
 * - the event loop's longest stall while a tool with a costly redact pattern (the bounded email pattern) shapes a
 *   244 KiB and a 1 MiB body of `a@a@…` (target: under 20 ms);
 * - cheap calls' latency (another tool, small answers) while two calls get hostile 4 MiB bodies that are slow to
 *   parse (target: p99 under 50 ms);
 * - the gateway process's peak memory with 64 concurrent 4 MiB bodies (target: under 300 MB).
 * The first two run the gateway in this process (its event loop is the one measured); the third runs `serve` as
 * a process of its own and reads its peak resident set (VmHWM). Run alone with `node dist/bench/run.js response-attacks`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createHash, randomBytes } from 'node:crypto';
import type { GatewayConfig, ToolConfig } from '../src/config/gateway-config';
import { startGateway } from '../src/gateway';
import { serveArgs } from './gateway';
import { statusMb } from './proc';

const MIB = 1024 * 1024;
const EMAIL = '[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,255}';
const NESTED = `{"items":[${'[[[[[[[[]]]]]]]],'.repeat(Math.floor((4 * MIB - 100) / 17))}"4111111111111111"]}`;

/** Runs the response-attack benchmark and prints its table. */
export async function runResponseAttacksBench(): Promise<void> {
  const bodies: Record<string, string> = {
    '/a244': JSON.stringify({ note: 'a@'.repeat(122 * 1024) }),
    '/a1m': JSON.stringify({ note: 'a@'.repeat(MIB / 2) }),
    '/nested': NESTED,
    '/small': '{"id":"C-1","ok":true}',
    '/plain4m': JSON.stringify({ note: 'x'.repeat(4 * MIB - 20) }),
  };
  const server = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(bodies[new URL(req.url ?? '/', 'http://x').pathname] ?? '{}');
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const token = randomBytes(24).toString('base64url');
  const sha256 = createHash('sha256').update(token).digest('hex');
  const tool = (name: string, p: string, extra: Partial<ToolConfig> = {}): ToolConfig => ({
    name,
    description: name,
    input_schema: { type: 'object', properties: {}, additionalProperties: false },
    backend: { url: `${base}${p}`, method: 'GET', timeout_ms: 2_000 },
    ...extra,
  });
  const redacting = { response: { redact_patterns: { email: EMAIL } } };
  const config: GatewayConfig = {
    version: 1,
    gateway: {
      name: 'attacks',
      host: '127.0.0.1',
      port: 8080,
      auth: { tokens: [{ id: 'bench', sha256 }] },
      audit_log: false,
      max_response_bytes: 8 * MIB,
    },
    tools: [
      tool('email_244k', '/a244', redacting),
      tool('email_1m', '/a1m', redacting),
      tool('nested', '/nested', { ...redacting, backend: { url: `${base}/nested`, method: 'GET', timeout_ms: 500 } }),
      tool('small', '/small'),
      tool('plain_4m', '/plain4m'),
    ],
  };
  console.log('| attack | measure | reading | target |');
  console.log('| --- | --- | ---: | ---: |');
  try {
    const gateway = await startGateway({ config, port: 0, host: '127.0.0.1', logger: () => undefined });
    try {
      const call = callerOf(gateway.url, token);
      await call('email_244k'); // the body thread starts once
      for (const [name, label] of [
        ['email_244k', '244 KiB of a@a@…, email pattern'],
        ['email_1m', '1 MiB of a@a@…, email pattern'],
      ] as const) {
        const stalls: number[] = [];
        for (let i = 0; i < 5; i++) {
          const delay = monitorEventLoopDelay({ resolution: 2 });
          delay.enable();
          await call(name);
          delay.disable();
          stalls.push(delay.max / 1e6);
        }
        console.log(`| ${label} | longest event-loop stall (median of 5) | ${median(stalls).toFixed(1)} ms | 20 ms |`);
      }
      const latencies: number[] = [];
      const hostile = Promise.all([call('nested'), call('nested')]);
      let attacking = true;
      void hostile.then(() => (attacking = false));
      const until = Date.now() + 3_000;
      while (attacking || Date.now() < until) {
        const t = performance.now();
        await call('small');
        latencies.push(performance.now() - t);
        if (Date.now() > until + 10_000) break;
      }
      await hostile;
      const sorted = latencies.sort((a, b) => a - b);
      const p = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
      console.log(
        `| two hostile 4 MiB bodies (nested arrays, timeout 500 ms) | cheap calls meanwhile: p50 / p99 (${sorted.length} calls) | ${p(0.5).toFixed(1)} / ${p(0.99).toFixed(1)} ms | p99 50 ms |`,
      );
    } finally {
      await gateway.close();
    }
    // at the default limits (max_response_bytes 4 MiB, max_held_response_bytes 16 MiB)
    const defaults = { ...config, gateway: { ...config.gateway, max_response_bytes: undefined } };
    const { peak, served } = await peakMemory(defaults, token);
    console.log(
      `| 64 concurrent 4 MiB bodies (${served} served, the rest refused) | the gateway process's peak resident memory | ${peak} MB | 300 MB |`,
    );
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

/** A tools/call of the 2026-07-28 revision; resolves when the answer is read. */
function callerOf(url: string, token: string): (name: string) => Promise<string> {
  return async (name) => {
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: {},
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
        },
      },
    };
    const res = await fetch(url, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': name,
      },
    });
    return res.text();
  };
}

/** `serve` as a process, 64 concurrent calls of a 4 MiB plain body: its VmHWM in MB, and how many were served. */
async function peakMemory(config: GatewayConfig, token: string): Promise<{ peak: number; served: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-attacks-'));
  const file = path.join(dir, 'gateway.json');
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(process.execPath, serveArgs(['--config', file, '--port', '0']), {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /"url":"([^"]+)"/.exec(out);
        if (m !== null) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
    });
    const call = callerOf(url, token);
    const answers = await Promise.all(Array.from({ length: 64 }, () => call('plain_4m')));
    const served = answers.filter((a) => a.length > 4 * MIB).length;
    return { peak: Math.round(statusMb(child.pid, 'VmHWM')), served };
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

if (require.main === module) {
  runResponseAttacksBench().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
