/**
 * A real `redis-server` (Debian's) for the shared-store tests: on 127.0.0.1, a free port, no persistence, in a temp
 * directory. Outside CI a missing server makes the tests pending (`needs redis-server`); under `CI=true` it is
 * required (`.ci/run` installs it). Every server started here is killed when the test process exits.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { freePort } from './free-port';
import { requiredInCi } from './system-tool';

/** The redis-server binary, or `undefined` outside CI when it is not installed. */
export const REDIS_SERVER = requiredInCi('redis-server', 'redis-server');

/** The title of the pending test registered when {@link REDIS_SERVER} is missing. */
export const NEEDS_REDIS = 'needs redis-server (apt-get install redis-server; CI installs it)';

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Kills the server at once (SIGKILL): a store outage. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty: nothing was persisted). */
  restart(): Promise<void>;
  /** Freezes (SIGSTOP) or thaws (SIGCONT) the server: a store that does not answer. */
  pause(paused: boolean): void;
  stop(): Promise<void>;
}

/** Starts a redis-server; `password` sets `requirepass`. */
export async function startRedis(options: { readonly password?: string } = {}): Promise<RedisServer> {
  if (REDIS_SERVER === undefined) throw new Error(NEEDS_REDIS);
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'redis-'));
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
    if (options.password !== undefined) args.push('--requirepass', options.password);
    const started = spawn(REDIS_SERVER!, args, { stdio: 'ignore' });
    running.add(started);
    started.once('exit', () => running.delete(started));
    child = started;
    await waitForPort(port, 5_000);
  }

  async function kill(): Promise<void> {
    const current = child;
    child = undefined;
    if (current === undefined || current.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      current.once('exit', () => resolve());
      current.kill('SIGKILL');
    });
  }

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill,
    restart: start,
    pause: (paused) => child?.kill(paused ? 'SIGSTOP' : 'SIGCONT'),
    async stop() {
      child?.kill('SIGCONT');
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitForPort(port: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not listen on 127.0.0.1:${port} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
