import type { ToolConfig } from '../../contract/gateway-config';
import { compileToolSchema, type ToolValidator } from '../../validation';
import { requiredScopes } from '../auth/oauth-scopes';
import { planServiceCall, type ServicePlan } from '../upstream/request-plan';
import type { SecretValues } from '../upstream/secrets';
import type { Logger } from '../logger';
import { ScopedLists } from './scoped-lists';

/** One tool, ready to call: its validator, alias map and service plan are prepared once per config. */
export interface Tool {
  readonly name: string;
  /** The validator, or `undefined` when the schema does not compile (the tool is then unavailable). */
  readonly validator: ToolValidator | undefined;
  /** Alias → parameter; `undefined` when the tool has none (the common case skips normalization). */
  readonly aliases: Readonly<Record<string, string>> | undefined;
  readonly plan: ServicePlan;
  /** The scopes a caller with restricted scopes needs: `auth.oauth.scopes`, then the tool's `required_scopes`. */
  readonly requiredScopes: readonly string[];
}

/**
 * The immutable set of tools of one config. A reload builds a new one completely (every schema compiled) and
 * swaps it in one assignment; a call captures the set once at its start, so it never sees half of each.
 */
export interface ToolSet {
  readonly tools: ReadonlyMap<string, Tool>;
  /** The `tools/list` result (every tool) as JSON text, serialized once. */
  readonly listResultJson: string;
  /** The `tools/list` result for a caller with these scopes (`undefined`: unrestricted). */
  listResultJsonFor(scopes: ReadonlySet<string> | undefined): string;
  /** The advertised entries of the tools (`name`, `description`, `inputSchema`), in config order. */
  readonly listing: readonly ToolListing[];
}

/** A tool as `tools/list` shows it. */
export interface ToolListing {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
}

/**
 * Compiles every tool of a config. A schema that does not compile makes its tool unavailable and is logged.
 * @param secrets the values of the secrets the tools' backends refer to
 * @param gatewayScopes `auth.oauth.scopes`: needed for every tool by callers whose scopes are restricted
 * @throws ConfigError for a backend header or CA bundle that cannot be used (one line naming the field)
 */
export function buildToolSet(
  tools: readonly ToolConfig[],
  log: Logger,
  secrets?: SecretValues,
  gatewayScopes: readonly string[] = [],
): ToolSet {
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
      requiredScopes: requiredScopes(gatewayScopes, config.required_scopes),
    });
  }
  const listing = tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.input_schema }));
  const lists = scopedLists(map, (visible) => JSON.stringify({ tools: listing.filter((t) => visible(t.name)) }));
  return {
    tools: map,
    listResultJson: lists.for(undefined),
    listResultJsonFor: (scopes) => lists.for(scopes),
    listing,
  };
}

/** A {@link ScopedLists} over the tools' required scopes. */
export function scopedLists(
  tools: ReadonlyMap<string, Tool>,
  build: (visible: (name: string) => boolean) => string,
): ScopedLists {
  return new ScopedLists(new Map([...tools].map(([name, tool]) => [name, tool.requiredScopes])), build);
}
