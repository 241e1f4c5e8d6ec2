import { isJsonObject } from '../src/validation';
import type { ManifestProblem } from './manifest-yaml';

/** An unknown key read as the known key it is near: in the map at `parent`, `written` stands for `near`. */
interface Misspelling {
  readonly parent: readonly string[];
  readonly written: string;
  readonly near: string;
}

/**
 * The problems `check` finds in `value`, with each unknown key that is near a known one its map lacks read as that
 * key (`servcies` as `services`): the misspelling is said once, as an unknown key, and not what follows from it (no
 * services, every gateway's service unknown), while what is written under it is checked as what it stands for. So
 * the mistakes said are the misspelling and those that remain once it is fixed.
 */
export function withMisspellingsRead(value: unknown, check: (value: unknown) => ManifestProblem[]): ManifestProblem[] {
  const found = check(value);
  const read = new Set<string>();
  const misspelt = found.filter((p) => {
    if (p.near === undefined) return false;
    const parent = p.at.slice(0, -1);
    const map = valueAt(value, parent);
    // a key the map already has, or one another misspelling stands for, is only unknown
    const id = JSON.stringify([...parent, p.near]);
    if (!isJsonObject(map) || Object.hasOwn(map, p.near) || read.has(id)) return false;
    read.add(id);
    return true;
  });
  if (misspelt.length === 0) return found;
  const misspellings = misspelt.map((p) => ({
    parent: p.at.slice(0, -1),
    written: p.at[p.at.length - 1],
    near: p.near!,
  }));
  const rest = check(renamed(value, misspellings, [])).map((p) => ({
    ...p,
    at: asWritten(p.at, misspellings),
    ...(p.named === undefined ? {} : { named: asWritten(p.named, misspellings) }),
  }));
  return [...misspelt, ...rest];
}

/** `value` with each misspelt key renamed to the key it stands for, in place in its map. */
function renamed(value: unknown, misspellings: readonly Misspelling[], at: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((item, i) => renamed(item, misspellings, [...at, String(i)]));
  if (!isJsonObject(value)) return value;
  const here = misspellings.filter((m) => samePath(m.parent, at));
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      here.find((m) => m.written === key)?.near ?? key,
      renamed(v, misspellings, [...at, key]),
    ]),
  );
}

/**
 * A path of the renamed value as written. A misspelling's parent never runs through another misspelt key (what is
 * under an unknown key is not checked, so none is found there), so the renamed prefix matches it as written.
 */
function asWritten(path: readonly string[], misspellings: readonly Misspelling[]): string[] {
  return path.map(
    (key, i) => misspellings.find((m) => m.near === key && samePath(m.parent, path.slice(0, i)))?.written ?? key,
  );
}

function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((key, i) => key === b[i]);
}

function valueAt(data: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>(
    (node, key) => (Array.isArray(node) ? node[Number(key)] : isJsonObject(node) ? node[key] : undefined),
    data,
  );
}
