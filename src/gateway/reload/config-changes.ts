import type { GatewayConfig } from '../../config';
import { jsonEqual } from '../../validation/json-equal';

/** The most tool names a list of {@link ConfigChanges} names in the log; the rest are counted. */
export const MAX_NAMED_TOOLS = 20;

/** What a reload changes, by name only (never a value: a setting may be a secret's reference). */
export interface ConfigChanges {
  /** The `gateway` settings (their keys) whose value differs, in the order of the current config, then the next. */
  readonly settings: readonly string[];
  readonly toolsAdded: readonly string[];
  readonly toolsRemoved: readonly string[];
  /** Tools in both configs whose entry differs (description, schema, backend, anything). */
  readonly toolsChanged: readonly string[];
  /** The tools both configs hold are in another order (what `tools/list` pages through). */
  readonly toolsReordered: boolean;
}

/**
 * Compares two configs of one gateway, one tool per step (run in slices on a reload: a config of thousands of tools
 * takes longer than a call may wait). `dev` words the same changes for its user.
 */
export function* configChangeSteps(current: GatewayConfig, next: GatewayConfig): Generator<void, ConfigChanges, void> {
  const settingKeys = new Set([...Object.keys(current.gateway), ...Object.keys(next.gateway)]);
  const settings = [...settingKeys].filter((key) => !jsonEqual(settingOf(current, key), settingOf(next, key)));
  const before = new Map(current.tools.map((tool) => [tool.name, tool]));
  const toolsAdded: string[] = [];
  const toolsChanged: string[] = [];
  const keptAfter: string[] = [];
  for (const tool of next.tools) {
    const old = before.get(tool.name);
    if (old === undefined) toolsAdded.push(tool.name);
    else {
      keptAfter.push(tool.name);
      if (!jsonEqual(old, tool)) toolsChanged.push(tool.name);
    }
    yield;
  }
  const after = new Set(next.tools.map((tool) => tool.name));
  const toolsRemoved = current.tools.filter((tool) => !after.has(tool.name)).map((tool) => tool.name);
  const keptBefore = current.tools.filter((tool) => after.has(tool.name));
  const toolsReordered = keptBefore.some((tool, i) => tool.name !== keptAfter[i]);
  return { settings, toolsAdded, toolsRemoved, toolsChanged, toolsReordered };
}

/** Whether a reload changed nothing: no setting and no tool (its clients have nothing to list again). */
export function isUnchanged(changes: ConfigChanges): boolean {
  const { settings, toolsAdded, toolsRemoved, toolsChanged, toolsReordered } = changes;
  return settings.length + toolsAdded.length + toolsRemoved.length + toolsChanged.length === 0 && !toolsReordered;
}

const settingOf = (config: GatewayConfig, key: string): unknown =>
  (config.gateway as unknown as Record<string, unknown>)[key];

/**
 * The log fields of `changes`: every changed setting, and up to {@link MAX_NAMED_TOOLS} names per list of tools
 * with the count of the rest (`tools_added_more`). Lists that are empty are left out; a reload that changed nothing
 * says `unchanged: true`.
 */
export function changeLogFields(changes: ConfigChanges): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (changes.settings.length > 0) fields.settings_changed = changes.settings.map((key) => `gateway.${key}`);
  const named = (field: string, names: readonly string[]): void => {
    if (names.length === 0) return;
    fields[field] = names.slice(0, MAX_NAMED_TOOLS);
    if (names.length > MAX_NAMED_TOOLS) fields[`${field}_more`] = names.length - MAX_NAMED_TOOLS;
  };
  named('tools_added', changes.toolsAdded);
  named('tools_removed', changes.toolsRemoved);
  named('tools_changed', changes.toolsChanged);
  if (changes.toolsReordered) fields.tools_reordered = true;
  if (isUnchanged(changes)) fields.unchanged = true;
  return fields;
}
