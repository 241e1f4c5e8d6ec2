import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONCURRENT_CALLS,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_STREAMS_PER_PRINCIPAL,
  DEFAULT_SESSION_TTL_MS,
  DEFAULT_TOOLS_LIST_TTL_MS,
  DEFAULT_VALIDATE_INPUT,
  DEFAULT_VALIDATION_ERRORS,
  type GatewayConfig,
  type ValidationErrorsChannel,
} from '../contract';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../package-info';
import { createAuthenticator, type Authenticator, type Principal } from './auth/bearer-tokens';
import { MetaKey } from './mcp/modern-protocol';
import { discoverResult, toolsListResult, type ServerInfo } from './mcp/modern-results';
import type { Logger } from './logger';
import { createOriginGuard, type OriginGuard } from './http/origin-guard';
import { buildToolSet, type ToolSet } from './tools/tool-set';

/**
 * Everything a request needs from the config, derived once. A reload builds a new state (compiling every schema)
 * before swapping it in with one assignment; a request reads the state once at its start.
 */
export interface GatewayState {
  readonly config: GatewayConfig;
  readonly name: string;
  readonly toolSet: ToolSet;
  readonly auth: Authenticator;
  readonly guard: OriginGuard;
  readonly validateInput: boolean;
  readonly channel: ValidationErrorsChannel;
  readonly maxBodyBytes: number;
  readonly maxResponseBytes: number;
  readonly maxConcurrentCalls: number;
  readonly sessionTtlMs: number;
  readonly maxStreamsPerPrincipal: number;
  /**
   * Each principal the config admits, with what identifies its credential (the token hashes): a reload closes the
   * streams of a principal that is gone or whose token changed.
   */
  readonly principals: ReadonlyMap<Principal, string>;
  /** The answers of the 2026-07-28 era that depend only on the config, serialized once. */
  readonly modern: ModernAnswers;
}

/** `server/discover` and `tools/list` results (JSON text) and the server info every modern result carries. */
export interface ModernAnswers {
  readonly serverInfo: ServerInfo;
  /** `{"io.modelcontextprotocol/serverInfo":…}`: the `_meta` of a `tools/call` result. */
  readonly serverInfoMetaJson: string;
  readonly discoverJson: string;
  readonly toolsListJson: string;
}

/** Derives the state of a (parsed, valid) config for a server listening on `listenHost`. */
export function buildGatewayState(config: GatewayConfig, listenHost: string, log: Logger): GatewayState {
  const g = config.gateway;
  const toolSet = buildToolSet(config.tools, log);
  return {
    config,
    name: g.name,
    toolSet,
    auth: createAuthenticator(g.auth),
    guard: createOriginGuard({ listenHost, allowedHosts: g.allowed_hosts, allowedOrigins: g.allowed_origins }),
    validateInput: g.validate_input ?? DEFAULT_VALIDATE_INPUT,
    channel: g.validation_errors ?? DEFAULT_VALIDATION_ERRORS,
    maxBodyBytes: g.max_body_bytes ?? DEFAULT_MAX_BODY_BYTES,
    maxResponseBytes: g.max_response_bytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    maxConcurrentCalls: g.max_concurrent_calls ?? DEFAULT_MAX_CONCURRENT_CALLS,
    sessionTtlMs: g.session_ttl_ms ?? DEFAULT_SESSION_TTL_MS,
    maxStreamsPerPrincipal: g.max_streams_per_principal ?? DEFAULT_MAX_STREAMS_PER_PRINCIPAL,
    principals: principalsOf(g.auth),
    modern: modernAnswers(config, toolSet),
  };
}

function principalsOf(auth: GatewayConfig['gateway']['auth']): ReadonlyMap<Principal, string> {
  if (auth === 'none') return new Map([[null, 'none']]);
  const principals = new Map<Principal, string>();
  for (const token of auth.tokens) principals.set(token.id, `${principals.get(token.id) ?? ''}${token.sha256};`);
  return principals;
}

/**
 * The modern era's config-only answers. `cacheScope` is `public` only without authentication: with tokens (or
 * scopes) the list may depend on who asks.
 */
function modernAnswers(config: GatewayConfig, toolSet: ToolSet): ModernAnswers {
  const g = config.gateway;
  const serverInfo: ServerInfo = { name: PACKAGE_NAME, title: g.name, version: PACKAGE_VERSION };
  const cache = { ttlMs: g.tools_list_ttl_ms ?? DEFAULT_TOOLS_LIST_TTL_MS, cacheScope: g.auth === 'none' ? 'public' : 'private' } as const;
  const { tools } = JSON.parse(toolSet.listResultJson) as { tools: unknown[] };
  return {
    serverInfo,
    serverInfoMetaJson: JSON.stringify({ [MetaKey.SERVER_INFO]: serverInfo }),
    discoverJson: JSON.stringify(discoverResult(serverInfo, cache)),
    toolsListJson: JSON.stringify(toolsListResult(tools, serverInfo, cache)),
  };
}
