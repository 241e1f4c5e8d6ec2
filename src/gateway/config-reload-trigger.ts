import { watch as watchFile, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/** What asks a gateway started from a file to reload it: SIGHUP, and file changes when watching. */
export interface ReloadTrigger {
  close(): void;
}

/**
 * Calls `onReload` on SIGHUP and, with `watch`, when the config file changes. The directory is watched, not the
 * file: editors and `kubectl`-style updates replace the file (a new inode), which a watch on the file itself
 * would miss. Changes come in bursts, so they are debounced.
 */
export function watchForReload(path: string, watch: boolean, onReload: () => void): ReloadTrigger {
  process.on('SIGHUP', onReload);
  const watcher = watch ? watchConfig(path, onReload) : undefined;
  return {
    close() {
      process.off('SIGHUP', onReload);
      watcher?.close();
    },
  };
}

function watchConfig(path: string, onChange: () => void): FSWatcher {
  const name = basename(path);
  let timer: NodeJS.Timeout | undefined;
  const watcher = watchFile(dirname(path), (_event, filename) => {
    if (filename !== null && filename.toString() !== name) return;
    clearTimeout(timer);
    timer = setTimeout(onChange, 200);
    timer.unref();
  });
  watcher.on('error', () => undefined);
  watcher.unref();
  return watcher;
}
