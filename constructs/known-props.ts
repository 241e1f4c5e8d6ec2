import { Annotations } from 'cdktf';
import type { Construct } from 'constructs';

/**
 * Every key of a props interface, each `true`: written as `Record<keyof FooProps, true>`, the compiler refuses a
 * key the interface lacks and a key of it left out, so the list cannot drift from the interface.
 */
export type PropKeys<Props> = Readonly<Record<keyof Props, true>>;

/** Where {@link checkKnownProps} reports: `fail` throws, `warn` adds a synthesis warning. */
export interface PropsReport {
  fail(message: string): never;
  warn(message: string): void;
}

/** A construct's report: its errors and its warnings, each prefixed with `label` (`Gateway 'agents'`). */
export function propsReport(scope: Construct, label: string): PropsReport {
  return {
    fail: (message) => {
      throw new Error(`${label}: ${message}`);
    },
    warn: (message) => Annotations.of(scope).addWarning(`${label}: ${message}`),
  };
}

/**
 * Refuses a prop the construct does not read when it is a known one misspelt (`validateInputs`), which would
 * otherwise be dropped without a word in a JavaScript app, or a TypeScript one run without type checks
 * (`ts-node --transpile-only`), and the construct built with the default instead. A prop near no known name (a
 * wrapper construct's own, passed on with the rest) is a warning: nothing it meant is lost. One left `undefined` is
 * neither.
 */
export function checkKnownProps<Props>(props: Props, known: PropKeys<Props>, report: PropsReport): void {
  for (const [key, near] of unknownKeys(props, known)) {
    const names = `the props are ${Object.keys(known).join(', ')}`;
    if (near !== undefined) report.fail(`unknown prop '${key}' (did you mean '${near}'?); ${names}`);
    report.warn(`unknown prop '${key}' is ignored; ${names}`);
  }
}

/**
 * Refuses any key of an object inside the props (`endpoint`, `auth.tokens[0]`) that its interface lacks, naming the
 * nearest known one. No wrapper passes its own keys down there, so a key near no known name is a mistake too (a
 * token's `permissions` meant as its `scopes` would leave the token unrestricted). One left `undefined` is taken.
 *
 * @param at the object's path within the construct's props, as errors name it
 */
export function checkNestedProps<T>(value: T, known: PropKeys<T>, at: string, fail: (message: string) => never): void {
  for (const [key, near] of unknownKeys(value, known)) {
    const hint = near === undefined ? '' : ` (did you mean '${at}.${near}'?)`;
    fail(`unknown prop '${at}.${key}'${hint}; the props of ${at} are ${Object.keys(known).join(', ')}`);
  }
}

/** The keys of `value` that `known` lacks (those left `undefined` aside), each with the known name nearest it. */
function unknownKeys<T>(value: T, known: PropKeys<T>): [string, string | undefined][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value)
    .filter(([key, v]) => v !== undefined && !Object.hasOwn(known, key))
    .map(([key]) => [key, closest(key, Object.keys(known))]);
}

/** The known name nearest `key` (case ignored) within a third of its length in edits, if any. */
export function closest(key: string, names: readonly string[]): string | undefined {
  const wanted = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(key.length / 3)) + 1;
  for (const name of names) {
    // the lengths' difference is a least distance: past it, a long key (a hostile 1 MB one) costs no alignment
    if (Math.abs(wanted.length - name.length) >= bestDistance) continue;
    const distance = editDistance(wanted, name.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [name, distance];
  }
  return best;
}

/**
 * Optimal string alignment distance: insertions, deletions, substitutions and swaps of two adjacent characters, one
 * edit each (a swap is the commonest typing slip: `auht` is one edit from `auth`).
 */
function editDistance(a: string, b: string): number {
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j], beforePrevious[j - 2] + 1);
    }
    [beforePrevious, previous] = [previous, row];
  }
  return previous[b.length];
}
