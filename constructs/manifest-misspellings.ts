import { isJsonObject } from '../src/validation';
import type { ManifestProblem } from './manifest-yaml';

/**
 * The misspelt keys read so far: by the path of their map as written (`JSON.stringify`), each key as written and the
 * known key it is read as.
 */
type Misspellings = Map<string, Map<string, string>>;

/** How many levels of misspelt keys, one under another, are read as the keys they are near. */
const LEVELS = 4;

/**
 * The problems `check` finds in `value`, with each unknown key that is near a known one its map lacks read as that
 * key (`servcies` as `services`): the misspelling is said once, as an unknown key, and not what follows from it (no
 * services, every gateway's service unknown), while what is written under it is checked as what it stands for. So
 * the mistakes said are the misspelling and those that remain once it is fixed. What is under an unknown key is only
 * checked once it is read, so `check` runs again while it finds new misspellings under those read, up to
 * {@link LEVELS} levels of them (a bound on the runs, whatever the manifest); deeper ones are only unknown.
 */
export function withMisspellingsRead(value: unknown, check: (value: unknown) => ManifestProblem[]): ManifestProblem[] {
  const read: Misspellings = new Map();
  const misspelt: ManifestProblem[] = [];
  for (let level = 1; ; level++) {
    const found = check(read.size === 0 ? value : renamed(value, read, [])).map((p) => ({
      ...p,
      at: asWritten(p.at, read),
      ...(p.named === undefined ? {} : { named: asWritten(p.named, read) }),
    }));
    const fresh = found.filter((p) => {
      if (p.near === undefined || level > LEVELS) return false;
      const parent = p.at.slice(0, -1);
      const map = valueAt(value, parent);
      const id = JSON.stringify(parent);
      const here = read.get(id) ?? new Map<string, string>();
      // a key the map already has, or one another misspelling stands for, is only unknown
      if (!isJsonObject(map) || Object.hasOwn(map, p.near) || [...here.values()].includes(p.near)) return false;
      read.set(id, here.set(p.at[p.at.length - 1], p.near));
      return true;
    });
    if (fresh.length === 0) return [...misspelt, ...found];
    misspelt.push(...fresh);
  }
}

/** `value` with each misspelt key renamed to the key it stands for, in place in its map (`at`: its path as written). */
function renamed(value: unknown, read: Misspellings, at: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((item, i) => renamed(item, read, [...at, String(i)]));
  if (!isJsonObject(value)) return value;
  const here = read.get(JSON.stringify(at));
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [here?.get(key) ?? key, renamed(v, read, [...at, key])]),
  );
}

/** A path of the renamed value as written: each key, in the map its written prefix names, back to its spelling. */
function asWritten(path: readonly string[], read: Misspellings): string[] {
  const written: string[] = [];
  for (const key of path) {
    const here = read.size === 0 ? undefined : read.get(JSON.stringify(written));
    written.push([...(here ?? [])].find(([, near]) => near === key)?.[0] ?? key);
  }
  return written;
}

function valueAt(data: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>(
    (node, key) => (Array.isArray(node) ? node[Number(key)] : isJsonObject(node) ? node[key] : undefined),
    data,
  );
}
