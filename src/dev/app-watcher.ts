import { readdirSync, watch, type FSWatcher } from 'node:fs';
import * as path from 'node:path';

/** Folders of an app whose changes are not edits of the stack: outputs, dependencies, dev's own state. */
const IGNORED = new Set(['.dev', '.gen', '.git', 'cdktf.out', 'node_modules']);

/** Quiet time after the last change before the app is synthesized again (an editor saves in bursts). */
const DEBOUNCE_MS = 400;

/**
 * Calls `onChange` once a burst of edits in the app folder `dir` has settled, one call at a time: edits made while
 * a call runs lead to one more call after it. Returns what stops watching: no call starts after it.
 *
 * Each folder is watched by itself, not the tree at once: a recursive watch on Linux follows each file, and loses a
 * file that an editor or `git checkout` replaces (a new file renamed over it), so later saves went unseen. A folder's
 * own watch names every file changed, created or renamed in it, and a folder that appears is watched from then on.
 */
export function watchApp(dir: string, onChange: () => Promise<void>): () => void {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  // once stopped, no call starts: not even the one asked for by edits during a call still running
  let stopped = false;
  const run = (): void => {
    if (stopped) return;
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
  const changed = (): void => {
    clearTimeout(timer);
    timer = setTimeout(run, DEBOUNCE_MS);
  };

  const watchers = new Map<string, FSWatcher>();
  /** Watches `folder` and every folder below it (again, when one was replaced); a folder gone meanwhile is skipped. */
  const watchTree = (folder: string): void => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return; // not a folder, or gone
    }
    watchers.get(folder)?.close();
    try {
      const watcher = watch(folder, (event, file) => {
        const name = file === null ? '' : file.toString();
        if (IGNORED.has(name)) return;
        if (event === 'rename' && name !== '') watchTree(path.join(folder, name));
        changed();
      });
      watcher.on('error', () => {
        watcher.close();
        if (watchers.get(folder) === watcher) watchers.delete(folder);
      });
      watchers.set(folder, watcher);
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory() && !IGNORED.has(entry.name)) watchTree(path.join(folder, entry.name));
    }
  };
  watchTree(dir);
  return () => {
    stopped = true;
    clearTimeout(timer);
    for (const watcher of watchers.values()) watcher.close();
    watchers.clear();
  };
}
