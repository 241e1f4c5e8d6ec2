import { DEFAULT_TOOLS_LIST_PAGE_SIZE } from '../../config/defaults';
import type { ToolConfig } from '../../config/gateway-config';
import { compileToolSchema, type ToolValidator } from '../../validation';
import { requiredScopes } from '../auth/oauth-scopes';
import { planServiceCall, type ServicePlan } from '../upstream/request-plan';
import type { SecretValues } from '../upstream/secrets';
import type { Logger } from '../log/logger';
import { compileResponseControls, type ResponseShaper } from '../../response';
import { ScopedLists } from './scoped-lists';
import { ToolPages } from './tool-pages';
import { runAtOnce, runInSlices, type Slicer } from '../reload/event-loop-slices';

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
  /** The response controls (output validation and shaping); `undefined` when the tool has none. */
  readonly shaper: ResponseShaper | undefined;
  /** Whether `tools/list` advertises an `outputSchema` (to 2025-06-18 and later clients). */
  readonly advertisesOutput: boolean;
}

/**
 * The immutable set of tools of one config. A reload builds a new one completely (every schema compiled) and
 * swaps it in one assignment; a call captures the set once at its start, so it never sees half of each.
 */
export interface ToolSet {
  readonly tools: ReadonlyMap<string, Tool>;
  /**
   * The `tools/list` page a cursor names (`undefined`: the first) for a 2025 caller with these scopes
   * (`undefined`: unrestricted), speaking this protocol version (2025-03-26 has no `outputSchema`), or
   * `undefined` when the cursor is not one this tool set issued for that caller's list.
   */
  listPageJsonFor(
    scopes: ReadonlySet<string> | undefined,
    protocolVersion: string,
    cursor: string | undefined,
  ): string | undefined;
  /** The advertised entries of the tools (`name`, `description`, `inputSchema`), in config order. */
  readonly listing: readonly ToolListing[];
}

/** A tool as `tools/list` shows it. */
export interface ToolListing {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  /** Advertised while `validate_output` is on, to 2025-06-18 and later clients. */
  readonly outputSchema?: Record<string, unknown>;
}

/** The log record of a tool whose input schema does not compile (`serve --check` warns of it). */
export const TOOL_SCHEMA_UNCOMPILED = 'tool schema does not compile; its calls are refused';

/** The log record of a tool whose output schema or response controls do not compile. */
export const TOOL_OUTPUT_SCHEMA_UNCOMPILED = 'tool output schema does not compile; its calls are refused';

/** The first protocol version whose tools carry `outputSchema`. */
export const OUTPUT_SCHEMA_SINCE = '2025-06-18';

/**
 * Compiles every tool of a config. A schema that does not compile makes its tool unavailable and is logged.
 * @param secrets the values of the secrets the tools' backends refer to
 * @param gatewayScopes `auth.oauth.scopes`: needed for every tool by callers whose scopes are restricted
 * @param validateOutput `validate_output`: check responses against `output_schema` and advertise it
 * @param paging `tools_list_page_size` and the gateway's name (what cursors are bound to)
 * @throws ConfigError for a backend header or CA bundle that cannot be used (one line naming the field)
 */
export function buildToolSet(...inputs: ToolSetInputs): ToolSet {
  return runAtOnce(toolSetSteps(...inputs));
}

/** {@link buildToolSet}, letting the event loop go round between tools as `slicer` decides (a reload). */
export function buildToolSetInSlices(slicer: Slicer, ...inputs: ToolSetInputs): Promise<ToolSet> {
  return runInSlices(toolSetSteps(...inputs), slicer);
}

/** What a tool set is built from (see {@link buildToolSet}). */
export type ToolSetInputs = Parameters<typeof toolSetSteps>;

/** Builds a tool set one tool per step. */
function* toolSetSteps(
  tools: readonly ToolConfig[],
  log: Logger,
  secrets?: SecretValues,
  gatewayScopes: readonly string[] = [],
  validateOutput = true,
  paging: ListPaging = { pageSize: DEFAULT_TOOLS_LIST_PAGE_SIZE, gateway: '' },
): Generator<void, ToolSet, void> {
  const map = new Map<string, Tool>();
  const listing: ToolListing[] = [];
  for (const [i, config] of tools.entries()) {
    const compiled = compileToolSchema(config.input_schema);
    if (!compiled.ok) {
      log('error', TOOL_SCHEMA_UNCOMPILED, { tool: config.name, error: compiled.error });
    }
    const controls = compileResponseControls(config, validateOutput);
    if ('error' in controls) {
      log('error', TOOL_OUTPUT_SCHEMA_UNCOMPILED, {
        tool: config.name,
        error: controls.error,
      });
    }
    const shaper = 'shaper' in controls ? controls.shaper : undefined;
    const outputSchema = validateOutput ? shaper?.advertisedSchema : undefined;
    listing.push({
      name: config.name,
      description: config.description,
      inputSchema: config.input_schema,
      ...(outputSchema !== undefined ? { outputSchema } : {}),
    });
    const aliases = config.aliases !== undefined && Object.keys(config.aliases).length > 0 ? config.aliases : undefined;
    map.set(config.name, {
      name: config.name,
      validator: compiled.ok && !('error' in controls) ? compiled.validator : undefined,
      aliases,
      plan: planServiceCall(config, secrets, `tools[${i}]`),
      requiredScopes: requiredScopes(gatewayScopes, config.required_scopes),
      shaper,
      advertisesOutput: outputSchema !== undefined,
    });
    yield;
  }
  // 2025-03-26 predates outputSchema: its clients get the entries without it.
  const strip = listing.some((t) => t.outputSchema !== undefined);
  let paged: ScopedLists<ToolPages<ToolListing>> | undefined;
  let pagedWithoutOutput: ScopedLists<ToolPages<ToolListing>> | undefined;
  return {
    tools: map,
    listPageJsonFor: (scopes, version, cursor) =>
      (strip && version < OUTPUT_SCHEMA_SINCE
        ? (pagedWithoutOutput ??= pagedLists(map, listing, paging, true))
        : (paged ??= pagedLists(map, listing, paging, false))
      )
        .for(scopes)
        .page(cursor),
    listing,
  };
}

/**
 * The pages of each scope set's list for 2025 clients (built on the first request); `strip` leaves
 * `outputSchema` out (2025-03-26).
 */
function pagedLists(
  map: ReadonlyMap<string, Tool>,
  listing: readonly ToolListing[],
  paging: ListPaging,
  strip: boolean,
): ScopedLists<ToolPages<ToolListing>> {
  return scopedLists(
    map,
    (visible) =>
      new ToolPages(
        listing.filter((t) => visible(t.name)),
        paging.pageSize,
        paging.gateway,
        (tools, nextCursor) =>
          JSON.stringify({
            tools: strip
              ? tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))
              : tools,
            ...(nextCursor !== undefined ? { nextCursor } : {}),
          }),
      ),
  );
}

/** How `tools/list` pages: tools per page and the gateway's name, which cursors are bound to. */
export interface ListPaging {
  readonly pageSize: number;
  readonly gateway: string;
}

/** A {@link ScopedLists} over the tools' required scopes. */
export function scopedLists<T = string>(
  tools: ReadonlyMap<string, Tool>,
  build: (visible: (name: string) => boolean) => T,
): ScopedLists<T> {
  return new ScopedLists(new Map([...tools].map(([name, tool]) => [name, tool.requiredScopes])), build);
}
