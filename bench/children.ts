/** The child processes a benchmark started, so that every suite stops what it started, even after a failure. */
import type { ChildProcess } from 'node:child_process';

/** Every child a suite started and that has not closed yet. */
export const children = new Set<ChildProcess>();

/** Keeps `child` in {@link children} until it closes. */
export function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.on('close', () => children.delete(child));
  return child;
}

/** SIGTERM, then SIGKILL after 10 s; resolves once the child has closed. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await closed;
  clearTimeout(timer);
}
