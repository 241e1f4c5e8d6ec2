/**
 * Long work in slices: the event loop goes round between slices, so timers and calls waiting meanwhile run before
 * the work ends; the work's result is what it would be at once.
 */
import * as assert from 'node:assert/strict';
import { runAtOnce, runInSlices, Slicer } from '../../../src/gateway/reload/event-loop-slices';

function* steps(n: number, done: string[]): Generator<void, number, void> {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sum += i;
    done.push(`step ${i}`);
    yield;
  }
  return sum;
}

describe('event loop slices', () => {
  it('lets what waits on the event loop run between slices, and returns what the work returns', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('waiting'));
    // A slice of 0 ms ends after each step.
    const sum = await runInSlices(steps(3, order), new Slicer(0));
    assert.equal(sum, 3);
    assert.deepEqual(order.slice(0, 2), ['step 0', 'waiting']);
    assert.equal(order.length, 4);
  });

  it('runs the steps of a slice without going round the loop while its time lasts', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('waiting'));
    const sum = await runInSlices(steps(100, order), new Slicer(60_000));
    assert.equal(sum, 4950);
    assert.equal(order.indexOf('waiting'), -1);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(order.at(-1), 'waiting');
  });

  it('runs every step at once when asked to', () => {
    const order: string[] = [];
    assert.equal(runAtOnce(steps(4, order)), 6);
    assert.equal(order.length, 4);
  });
});
