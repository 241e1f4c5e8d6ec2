/**
 * Child processes `dev` starts (the app during synthesis, the backends) and how it stops them.
 * Each child runs in its own process group, so stopping it also stops whatever it started
 * (`npx`, a shell, a watcher), and a Ctrl-C in the terminal reaches `dev` first, which then
 * stops its children in order instead of racing them.
 */
import { ChildProcess, spawn } from 'node:child_process';

/** A started child and the way to stop it with all its descendants. */
export interface ManagedChild {
  readonly process: ChildProcess;
  /** Resolves with the exit code (or signal name) once the child has exited. */
  readonly exited: Promise<number | string>;
  /** SIGTERM to the child's process group, SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

const live = new Set<ManagedChild>();

/** Runs a shell command in its own process group with piped stdout/stderr. */
export function spawnManaged(command: string, options: { cwd: string; env: NodeJS.ProcessEnv }): ManagedChild {
  const child = spawn(command, {
    cwd: options.cwd,
    env: options.env,
    shell: true,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once('error', () => resolve('spawn-error'));
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  const killGroup = (signal: NodeJS.Signals): void => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // the group is already gone
    }
  };
  const managed: ManagedChild = {
    process: child,
    exited,
    async stop(graceMs = 5000) {
      killGroup('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const forced = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          killGroup('SIGKILL');
          resolve();
        }, graceMs);
      });
      await Promise.race([exited.then(() => undefined), forced]);
      clearTimeout(timer);
      await exited;
      // The shell may exit before a grandchild that ignored SIGTERM; make sure the group is gone.
      killGroup('SIGKILL');
    },
  };
  live.add(managed);
  void exited.then(() => {
    live.delete(managed);
    // Whatever the child left running in its group (a server a wrapper script started) goes with it.
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        /* gone */
      }
    }
  });
  return managed;
}

/** Kills every child still running (synchronously: safe in a `process.on('exit')` handler). */
export function killAllChildrenSync(): void {
  for (const c of live) {
    if (c.process.pid === undefined) continue;
    try {
      process.kill(-c.process.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  live.clear();
}

/** Splits a stream into lines and calls `onLine` for each. */
export function onLines(stream: NodeJS.ReadableStream | null, onLine: (line: string) => void): void {
  if (stream === null) return;
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      onLine(buffered.slice(0, nl).replace(/\r$/, ''));
      buffered = buffered.slice(nl + 1);
    }
  });
  stream.on('end', () => {
    if (buffered !== '') onLine(buffered);
    buffered = '';
  });
}
