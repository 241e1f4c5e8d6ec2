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
/** `gateway.validation_errors`. */
export const DEFAULT_VALIDATION_ERRORS = 'protocol';
/** `gateway.audit_log: true` writes here. */
export const DEFAULT_AUDIT_LOG_PATH = `${AUDIT_LOG_DIR}/audit.jsonl`;
/** `gateway.max_body_bytes`: the largest request body accepted (1 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;
/** `gateway.max_response_bytes`: the largest service response accepted (4 MiB). */
export const DEFAULT_MAX_RESPONSE_BYTES = 4_194_304;
/** `gateway.max_concurrent_calls`: the most calls waiting on services at once. */
export const DEFAULT_MAX_CONCURRENT_CALLS = 256;
/** `gateway.session_ttl_ms`: how long a session id is valid after it was issued (1 hour). */
export const DEFAULT_SESSION_TTL_MS = 3_600_000;
/** `gateway.max_streams_per_principal`: open GET/listen streams one principal may hold (SPEC §4). */
export const DEFAULT_MAX_STREAMS_PER_PRINCIPAL = 16;
/** `gateway.tools_list_ttl_ms`: the 2026-07-28 list results are immediately stale (a reload may change them). */
export const DEFAULT_TOOLS_LIST_TTL_MS = 0;
/** `tools[].backend.timeout_ms`: how long the gateway waits for a service. */
export const DEFAULT_SERVICE_TIMEOUT_MS = 10_000;
/** `gateway.metrics`: no `/metrics` unless asked for. */
export const DEFAULT_METRICS = false;
