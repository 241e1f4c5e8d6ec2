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
): Promise<({ value: T } | { error: unknown })[]> {
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
