/**
 * Helpers for the tests that run `dev` / `npm start` as a user would: spawn in a new process group,
 * wait for output lines, list every descendant process, check ports are closed.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as net from 'node:net';

/** A spawned command with its accumulated output. */
export interface Spawned {
  readonly child: ChildProcess;
  readonly output: () => string;
  /** Resolves with the first match of `re` in stdout+stderr; rejects after `timeoutMs` or on exit. */
  waitFor(re: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  readonly exited: Promise<number | string>;
}

/** Spawns a command in its own process group (like a terminal's foreground job). */
export function spawnGroup(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Spawned {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    out += chunk.toString('utf8');
    listeners.forEach((l) => l());
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => {
      resolve(code ?? signal ?? 'unknown');
      listeners.forEach((l) => l());
    }),
  );
  let done = false;
  void exited.then(() => {
    done = true;
  });
  return {
    child,
    output: () => out,
    exited,
    waitFor(re, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const m = re.exec(out);
          if (m !== null) {
            cleanup();
            resolve(m);
          } else if (done) {
            cleanup();
            reject(new Error(`exited before ${re}; output:\n${out}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no ${re} within ${timeoutMs} ms; output:\n${out}`));
        }, timeoutMs);
        const cleanup = (): void => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** The pid and every descendant pid (walking `ps --ppid`). */
export function processTree(pid: number): number[] {
  const all = [pid];
  // breadth first: `for…of` visits the children pushed while it runs
  for (const parent of all) {
    let children = '';
    try {
      children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(parent)], { encoding: 'utf8' });
    } catch {
      // ps exits 1 when there are none
    }
    for (const c of children
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean))
      all.push(Number(c));
  }
  return all;
}

/** Whether a process exists (and is not a zombie). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' })
      .trim()
      .startsWith('Z');
  } catch {
    return false;
  }
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
export function portIsOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** Kills a whole process group, ignoring a group that is gone (test cleanup). */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* gone */
  }
}

/**
 * Stops a `dev` run as a user does (Ctrl-C: SIGINT to its group), waits for it, then kills whatever of its
 * process tree is left. `dev` runs each backend in a process group of its own, which a SIGKILL of the dev's group
 * alone would leave running (test cleanup).
 */
export async function stopGroup(spawned: Spawned | undefined, timeoutMs = 10_000): Promise<void> {
  const pid = spawned?.child.pid;
  if (spawned === undefined || pid === undefined) return;
  const tree = processTree(pid);
  try {
    process.kill(-pid, 'SIGINT');
  } catch {
    /* gone */
  }
  await Promise.race([spawned.exited, new Promise((resolve) => setTimeout(resolve, timeoutMs))]);
  killGroup(pid);
  for (const p of tree) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}
