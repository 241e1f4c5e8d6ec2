/**
 * What changed between two configs of one gateway, in words a `dev` user reads after an edit: settings by their
 * config key, tools by their name. Never prints a string or object value: those may hold URLs or token hashes.
 *
 * @example
 * describeConfigChanges(before, after); // ['validate_input true → false', 'tools added: create_task']
 */
import type { GatewayConfig } from '../config';
import { configChangeSteps } from '../gateway/reload/config-changes';
import { runAtOnce } from '../gateway/reload/event-loop-slices';

/** How an absent setting is shown: the runtime applies its default. */
const DEFAULT_VALUE = '(default)';

/**
 * The changes from `before` to `after`: each changed `gateway.*` setting (with both values when each is a boolean, a
 * number or absent, else `KEY changed`), then `tools added: …`, `tools removed: …`, `tools changed: …` and
 * `tools reordered` (the tools both configs hold are in another order).
 *
 * @returns an empty list when the configs are deep-equal
 */
export function describeConfigChanges(before: GatewayConfig, after: GatewayConfig): string[] {
  const changes = runAtOnce(configChangeSteps(before, after));
  const was = before.gateway as unknown as Readonly<Record<string, unknown>>;
  const now = after.gateway as unknown as Readonly<Record<string, unknown>>;
  const listed = (what: string, names: readonly string[]) => (names.length > 0 ? [`${what}: ${names.join(', ')}`] : []);
  return [
    ...changes.settings.map((key) =>
      isShown(was[key]) && isShown(now[key]) ? `${key} ${show(was[key])} → ${show(now[key])}` : `${key} changed`,
    ),
    ...listed('tools added', changes.toolsAdded),
    ...listed('tools removed', changes.toolsRemoved),
    ...listed('tools changed', changes.toolsChanged),
    ...(changes.toolsReordered ? ['tools reordered'] : []),
  ];
}

/** Only booleans and numbers are printed: they cannot carry a URL or a secret's hash. */
function isShown(value: unknown): value is boolean | number | undefined {
  return value === undefined || typeof value === 'boolean' || typeof value === 'number';
}

function show(value: boolean | number | undefined): string {
  return value === undefined ? DEFAULT_VALUE : String(value);
}
