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
 *
 * @param at the path of `props` within the construct's props (`endpoint`), when not the props themselves
 */
export function checkKnownProps<Props>(props: Props, known: PropKeys<Props>, report: PropsReport, at?: string): void {
  if (typeof props !== 'object' || props === null) return;
  const path = (key: string) => (at === undefined ? key : `${at}.${key}`);
  const names = () => `the props${at === undefined ? '' : ` of ${at}`} are ${Object.keys(known).join(', ')}`;
  for (const [key, value] of Object.entries(props)) {
    if (Object.hasOwn(known, key) || value === undefined) continue;
    const near = closest(key, Object.keys(known));
    if (near !== undefined) report.fail(`unknown prop '${path(key)}' (did you mean '${path(near)}'?); ${names()}`);
    report.warn(`unknown prop '${path(key)}' is ignored; ${names()}`);
  }
}

/** The known name nearest `key` (case ignored) within a third of its length in edits, if any. */
function closest(key: string, names: readonly string[]): string | undefined {
  const wanted = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(key.length / 3)) + 1;
  for (const name of names) {
    const distance = editDistance(wanted, name.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [name, distance];
  }
  return best;
}

/** Levenshtein distance: insertions, deletions and substitutions of one character each. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length];
}
