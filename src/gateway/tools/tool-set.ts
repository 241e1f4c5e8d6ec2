import type { ToolConfig } from '../../contract/gateway-config';
import { compileToolSchema, type ToolValidator } from '../../validation';
import { planServiceCall, type ServicePlan } from '../upstream/request-plan';
import type { SecretValues } from '../upstream/secrets';
import type { Logger } from '../logger';

/** One tool, ready to call: its validator, alias map and service plan are prepared once per config. */
export interface Tool {
  readonly name: string;
  /** The validator, or `undefined` when the schema does not compile (the tool is then unavailable). */
  readonly validator: ToolValidator | undefined;
  /** Alias → parameter; `undefined` when the tool has none (the common case skips normalization). */
  readonly aliases: Readonly<Record<string, string>> | undefined;
  readonly plan: ServicePlan;
}

/**
 * The immutable set of tools of one config. A reload builds a new one completely (every schema compiled) and
 * swaps it in one assignment; a call captures the set once at its start, so it never sees half of each.
 */
export interface ToolSet {
  readonly tools: ReadonlyMap<string, Tool>;
  /** The `tools/list` result as JSON text, serialized once. */
  readonly listResultJson: string;
}

/**
 * Compiles every tool of a config. A schema that does not compile makes its tool unavailable and is logged.
 * @param secrets the values of the secrets the tools' backends refer to
 * @throws ConfigError for a backend header or CA bundle that cannot be used (one line naming the field)
 */
export function buildToolSet(tools: readonly ToolConfig[], log: Logger, secrets?: SecretValues): ToolSet {
  const map = new Map<string, Tool>();
  for (const [i, config] of tools.entries()) {
    const compiled = compileToolSchema(config.input_schema);
    if (!compiled.ok) {
      log('error', 'tool schema does not compile; its calls are refused', { tool: config.name, error: compiled.error });
    }
    const aliases = config.aliases !== undefined && Object.keys(config.aliases).length > 0 ? config.aliases : undefined;
    map.set(config.name, {
      name: config.name,
      validator: compiled.ok ? compiled.validator : undefined,
      aliases,
      plan: planServiceCall(config, secrets, `tools[${i}]`),
    });
  }
  const list = tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.input_schema }));
  return { tools: map, listResultJson: JSON.stringify({ tools: list }) };
}
