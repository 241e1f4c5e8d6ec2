import { statSync, watch as watchDirectory } from 'node:fs';
import { basename, dirname } from 'node:path';

/** What asks a gateway started from a file to reload it: SIGHUP, and file changes when watching. */
export interface ReloadTrigger {
  close(): void;
}

/** The link a Kubernetes ConfigMap or Secret volume replaces to update all its files at once. */
const KUBELET_DATA_LINK = '..data';

/** Quiet time after the last change event before the file is looked at. */
const DEBOUNCE_MS = 200;
/** The pause between two looks at the file; it reloads once two looks in a row see the same file. */
const STABLE_CHECK_MS = 100;
/** How often the file (through any link) is looked at for a change its directory does not report. */
const POLL_MS = 1_000;

/**
 * Calls `onReload` on SIGHUP and, with `watch`, when the config file changes. The directory is watched, not the
 * file: editors and `kubectl`-style updates replace the file (a new inode), which a watch on the file itself
 * would miss. Changes come in bursts, and a file written in place (not replaced atomically) is valid YAML at
 * every line boundary, so a reload waits until no event came for {@link DEBOUNCE_MS} and then until the file
 * (inode, size, mtime) looks the same on two checks {@link STABLE_CHECK_MS} apart. The file is also looked at
 * every {@link POLL_MS} through any link, for the changes its directory does not report. Docs tell operators to
 * replace the file atomically (write a temp file, rename it) all the same: a writer may pause longer.
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

/** Watches the config's directory; `close()` also drops a reload still waiting for the file to settle. */
function watchConfig(path: string, onChange: () => void): { close(): void } {
  const name = basename(path);
  let timer: NodeJS.Timeout | undefined;
  let seen: string | undefined;
  // the file last reloaded for (or started with): the directory's events and the poll both see each change, and a
  // file that has not changed since is not reloaded again
  let applied = signature(path);
  const schedule = (ms: number, then: () => void): void => {
    clearTimeout(timer);
    timer = setTimeout(then, ms);
    timer.unref();
  };
  const check = (): void => {
    const now = signature(path);
    if (now !== undefined && now === seen) {
      seen = undefined;
      if (now === applied) return;
      applied = now;
      onChange();
      return;
    }
    seen = now;
    // A missing file (mid-replacement) waits for the event of its return; a changing one is looked at again.
    if (now !== undefined) schedule(STABLE_CHECK_MS, check);
  };
  const changed = (): void => {
    seen = undefined;
    schedule(DEBOUNCE_MS, check);
  };
  const watcher = watchDirectory(dirname(path), (_event, filename) => {
    // a Kubernetes volume swaps its `..data` link: every file in it changes at once
    if (filename !== null && filename.toString() !== name && filename.toString() !== KUBELET_DATA_LINK) return;
    changed();
  });
  watcher.on('error', () => undefined);
  watcher.unref();
  // What the directory never reports: a change to the target of a link into another directory, to a file
  // bind-mounted into a container from outside it, or anything after the directory itself was replaced. Compared
  // with the file last reloaded for, not with the previous look: a change made before the first look still counts.
  const poll = setInterval(() => {
    if (signature(path) !== applied) changed();
  }, POLL_MS);
  poll.unref();
  return {
    close: () => {
      clearTimeout(timer);
      clearInterval(poll);
      watcher.close();
    },
  };
}

/** What tells two versions of the file apart without reading it, or `undefined` when it is not there. */
function signature(path: string): string | undefined {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.ino}:${s.size}:${s.mtimeNs}`;
  } catch {
    return undefined;
  }
}
