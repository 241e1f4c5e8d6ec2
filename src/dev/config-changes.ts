/**
 * What changed between two configs of one gateway, in words a `dev` user reads after an edit: settings by their
 * config key, tools by their name. Never prints a free string or an object: those may hold URLs or token hashes.
 *
 * @example
 * describeConfigChanges(before, after); // ['validate_input true → false', 'tools added: create_task']
 */
import { GATEWAY_CONFIG_SCHEMA, type GatewayConfig } from '../config';
import { configChangeSteps } from '../gateway/reload/config-changes';
import { runAtOnce } from '../gateway/reload/event-loop-slices';

/** How an absent setting is shown: the runtime applies its default. */
const DEFAULT_VALUE = '(default)';

/**
 * The changes from `before` to `after`: each changed `gateway.*` setting (with both values when each is a boolean, a
 * number, one of the setting's fixed values or absent, else `KEY changed`), then `tools added: …`,
 * `tools removed: …`, `tools changed: …` and `tools reordered` (the tools both configs hold are in another order).
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
      isShown(key, was[key]) && isShown(key, now[key])
        ? `${key} ${show(was[key])} → ${show(now[key])}`
        : `${key} changed`,
    ),
    ...listed('tools added', changes.toolsAdded),
    ...listed('tools removed', changes.toolsRemoved),
    ...listed('tools changed', changes.toolsChanged),
    ...(changes.toolsReordered ? ['tools reordered'] : []),
  ];
}

/** The settings' schemas, for the fixed values (`enum`) a setting may take. */
const SETTINGS: Readonly<Record<string, object>> = GATEWAY_CONFIG_SCHEMA.properties.gateway.properties;

/**
 * Only booleans, numbers and a setting's fixed values (`validation_errors: protocol`) are printed: none can carry a
 * URL or a secret's hash.
 */
function isShown(key: string, value: unknown): value is boolean | number | string | undefined {
  return (
    value === undefined ||
    typeof value === 'boolean' ||
    typeof value === 'number' ||
    (typeof value === 'string' && fixedValues(key).includes(value))
  );
}

function fixedValues(key: string): readonly unknown[] {
  const schema = SETTINGS[key];
  return schema !== undefined && 'enum' in schema && Array.isArray(schema.enum) ? schema.enum : [];
}

function show(value: boolean | number | string | undefined): string {
  return value === undefined ? DEFAULT_VALUE : String(value);
}
