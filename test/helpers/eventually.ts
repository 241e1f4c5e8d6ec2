/**
 * The one polling helper of the tests: waits, bounded in time, for what happens on another connection, in another
 * process or in a file written in the background.
 */

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Thrown by a probe to stop waiting at once (e.g. the process it waits for has exited): {@link eventually} rethrows it. */
export class GiveUp extends Error {
  override readonly name = 'GiveUp';
}

export interface EventuallyOptions {
  /** How long to keep trying. @default 5000 */
  readonly timeoutMs?: number;
  /** The pause between two tries. @default 20 */
  readonly intervalMs?: number;
  /**
   * What is awaited, for the timeout message: "timed out after N ms waiting for <what>", followed by the probe's
   * last error if it threw one. @default - the probe's last error as it is (an assertion reports itself), or
   * "timed out after N ms waiting for the condition" when it only returned `false`
   */
  readonly what?: string;
}

/**
 * Runs `probe` until it neither throws nor returns `false`, then resolves with what it returned. A probe may be an
 * assertion (`() => assert.equal(…)`), a predicate (`() => backend.requests >= 3`) or a reader returning `false`
 * for "not yet" (`() => readAuditLog(file).find(isIt) ?? false`).
 * After `timeoutMs` it fails with the probe's last error (see {@link EventuallyOptions.what}). A {@link GiveUp}
 * thrown by the probe ends the wait at once.
 * @example
 * await eventually(() => assert.equal(readAuditLog(file).length, 3));
 * await eventually(() => backend.requests >= 60, { timeoutMs: 10_000, what: '60 calls at the backend' });
 * const record = await eventually(() => readAuditLog(file).find(isIt) ?? false, { what: 'the refusal record' });
 */
export async function eventually<T>(
  probe: () => T | Promise<T>,
  options: EventuallyOptions = {},
): Promise<Exclude<T, false>> {
  const { timeoutMs = 5_000, intervalMs = 20, what } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let failure: unknown;
    try {
      const value = await probe();
      if (value !== false) return value as Exclude<T, false>;
    } catch (err) {
      if (err instanceof GiveUp) throw err;
      failure = err;
    }
    if (Date.now() > deadline) {
      if (what === undefined && failure !== undefined) throw failure;
      const why = failure === undefined ? '' : `: ${failure instanceof Error ? failure.message : String(failure)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what ?? 'the condition'}${why}`, {
        cause: failure,
      });
    }
    await sleep(intervalMs);
  }
}

/**
 * `promise`, or a rejection "<what> within <ms> ms" if it has not settled by then (for a promise that must settle
 * by itself, such as a stream the server ends).
 * @example
 * await within(stream.ended, 2_000, 'the stream ended after DELETE');
 */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
