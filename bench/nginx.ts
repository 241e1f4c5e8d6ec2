/**
 * nginx as the benchmark's other limit: one worker process (`master_process off`, so the process spawned is the
 * one doing the work and its CPU time is read from `/proc`), access log off, a keep-alive upstream to the same
 * echo backend the gateway calls. It forwards the MCP request as it is (nginx does not speak MCP): what a
 * C HTTP proxy costs per request on this machine.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import * as path from 'node:path';
import { track } from './children';

/** The nginx binary on PATH (or `/usr/sbin/nginx`), or `undefined` when it is not installed. */
export function nginxBinary(): string | undefined {
  for (const candidate of ['nginx', '/usr/sbin/nginx']) {
    const r = spawnSync(candidate, ['-v'], { stdio: 'ignore' });
    if (r.error === undefined && r.status === 0) return candidate;
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Starts nginx in `dir` proxying to `backendPort`; resolves once it accepts connections. */
export async function startNginx(
  binary: string,
  dir: string,
  backendPort: number,
): Promise<{ child: ChildProcess; port: number }> {
  const root = path.join(dir, 'nginx');
  mkdirSync(path.join(root, 'logs'), { recursive: true });
  const port = await freePort();
  const conf = `
daemon off;
master_process off;
worker_processes 1;
pid ${root}/nginx.pid;
error_log ${root}/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${root}/body;
  proxy_temp_path ${root}/proxy;
  fastcgi_temp_path ${root}/fastcgi;
  uwsgi_temp_path ${root}/uwsgi;
  scgi_temp_path ${root}/scgi;
  keepalive_timeout 60s;
  keepalive_requests 1000000;
  upstream backend {
    server 127.0.0.1:${backendPort};
    keepalive 64;
    keepalive_requests 1000000;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://backend;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering on;
    }
  }
}
`;
  const file = path.join(root, 'nginx.conf');
  writeFileSync(file, conf);
  const child = spawn(binary, ['-p', root, '-c', file, '-e', path.join(root, 'logs', 'error.log')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  track(child);
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited ${child.exitCode}: ${err}`);
    const res = await fetch(`http://127.0.0.1:${port}/`).catch(() => undefined);
    if (res !== undefined) {
      await res.arrayBuffer();
      return { child, port };
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  child.kill('SIGKILL');
  throw new Error(`nginx did not answer on port ${port}: ${err}`);
}
