import { watch } from 'node:fs';

/** Folders of an app whose changes are not edits of the stack: outputs, dependencies, dev's own state. */
const IGNORED = new Set(['.dev', '.gen', '.git', 'cdktf.out', 'node_modules']);

/** Quiet time after the last change before the app is synthesized again (an editor saves in bursts). */
const DEBOUNCE_MS = 400;

/**
 * Calls `onChange` once a burst of edits in the app folder `dir` has settled, one call at a time: edits made while
 * a call runs lead to one more call after it. Returns what stops watching.
 */
export function watchApp(dir: string, onChange: () => Promise<void>): () => void {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  const run = (): void => {
    if (running !== undefined) {
      again = true;
      return;
    }
    running = onChange().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        run();
      }
    });
  };
  const watcher = watch(dir, { recursive: true }, (_event, file) => {
    const first = file === null ? '' : file.toString().split(/[\\/]/)[0];
    if (IGNORED.has(first)) return;
    clearTimeout(timer);
    timer = setTimeout(run, DEBOUNCE_MS);
  });
  watcher.on('error', () => undefined);
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
