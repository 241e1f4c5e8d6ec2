/**
 * Long work on the event loop in slices: between two slices, the loop runs whatever is waiting (calls, timers), so
 * that building a config of thousands of tools never holds a call for longer than one slice.
 */
import { performance } from 'node:perf_hooks';

/** The longest a slice runs before it lets the event loop go round. */
export const SLICE_MS = 10;

/** Counts a slice's time; `pause()` after each unit of work. */
export class Slicer {
  private started = performance.now();

  constructor(private readonly sliceMs = SLICE_MS) {}

  /** `undefined` while the slice has time left; else a promise that resolves after the event loop has gone round. */
  pause(): Promise<void> | undefined {
    if (performance.now() - this.started < this.sliceMs) return undefined;
    return new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.started = performance.now();
    });
  }
}

/** Runs a generator's steps to its end, pausing between them as `slicer` decides; resolves with its return value. */
export async function runInSlices<T>(steps: Generator<void, T, void>, slicer: Slicer): Promise<T> {
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done === true) return step.value;
    const pause = slicer.pause();
    if (pause !== undefined) await pause;
  }
}

/** Runs a generator's steps to its end at once. */
export function runAtOnce<T>(steps: Generator<void, T, void>): T {
  for (let step = steps.next(); ; step = steps.next()) if (step.done === true) return step.value;
}
