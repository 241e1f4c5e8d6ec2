/**
 * A bounded worker pool: runs `total` tasks with at most `concurrency` in flight, so load tests stay bounded
 * on a small machine.
 */

/**
 * Runs `task(i)` for i = 0 … total-1 with `concurrency` workers; resolves with the results in index order.
 * A task that throws is recorded as `{ error }` (the pool keeps going), so a test can count failures.
 * @example
 * const results = await runPool(5000, 50, (i) => session.callTool('get_customer', argsFor(i)));
 */
export async function runPool<T>(
  total: number,
  concurrency: number,
  task: (index: number) => Promise<T>,
): Promise<Array<{ value: T } | { error: unknown }>> {
  const results = new Array<{ value: T } | { error: unknown }>(total);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= total) return;
      try {
        results[i] = { value: await task(i) };
      } catch (error) {
        results[i] = { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, () => worker()));
  return results;
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Runs `check` every 20 ms until it stops throwing; after `timeoutMs` rethrows its last error, so a failed
 * assertion reports itself (for what happens on another connection or in a file written in the background).
 * @example
 * await eventually(() => assert.equal(readAuditLog(file).length, 3));
 */
export async function eventually(check: () => Promise<void> | void, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(20);
    }
  }
}

/** Polls `predicate` every 20 ms until it is true; rejects with `what` after `timeoutMs`. */
export function waitUntil(predicate: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  return eventually(() => {
    if (!predicate()) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
  }, timeoutMs);
}
