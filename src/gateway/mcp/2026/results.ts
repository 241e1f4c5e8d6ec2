/**
 * Results and stream frames of the modern era (2026-07-28), as JSON-ready objects. Every result carries
 * `resultType: "complete"` and the server's identity in `_meta["io.modelcontextprotocol/serverInfo"]`; cacheable
 * results (`server/discover`, `tools/list`) carry `ttlMs` and `cacheScope`. Pure.
 */
import { ALL_PROTOCOL_VERSIONS, invalidParams, MetaKey, type ModernRefusal, own } from './protocol';
import type { AcknowledgedFilter } from '../shared/stream-specs';
import { isObject } from '../../../validation/json-object';

/** `name`/`version` (required by the schema) and an optional `title`, as in the 2025 `serverInfo`. */
export interface ServerInfo {
  readonly name: string;
  readonly version: string;
  readonly title?: string;
}

/** Cache hints of a cacheable result. */
export interface CacheHints {
  /** Freshness in milliseconds, a non-negative integer. */
  readonly ttlMs: number;
  /**
   * `public` when the result is the same for every caller (no authentication), `private` when it may depend on
   * the caller (tokens, OAuth scopes filter the tool list).
   */
  readonly cacheScope: 'public' | 'private';
}

/** The same result with `resultType: "complete"` and the server info added to its `_meta` (kept otherwise). */
export function completeResult<T extends Record<string, unknown>>(
  result: T,
  serverInfo: ServerInfo,
): T & { resultType: 'complete'; _meta: Record<string, unknown> } {
  const meta = isObject(own(result, '_meta')) ? (result._meta as Record<string, unknown>) : {};
  return { ...result, resultType: 'complete', _meta: { ...meta, [MetaKey.SERVER_INFO]: serverInfo } };
}

/**
 * The `server/discover` result: every version spoken (modern first), the capabilities (tools with
 * `listChanged`), and optional instructions.
 * @example
 * discoverResult({ name: 'cdktf-mcp-gateway', version: PACKAGE_VERSION, title: state.name }, { ttlMs: 60_000, cacheScope: 'private' });
 */
export function discoverResult(
  serverInfo: ServerInfo,
  cache: CacheHints,
  instructions?: string,
): Record<string, unknown> {
  checkHints(cache);
  return completeResult(
    {
      supportedVersions: [...ALL_PROTOCOL_VERSIONS],
      capabilities: { tools: { listChanged: true } },
      ...(instructions === undefined ? {} : { instructions }),
      ttlMs: cache.ttlMs,
      cacheScope: cache.cacheScope,
    },
    serverInfo,
  );
}

/**
 * A `tools/list` result: the tools as given (declaration order), the next page's cursor when more follow, with
 * cache hints.
 */
export function toolsListResult(
  tools: readonly unknown[],
  serverInfo: ServerInfo,
  cache: CacheHints,
  nextCursor?: string,
): Record<string, unknown> {
  checkHints(cache);
  return completeResult(
    {
      tools: [...tools],
      ...(nextCursor !== undefined ? { nextCursor } : {}),
      ttlMs: cache.ttlMs,
      cacheScope: cache.cacheScope,
    },
    serverInfo,
  );
}

/**
 * Reads `subscriptions/listen` params (`notifications` is required and must be an object; its known fields must
 * have their schema types) into the subset the gateway honours: only `toolsListChanged: true`. Prompts,
 * resources and resource subscriptions are omitted from the acknowledgement (the gateway has none).
 */
export function listenFilter(
  params: unknown,
): { ok: true; filter: AcknowledgedFilter } | { ok: false; refusal: ModernRefusal } {
  const requested = isObject(params) ? own(params, 'notifications') : undefined;
  if (!isObject(requested)) return { ok: false, refusal: invalidParams('notifications must be an object') };
  for (const flag of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged']) {
    const value = own(requested, flag);
    if (value !== undefined && typeof value !== 'boolean')
      return { ok: false, refusal: invalidParams(`notifications.${flag} must be a boolean`) };
  }
  const subs = own(requested, 'resourceSubscriptions');
  if (subs !== undefined && !(Array.isArray(subs) && subs.every((s) => typeof s === 'string'))) {
    return { ok: false, refusal: invalidParams('notifications.resourceSubscriptions must be an array of strings') };
  }
  return { ok: true, filter: own(requested, 'toolsListChanged') === true ? { toolsListChanged: true } : {} };
}

/** The first message of a listen stream: the acknowledged filter, tagged with the subscription id. */
export function acknowledgedNotification(
  subscriptionId: string | number,
  filter: AcknowledgedFilter,
): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { _meta: { [MetaKey.SUBSCRIPTION_ID]: subscriptionId }, notifications: { ...filter } },
  };
}

/** `notifications/tools/list_changed` on a listen stream (send only when the filter acknowledged it). */
export function toolsListChangedNotification(subscriptionId: string | number): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    method: 'notifications/tools/list_changed',
    params: { _meta: { [MetaKey.SUBSCRIPTION_ID]: subscriptionId } },
  };
}

/** The response that ends a listen stream gracefully (shutdown): an empty result tagged with the subscription id. */
export function listenClosedResponse(subscriptionId: string | number, serverInfo: ServerInfo): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id: subscriptionId,
    result: completeResult({ _meta: { [MetaKey.SUBSCRIPTION_ID]: subscriptionId } }, serverInfo),
  };
}

/** Response headers of a listen stream (`X-Accel-Buffering: no` as the transport asks). */
export const LISTEN_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/** One SSE event carrying a JSON-RPC message. */
export function sseFrame(message: unknown): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/** An SSE comment: a keep-alive for quiet listen streams (clients ignore it). */
export const SSE_KEEPALIVE = ':\n\n';

function checkHints(cache: CacheHints): void {
  if (!Number.isSafeInteger(cache.ttlMs) || cache.ttlMs < 0)
    throw new Error(`ttlMs must be a non-negative integer, got ${cache.ttlMs}`);
}
