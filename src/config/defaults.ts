/**
 * The values a gateway uses where its config is silent: one home for the runtime, the constructs and the docs.
 * Each is named after the config field it stands in for.
 */
import { AUDIT_LOG_DIR } from './deployment';

/** `gateway.host` in the image: every interface of the container. `dev` binds loopback instead. */
export const DEFAULT_HOST = '0.0.0.0';
/** `gateway.port`. */
export const DEFAULT_PORT = 8080;
/** `gateway.validate_input`. */
export const DEFAULT_VALIDATE_INPUT = true;
/** `gateway.validate_output`. */
export const DEFAULT_VALIDATE_OUTPUT = true;
/** `gateway.validation_errors`: tool results for clients of MCP 2025-11-25 and later, JSON-RPC errors before. */
export const DEFAULT_VALIDATION_ERRORS = 'auto';
/** `gateway.refusal_structured_content`. */
export const DEFAULT_REFUSAL_STRUCTURED_CONTENT = true;
/** `gateway.audit_log: true` writes here. */
export const DEFAULT_AUDIT_LOG_PATH = `${AUDIT_LOG_DIR}/audit.jsonl`;
/** `gateway.max_body_bytes`: the largest request body accepted (1 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;
/** `gateway.max_response_bytes`: the largest service response accepted (4 MiB). */
export const DEFAULT_MAX_RESPONSE_BYTES = 4_194_304;
/**
 * `gateway.max_held_response_bytes` when the config does not set it: four responses of the largest size accepted
 * (16 MiB at the default `max_response_bytes`). Bodies being read and large answers until written out count
 * against it; a body costs a few times its size while its result is built and sent, so this bounds what
 * responses can take of a container's memory (bench/response-attacks.ts measures the peak).
 */
export function defaultMaxHeldResponseBytes(maxResponseBytes: number): number {
  return 4 * maxResponseBytes;
}
/** `gateway.max_concurrent_calls`: the most calls waiting on services at once. */
export const DEFAULT_MAX_CONCURRENT_CALLS = 256;
/** `gateway.session_ttl_ms`: how long a session id is valid after it was issued (1 hour). */
export const DEFAULT_SESSION_TTL_MS = 3_600_000;
/** `gateway.max_streams_per_principal`: open GET/listen streams one principal may hold (see docs/gateway.md). */
export const DEFAULT_MAX_STREAMS_PER_PRINCIPAL = 16;
/**
 * `gateway.max_concurrent_calls_per_principal`: the share of `max_concurrent_calls` one principal may hold, when
 * the config does not set it: a quarter of `max_concurrent_calls`, at least 1 (64 of the default 256).
 */
export function defaultMaxConcurrentCallsPerPrincipal(maxConcurrentCalls: number): number {
  return Math.max(1, Math.floor(maxConcurrentCalls / 4));
}
/** `gateway.max_revoked_sessions_per_principal`: ended sessions remembered per principal until they expire. */
export const DEFAULT_MAX_REVOKED_SESSIONS_PER_PRINCIPAL = 20_000;
/** `gateway.store.on_unavailable`: while the store is down, calls pass, counted by each process on its own. */
export const DEFAULT_STORE_ON_UNAVAILABLE = 'allow';
/** `gateway.store.timeout_ms`: the longest a call waits on the store. */
export const DEFAULT_STORE_TIMEOUT_MS = 50;
/** `gateway.header_timeout_ms`: how long a client may take to send a request's headers. */
export const DEFAULT_HEADER_TIMEOUT_MS = 10_000;
/** `gateway.request_timeout_ms`: how long a client may take to send a whole request (headers and body). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** `gateway.write_timeout_ms`: how long an answer may wait on a client that stops reading it. */
export const DEFAULT_WRITE_TIMEOUT_MS = 30_000;
/** `gateway.max_connections_per_address`: open connections one client address may hold. */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 256;
/** `gateway.tools_list_ttl_ms`: the 2026-07-28 list results are immediately stale (a reload may change them). */
export const DEFAULT_TOOLS_LIST_TTL_MS = 0;
/** `gateway.tools_list_page_size`: tools per 2026-07-28 `tools/list` page (and per page of a 2025 client that pages). */
export const DEFAULT_TOOLS_LIST_PAGE_SIZE = 100;
/** `tools[].backend.timeout_ms`: how long the gateway waits for a service. */
export const DEFAULT_SERVICE_TIMEOUT_MS = 10_000;
/** `gateway.metrics`: no `/metrics` unless asked for. */
export const DEFAULT_METRICS = false;
