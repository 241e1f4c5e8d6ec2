import { Token } from 'cdktf';
import {
  MAX_RATE_LIMIT_CALLS,
  MAX_STORE_TIMEOUT_MS,
  RATE_LIMIT_WINDOWS,
  STORE_OUTAGE_POLICIES,
  storeUrlProblem,
  type RateLimitConfig,
  type RateLimitWindow,
  type StoreConfig,
  type StoreOutagePolicy,
} from '../src/config';
import { quote } from './docker-names';
import { checkNestedProps, type PropKeys } from './known-props';
import { Secret } from './secret';

/**
 * A limit on the calls of each agent (each principal: a static token, an OAuth subject) of one service's tool,
 * over a window that starts at a multiple of its length (UTC), e.g. `{ calls: 10, per: 'minute' }`. A call over it
 * gets HTTP 429 and JSON-RPC -32023 naming the limit (see docs/rate-limits.md).
 */
export interface ServiceRateLimit {
  /** Calls allowed in each window, 1 to 1,000,000,000. */
  readonly calls: number;
  /** The window: `'second'`, `'minute'`, `'hour'` or `'day'`. */
  readonly per: RateLimitWindow;
}

/**
 * A limit on the calls of each agent over a window, of every tool of a gateway together or of one `tool`, e.g.
 * `{ calls: 60, per: 'minute' }` or a day's quota `{ calls: 10000, per: 'day' }`.
 */
export interface RateLimit extends ServiceRateLimit {
  /**
   * The tool (a service's name) whose calls the limit counts; on a `Service`'s own `rateLimits`, that service.
   * @default - every tool of the gateway, counted together
   */
  readonly tool?: string;
}

/**
 * A Redis or Valkey server the gateway's replicas share rate limits and ended sessions through. To deploy one
 * beside the gateway, pass a `LimitStore` as the gateway's `store` instead.
 */
export interface GatewayStoreOptions {
  /** `redis://host:6379` (or `rediss://` for TLS), with no password in it. */
  readonly url: string;
  /**
   * The store's password: a secret named in the gateway's `secrets`, e.g. `Secret.env('STORE_PASSWORD')`.
   * @default - none
   */
  readonly password?: Secret;
  /**
   * What calls get while the store cannot be reached: `'allow'` (each gateway process counts on its own meanwhile)
   * or `'refuse'` (HTTP 503).
   * @default 'allow'
   */
  readonly onUnavailable?: StoreOutagePolicy;
  /**
   * The longest a call waits on the store, in milliseconds (1 to 10000); then `onUnavailable` decides.
   * @default 50
   */
  readonly timeoutMs?: number;
}

const WINDOWS = Object.keys(RATE_LIMIT_WINDOWS);

/** Every prop of {@link GatewayStoreOptions}. */
const STORE_OPTIONS: PropKeys<GatewayStoreOptions> = {
  url: true,
  password: true,
  onUnavailable: true,
  timeoutMs: true,
};

/**
 * The config form of `prop` (a gateway's `rateLimits`, or a service's with every limit for `tool`); a bad value
 * fails naming the prop, the value and what is allowed.
 */
export function checkRateLimits(
  prop: string,
  value: readonly (RateLimit | ServiceRateLimit)[] | undefined,
  fail: (m: string) => never,
  tool?: string,
): RateLimitConfig[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail(`${prop} (${quote(value)}) must be an array of { calls, per, tool? }`);
  return value.map((limit: RateLimit, i) => {
    const at = `${prop}[${i}]`;
    if (typeof limit !== 'object' || limit === null) fail(`${at} (${quote(limit)}) must be { calls, per, tool? }`);
    const { calls, per } = limit;
    if (typeof calls !== 'number' || !Number.isSafeInteger(calls) || calls < 1 || calls > MAX_RATE_LIMIT_CALLS) {
      fail(`${at}.calls (${quote(calls)}) must be an integer from 1 to ${MAX_RATE_LIMIT_CALLS}`);
    }
    if (!WINDOWS.includes(per))
      fail(`${at}.per (${quote(per)}) must be one of ${WINDOWS.map((w) => `'${w}'`).join(', ')}`);
    const unknown = Object.keys(limit).filter((k) => k !== 'calls' && k !== 'per' && k !== 'tool');
    if (unknown.length > 0) fail(`${at} has an unknown field '${unknown[0]}': a limit is { calls, per, tool? }`);
    if (tool !== undefined && limit.tool !== undefined && limit.tool !== tool) {
      fail(`${at}.tool (${quote(limit.tool)}): a service's own limits count its tool '${tool}'; leave tool out`);
    }
    const named = tool ?? limit.tool;
    if (named !== undefined && typeof named !== 'string') fail(`${at}.tool (${quote(named)}) must be a tool name`);
    return { calls, per, ...(named === undefined ? {} : { tool: named }) };
  });
}

/** The config form of a `GatewayStoreOptions`; a bad value fails naming the field and the fix. */
export function storeConfig(options: GatewayStoreOptions, fail: (message: string) => never): StoreConfig {
  checkNestedProps(options, STORE_OPTIONS, 'store', fail);
  const { url, password, onUnavailable, timeoutMs } = options;
  if (typeof url !== 'string') fail(`store.url (${quote(url)}) must be a redis:// URL`);
  const problem = Token.isUnresolved(url) ? undefined : storeUrlProblem(url);
  if (problem !== undefined) fail(`store.url ${problem}`);
  if (password !== undefined && !Secret.isSecret(password)) {
    fail("store.password must be a Secret, e.g. Secret.env('STORE_PASSWORD') with the value in the gateway's secrets");
  }
  if (onUnavailable !== undefined && !(STORE_OUTAGE_POLICIES as readonly string[]).includes(onUnavailable)) {
    fail(`store.onUnavailable (${quote(onUnavailable)}) must be 'allow' or 'refuse'`);
  }
  if (
    timeoutMs !== undefined &&
    (typeof timeoutMs !== 'number' ||
      !Number.isSafeInteger(timeoutMs) ||
      timeoutMs < 1 ||
      timeoutMs > MAX_STORE_TIMEOUT_MS)
  ) {
    fail(`store.timeoutMs (${quote(timeoutMs)}) must be an integer from 1 to ${MAX_STORE_TIMEOUT_MS} (milliseconds)`);
  }
  return {
    url,
    ...(password === undefined ? {} : { password: password.toConfig() }),
    ...(onUnavailable === undefined ? {} : { on_unavailable: onUnavailable }),
    ...(timeoutMs === undefined ? {} : { timeout_ms: timeoutMs }),
  };
}
