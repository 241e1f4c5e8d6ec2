/**
 * The gateway config document: what synthesis uploads to `/etc/cdktf-mcp-gateway/gateway.json` and what
 * `cdktf-mcp-gateway serve --config FILE` reads. Keys are snake_case, like the manifest.
 * `config-schema.ts` is its JSON Schema twin (a test holds the two equal); `parse-config.ts` checks a document
 * against it, and `defaults.ts` holds the value of every field left out.
 */
import type { OAuthConfig } from './oauth-config';
import type { RateLimitConfig, StoreConfig } from './rate-limits';
import type { BackendMethod, ValidationErrorsChannel } from './rules';

export const GATEWAY_CONFIG_VERSION = 1;

/** A bearer token, known to the gateway only by the SHA-256 hash (lowercase hex) of the token. */
export interface TokenConfig {
  /** Names the caller in the audit log (`principal`). */
  readonly id: string;
  /** Lowercase hex SHA-256 of the token (`TOKEN_SHA256_PATTERN`). */
  readonly sha256: string;
  /**
   * The scopes the token grants, checked like an OAuth token's against the tools' `required_scopes` and
   * `auth.oauth.scopes`.
   * @default - unrestricted: the token may list and call every tool (the behaviour before scopes existed)
   */
  readonly scopes?: readonly string[];
}

/** How a gateway authenticates callers: static tokens, OAuth access tokens, or both (at least one is set). */
export interface AuthConfig {
  /** Static bearer tokens, checked first. @default - none */
  readonly tokens?: readonly TokenConfig[];
  /** OAuth 2.1 access tokens from this authorization server (see docs/auth.md). @default - none */
  readonly oauth?: OAuthConfig;
}

/** One tool: an HTTP service exposed over MCP. */
export interface ToolConfig {
  /** The tool name (`TOOL_NAME_PATTERN`). */
  readonly name: string;
  readonly description: string;
  /** The advertised input schema (JSON Schema 2020-12), generated or raw. */
  readonly input_schema: Record<string, unknown>;
  /** Top-level alias → the parameter name it stands for (never advertised). */
  readonly aliases?: Record<string, string>;
  /**
   * The declared output (JSON Schema 2020-12, `type: 'object'`, generated or raw): advertised as `outputSchema`
   * and checked against every 2xx response while `gateway.validate_output` is on. @default - no declared output
   */
  readonly output_schema?: Record<string, unknown>;
  /** What the gateway does to a 2xx response before the agent sees it. @default - forwarded as the service sent it */
  readonly response?: ResponseConfig;
  /** Top-level parameter name → the field name the backend receives (never advertised). */
  readonly forward_as?: Record<string, string>;
  /**
   * Scopes a caller needs to see and call this tool (besides `auth.oauth.scopes`); callers whose credential carries
   * no scopes (a static token without `scopes`, `auth: 'none'`) are not restricted. @default []
   */
  readonly required_scopes?: readonly string[];
  readonly backend: {
    /** May hold `{field}` placeholders naming forwarded fields. */
    readonly url: string;
    readonly method: BackendMethod;
    /** 1 to `MAX_SERVICE_TIMEOUT_MS`. @default - `DEFAULT_SERVICE_TIMEOUT_MS` */
    readonly timeout_ms?: number;
    /**
     * Headers sent to the backend on every call (`backend-rules.ts` says which names are reserved): a literal
     * value, or a reference to a secret the gateway reads at start (`/run/secrets/NAME`, else the environment
     * variable `NAME`). The config never holds a secret's value. @default - none
     */
    readonly headers?: Readonly<Record<string, HeaderValueConfig>>;
    /** How an `https://` backend's certificate is checked. @default - against Node's bundled CA certificates */
    readonly tls?: BackendTlsConfig;
    /** Adds `X-MCP-Principal` (the token id) and `X-MCP-Client` (the client's name) to every call. @default false */
    readonly forward_identity?: boolean;
    /**
     * A call may be sent twice: a request whose connection fails before the answer's headers is sent again, once,
     * on a new connection. @default - by method: true for GET, PUT and DELETE (HTTP's idempotent methods)
     */
    readonly idempotent?: boolean;
    /**
     * Fields sent as the query even though the method sends a body (POST, PUT, PATCH), as an OpenAPI operation's
     * query parameters are. @default - none: a body-sending method sends every field in the body
     */
    readonly query_params?: readonly string[];
    /** The field whose value is the whole JSON body (an array, a scalar, …), instead of an object of fields. @default - none */
    readonly body_param?: string;
  };
}

/** Response controls: applied after a 2xx response, in the order fields → validation → redaction → size. */
export interface ResponseConfig {
  /** `declared` drops every field the output schema does not declare, at every depth. @default 'all' */
  readonly fields?: 'declared' | 'all';
  /** Paths (`email`, `orders[].card_number`, `metadata.*`) whose string values become `[redacted]`. @default [] */
  readonly redact?: readonly string[];
  /** Named patterns (RE2 through the linear-time engine): every match in any string becomes `[redacted]`. @default {} */
  readonly redact_patterns?: Readonly<Record<string, string>>;
  /** The shaped result's JSON size limit, 1 to `MAX_RESPONSE_MAX_BYTES`. @default - `gateway.max_response_bytes` */
  readonly max_bytes?: number;
}

/** A backend header value: literal text, or `{ secret: NAME }`, read by the gateway at start. */
export type HeaderValueConfig = string | SecretRefConfig;

/** A reference to a secret: the gateway reads `/run/secrets/NAME`, else the environment variable `NAME`. */
export interface SecretRefConfig {
  /** `SECRET_NAME_PATTERN`. */
  readonly secret: string;
}

/**
 * The CA certificates (PEM) an `https://` backend's certificate must chain to, instead of Node's bundled ones:
 * a file in the gateway's container (`ca_file`) or a secret holding the PEM text (`ca_secret`); exactly one.
 */
export interface BackendTlsConfig {
  /** Absolute path, or relative to the gateway's working directory. */
  readonly ca_file?: string;
  /** A secret name (`SECRET_NAME_PATTERN`) whose value is the PEM text. */
  readonly ca_secret?: string;
}

export interface GatewaySettings {
  /** The gateway's name (audit log `gateway`). */
  readonly name: string;
  /** @default '0.0.0.0' (the image); the CLI's --host overrides */
  readonly host?: string;
  /** @default 8080; the CLI's --port overrides */
  readonly port?: number;
  /** @default true */
  readonly validate_input?: boolean;
  /** Checks 2xx responses against the tools' `output_schema` and advertises it. @default true */
  readonly validate_output?: boolean;
  /**
   * `auto` sends refusals as `isError` tool results to clients of MCP 2025-11-25 and later (the revision that made
   * input validation errors tool execution errors) and as JSON-RPC -32602 to 2025-03-26 and 2025-06-18 clients.
   * @default 'auto'
   */
  readonly validation_errors?: ValidationErrorsChannel;
  /**
   * Whether a refusal sent as a tool result carries `structuredContent: {violations}` beside its text. Off for
   * clients that show a model the structured content in place of the one-line message.
   * @default true
   */
  readonly refusal_structured_content?: boolean;
  /** `'none'` turns authentication off. */
  readonly auth: AuthConfig | 'none';
  /**
   * The URL agents reach the gateway's MCP endpoint at (e.g. `https://gw.example.com/mcp`): the `resource` of the
   * protected-resource metadata and the default `aud` of OAuth tokens. Required when `auth.oauth` is set.
   * @default - none
   */
  readonly resource_url?: string;
  /**
   * `true` writes to the default path, `{ path }` to that file, `'store'` to the gateway's `store` (every replica's
   * records in one place, whatever node it runs on), `false` turns it off. @default true
   */
  readonly audit_log?: boolean | 'store' | { readonly path: string };
  /** Host header values accepted (DNS-rebinding protection). @default - localhost names when bound to loopback, any otherwise */
  readonly allowed_hosts?: readonly string[];
  /** Origin header values accepted. @default - none (a request with any Origin is refused) unless bound to loopback, then localhost origins */
  readonly allowed_origins?: readonly string[];
  /** @default 1048576 */
  readonly max_body_bytes?: number;
  /** @default 4194304 */
  readonly max_response_bytes?: number;
  /** The most bytes of service responses held at once, over every call. @default - 4 × `max_response_bytes` (16777216) */
  readonly max_held_response_bytes?: number;
  /** @default 256 */
  readonly max_concurrent_calls?: number;
  /**
   * The calls one principal may have waiting on services at once (its share of `max_concurrent_calls`); more are
   * refused with -32603 naming the limit, so one token with slow calls cannot take every slot.
   * @default - a quarter of `max_concurrent_calls`, at least 1 (64)
   */
  readonly max_concurrent_calls_per_principal?: number;
  /**
   * Calls one principal may make (of every tool, or of one `tool`) per window; a call over a limit is refused with
   * HTTP 429 and JSON-RPC -32023 (see docs/rate-limits.md). Counted in `store` when set, else per process.
   * @default [] (no limit)
   */
  readonly rate_limits?: readonly RateLimitConfig[];
  /**
   * The Redis or Valkey server replicas share rate limits and ended sessions through.
   * @default - none: limits count per process, and a `DELETE` ends a session in the process that receives it
   */
  readonly store?: StoreConfig;
  /**
   * Ended (`DELETE`) sessions one principal may have remembered at once by a process (they are remembered until
   * they expire); past it, `DELETE` gets 429. With a `store`, ended sessions live in the store instead.
   * @default 20000
   */
  readonly max_revoked_sessions_per_principal?: number;
  /** A client must send a request's headers within this time, or the connection is closed. @default 10000 */
  readonly header_timeout_ms?: number;
  /** A client must send a whole request (headers and body) within this time (408). @default 30000 */
  readonly request_timeout_ms?: number;
  /**
   * A client that stops reading an answer (or a notification stream) for this long, with data waiting, has its
   * connection closed, so it cannot pin the answer in memory. @default 30000
   */
  readonly write_timeout_ms?: number;
  /** Open connections one client address may hold; more are answered 503 and closed. @default 256 */
  readonly max_connections_per_address?: number;
  /** A session id (2025 revisions) expires this long after `initialize` issued it. @default 3600000 */
  readonly session_ttl_ms?: number;
  /**
   * A file holding the session key (hex or base64 text, at least 32 bytes) that signs session ids; replicas sharing
   * it serve each other's sessions. Read at start only. @default - the `CDKTF_MCP_GATEWAY_SESSION_KEY` environment
   * variable, else a random key per process
   */
  readonly session_key_file?: string;
  /**
   * A file where the gateway keeps a session key it generated (a single gateway process without
   * `session_key_file`): read at start when it exists, else a new random key is written there (mode 0600), so
   * sessions survive a restart or a redeploy that keeps the file (a Docker volume). Ignored when
   * `session_key_file` or `CDKTF_MCP_GATEWAY_SESSION_KEY` gives the key. @default - a random key per process
   */
  readonly session_key_store?: string;
  /** Open notification streams (2025 GET streams and 2026-07-28 `subscriptions/listen`) per principal. @default 16 */
  readonly max_streams_per_principal?: number;
  /** `ttlMs` of the 2026-07-28 `tools/list` and `server/discover` results (0: immediately stale). @default 0 */
  readonly tools_list_ttl_ms?: number;
  /**
   * Tools per `tools/list` page, in every protocol revision, with `nextCursor` while more follow. @default 100
   */
  readonly tools_list_page_size?: number;
  /**
   * Prometheus metrics at `GET /metrics` (see docs/constructs.md): `true` serves them on the gateway's port behind its
   * authentication, `{ port }` on a port of their own without authentication, `false` not at all.
   * @default false
   */
  readonly metrics?: boolean | { readonly port: number };
}

/** The whole document. */
export interface GatewayConfig {
  readonly version: typeof GATEWAY_CONFIG_VERSION;
  readonly gateway: GatewaySettings;
  readonly tools: readonly ToolConfig[];
}
