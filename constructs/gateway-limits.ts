import {
  DEFAULT_HEADER_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONCURRENT_CALLS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_REVOKED_SESSIONS_PER_PRINCIPAL,
  DEFAULT_MAX_STREAMS_PER_PRINCIPAL,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_SESSION_TTL_MS,
  DEFAULT_TOOLS_LIST_TTL_MS,
  DEFAULT_WRITE_TIMEOUT_MS,
  type GatewaySettings,
} from '../src/config';
import { quote } from './docker-names';

/**
 * The limits a gateway enforces on its clients and services, each the twin of a `gateway.*` config setting
 * (docs/gateway.md, docs/security.md). Left out, the gateway's own default applies.
 */
export interface GatewayLimits {
  /**
   * The largest request body accepted, in bytes; a larger one gets HTTP 413.
   * @default 1048576
   */
  readonly maxBodyBytes?: number;
  /**
   * The largest service response accepted, in bytes; a larger one becomes an `isError` result.
   * @default 4194304
   */
  readonly maxResponseBytes?: number;
  /**
   * The most bytes of service responses the gateway holds at once, over every call: a call whose response would
   * pass it gets an `isError` result (`Service response refused: …`), so many large answers at once cannot exhaust
   * the container's memory.
   * @default - four times `maxResponseBytes` (16777216)
   */
  readonly maxHeldResponseBytes?: number;
  /**
   * The most `tools/call` requests waiting on services at once, over every caller; more are refused (-32000..-32019).
   * @default 256
   */
  readonly maxConcurrentCalls?: number;
  /**
   * The calls one principal may have waiting on services at once (its share of `maxConcurrentCalls`), so that one
   * token with slow calls cannot take every slot; more are refused with the limit named. Not applied with
   * `auth: none`, where every caller is the same anonymous principal.
   * @default - a quarter of `maxConcurrentCalls`, at least 1 (64 of the default 256)
   */
  readonly maxConcurrentCallsPerPrincipal?: number;
  /**
   * Ended (`DELETE`) sessions remembered per principal until they expire; past it, `DELETE` gets 429, so one
   * principal cannot push another's revocations out.
   * @default 1000
   */
  readonly maxRevokedSessionsPerPrincipal?: number;
  /**
   * A client must send a request's headers within this time (milliseconds), or the connection is closed. At most
   * `requestTimeoutMs`.
   * @default 10000
   */
  readonly headerTimeoutMs?: number;
  /**
   * A client must send a whole request, headers and body, within this time (milliseconds); HTTP 408 otherwise.
   * @default 30000
   */
  readonly requestTimeoutMs?: number;
  /**
   * A client that stops reading an answer is disconnected after this time (milliseconds), so slow readers cannot
   * pin memory.
   * @default 30000
   */
  readonly writeTimeoutMs?: number;
  /**
   * Open connections one client address may hold; more are closed at once.
   * @default 256
   */
  readonly maxConnectionsPerAddress?: number;
  /**
   * How long a session id is valid after `initialize`, in milliseconds; an expired one gets HTTP 404.
   * @default 3600000
   */
  readonly sessionTtlMs?: number;
  /**
   * Open notification streams (2025 GET streams, 2026-07-28 `subscriptions/listen`) one principal may hold; more
   * get HTTP 429.
   * @default 16
   */
  readonly maxStreamsPerPrincipal?: number;
  /**
   * How long a 2026-07-28 `tools/list` result may be cached by the client, in milliseconds (`0`: immediately
   * stale, since a config reload may change it).
   * @default 0
   */
  readonly toolsListTtlMs?: number;
}

type LimitSetting = keyof GatewaySettings &
  (
    | 'max_body_bytes'
    | 'max_response_bytes'
    | 'max_held_response_bytes'
    | 'max_concurrent_calls'
    | 'max_concurrent_calls_per_principal'
    | 'max_revoked_sessions_per_principal'
    | 'header_timeout_ms'
    | 'request_timeout_ms'
    | 'write_timeout_ms'
    | 'max_connections_per_address'
    | 'session_ttl_ms'
    | 'max_streams_per_principal'
    | 'tools_list_ttl_ms'
  );

/** Each prop, its config setting, its unit, its least value and its default (as the error's fix says). */
const LIMITS: readonly (readonly [keyof GatewayLimits, LimitSetting, string, number, string])[] = [
  ['maxBodyBytes', 'max_body_bytes', 'bytes', 1, String(DEFAULT_MAX_BODY_BYTES)],
  ['maxResponseBytes', 'max_response_bytes', 'bytes', 1, String(DEFAULT_MAX_RESPONSE_BYTES)],
  ['maxHeldResponseBytes', 'max_held_response_bytes', 'bytes', 1, 'four times maxResponseBytes'],
  ['maxConcurrentCalls', 'max_concurrent_calls', 'calls', 1, String(DEFAULT_MAX_CONCURRENT_CALLS)],
  [
    'maxConcurrentCallsPerPrincipal',
    'max_concurrent_calls_per_principal',
    'calls',
    1,
    'a quarter of maxConcurrentCalls',
  ],
  [
    'maxRevokedSessionsPerPrincipal',
    'max_revoked_sessions_per_principal',
    'sessions',
    1,
    String(DEFAULT_MAX_REVOKED_SESSIONS_PER_PRINCIPAL),
  ],
  ['headerTimeoutMs', 'header_timeout_ms', 'milliseconds', 1, String(DEFAULT_HEADER_TIMEOUT_MS)],
  ['requestTimeoutMs', 'request_timeout_ms', 'milliseconds', 1, String(DEFAULT_REQUEST_TIMEOUT_MS)],
  ['writeTimeoutMs', 'write_timeout_ms', 'milliseconds', 1, String(DEFAULT_WRITE_TIMEOUT_MS)],
  [
    'maxConnectionsPerAddress',
    'max_connections_per_address',
    'connections',
    1,
    String(DEFAULT_MAX_CONNECTIONS_PER_ADDRESS),
  ],
  ['sessionTtlMs', 'session_ttl_ms', 'milliseconds', 1, String(DEFAULT_SESSION_TTL_MS)],
  ['maxStreamsPerPrincipal', 'max_streams_per_principal', 'streams', 1, String(DEFAULT_MAX_STREAMS_PER_PRINCIPAL)],
  ['toolsListTtlMs', 'tools_list_ttl_ms', 'milliseconds', 0, String(DEFAULT_TOOLS_LIST_TTL_MS)],
];

/**
 * The config settings of the limits set in `props`, in the table's order; a bad value fails naming the prop, the
 * value and what is allowed.
 */
export function limitSettings(props: GatewayLimits, fail: (m: string) => never): Partial<GatewaySettings> {
  const out: Partial<Record<LimitSetting, number>> = {};
  for (const [prop, setting, unit, least, fallback] of LIMITS) {
    const value = props[prop];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least) {
      const what = least === 0 ? 'a non-negative integer' : 'a positive integer';
      fail(`${prop} (${quote(value)}) must be ${what} (${unit}); omit it for the default (${fallback})`);
    }
    out[setting] = value;
  }
  const headers = props.headerTimeoutMs ?? DEFAULT_HEADER_TIMEOUT_MS;
  const request = props.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  if (headers > request) {
    fail(
      `headerTimeoutMs (${headers}${props.headerTimeoutMs === undefined ? ', the default' : ''}) is longer than ` +
        `requestTimeoutMs (${request}${props.requestTimeoutMs === undefined ? ', the default' : ''}); the headers ` +
        `are part of the request, so set headerTimeoutMs to at most ${request}`,
    );
  }
  return out;
}
