/**
 * Starts one `dev.json` backend and waits for its `Backend: http://HOST:PORT` line.
 */
import type { DevBackendSpec } from './dev-file';
import { ManagedChild, onLines, spawnManaged } from './child-processes';

/** The line a backend prints once it listens. */
export const BACKEND_READY_LINE = /^Backend: (https?:\/\/(\[[^\]]+\]|[^/:\s]+):(\d+))\/?\s*$/;

/** A backend that printed its address. */
export interface RunningBackend {
  readonly name: string;
  /** `http://HOST:PORT` */
  readonly url: string;
  /** `HOST:PORT`, what its `hosts` are mapped to. */
  readonly address: string;
  readonly child: ManagedChild;
}

/** The backend exited or never said where it listens. */
export class BackendStartError extends Error {}

/**
 * Runs the backend command in `dir` and resolves once it printed its address.
 * @param onOutput receives each output line of the backend (for a prefixed echo)
 */
export async function startBackend(
  spec: DevBackendSpec,
  dir: string,
  onOutput: (line: string) => void,
): Promise<RunningBackend> {
  const name = spec.name ?? spec.hosts[0];
  const child = spawnManaged(spec.command, { cwd: dir, env: process.env });
  let tail = '';
  const ready = new Promise<RunningBackend>((resolve) => {
    const onLine = (line: string): void => {
      tail = `${tail}${line}\n`.slice(-2000);
      onOutput(line);
      const m = BACKEND_READY_LINE.exec(line);
      if (m !== null) resolve({ name, url: m[1], address: `${m[2]}:${m[3]}`, child });
    };
    onLines(child.process.stdout, onLine);
    onLines(child.process.stderr, onLine);
  });
  const timeoutMs = spec.readyTimeoutMs ?? 30_000;
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    ready,
    child.exited.then((code) => `exited (${code})`),
    new Promise<string>((resolve) => {
      timer = setTimeout(
        () => resolve(`printed no 'Backend: http://HOST:PORT' line within ${timeoutMs} ms`),
        timeoutMs,
      );
    }),
  ]);
  clearTimeout(timer);
  if (typeof outcome === 'string') {
    await child.stop(1000);
    throw new BackendStartError(
      `backend ${name} (${spec.command}) ${outcome}${tail === '' ? '' : `; its output ended with:\n${tail.trimEnd()}`}`,
    );
  }
  return outcome;
}
