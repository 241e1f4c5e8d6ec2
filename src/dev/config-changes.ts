/**
 * What changed between two configs of one gateway, in words a `dev` user reads after an edit: settings by their
 * config key, tools by their name. Never prints a string or object value: those may hold URLs or token hashes.
 *
 * @example
 * describeConfigChanges(before, after); // ['validate_input true → false', 'tools added: create_task']
 */
import { isDeepStrictEqual } from 'node:util';
import type { GatewayConfig } from '../config';

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
  const changes = [...settingChanges(before.gateway, after.gateway), ...toolChanges(before.tools, after.tools)];
  // a difference outside `gateway` and `tools` (the config version) still has to be told
  if (changes.length === 0 && !isDeepStrictEqual(before, after)) changes.push('config changed');
  return changes;
}

function settingChanges(before: object, after: object): string[] {
  const was = before as Readonly<Record<string, unknown>>;
  const now = after as Readonly<Record<string, unknown>>;
  const keys = [...new Set([...Object.keys(was), ...Object.keys(now)])];
  return keys
    .filter((key) => !isDeepStrictEqual(was[key], now[key]))
    .map((key) =>
      isShown(was[key]) && isShown(now[key]) ? `${key} ${show(was[key])} → ${show(now[key])}` : `${key} changed`,
    );
}

/** Only booleans and numbers are printed: they cannot carry a URL or a secret's hash. */
function isShown(value: unknown): value is boolean | number | undefined {
  return value === undefined || typeof value === 'boolean' || typeof value === 'number';
}

function show(value: boolean | number | undefined): string {
  return value === undefined ? DEFAULT_VALUE : String(value);
}

function toolChanges(before: GatewayConfig['tools'], after: GatewayConfig['tools']): string[] {
  const was = new Map(before.map((t) => [t.name, t]));
  const now = new Map(after.map((t) => [t.name, t]));
  const added = after.filter((t) => !was.has(t.name)).map((t) => t.name);
  const removed = before.filter((t) => !now.has(t.name)).map((t) => t.name);
  const changed = after.filter((t) => was.has(t.name) && !isDeepStrictEqual(was.get(t.name), t)).map((t) => t.name);
  const keptBefore = before.filter((t) => now.has(t.name)).map((t) => t.name);
  const keptAfter = after.filter((t) => was.has(t.name)).map((t) => t.name);
  return [
    ...(added.length > 0 ? [`tools added: ${added.join(', ')}`] : []),
    ...(removed.length > 0 ? [`tools removed: ${removed.join(', ')}`] : []),
    ...(changed.length > 0 ? [`tools changed: ${changed.join(', ')}`] : []),
    ...(!isDeepStrictEqual(keptBefore, keptAfter) ? ['tools reordered'] : []),
  ];
}
