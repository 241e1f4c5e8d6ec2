/**
 * The gateway config document: what synthesis uploads to `/etc/cdktf-mcp-gateway/gateway.json` and what
 * `cdktf-mcp-gateway serve --config FILE` reads. Keys are snake_case, like the manifest.
 * `config-schema.ts` is its JSON Schema twin (a test holds the two equal); `parse-config.ts` checks a document
 * against it, and `defaults.ts` holds the value of every field left out.
 */
import type { BackendMethod, ValidationErrorsChannel } from './rules';

export const GATEWAY_CONFIG_VERSION = 1;


/** A bearer token, known to the gateway only by the SHA-256 hash (lowercase hex) of the token. */
export interface TokenConfig {
  /** Names the caller in the audit log (`principal`). */
  readonly id: string;
  /** Lowercase hex SHA-256 of the token (`TOKEN_SHA256_PATTERN`). */
  readonly sha256: string;
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
  /** Top-level parameter name → the field name the backend receives (never advertised). */
  readonly forward_as?: Record<string, string>;
  readonly backend: {
    /** May hold `{field}` placeholders naming forwarded fields. */
    readonly url: string;
    readonly method: BackendMethod;
    /** 1 to `MAX_SERVICE_TIMEOUT_MS`. @default - `DEFAULT_SERVICE_TIMEOUT_MS` */
    readonly timeout_ms?: number;
  };
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
  /** @default 'protocol' */
  readonly validation_errors?: ValidationErrorsChannel;
  /** `'none'` turns authentication off. */
  readonly auth: { readonly tokens: readonly TokenConfig[] } | 'none';
  /** `true` writes to the default path, `{ path }` to that file, `false` turns it off. @default true */
  readonly audit_log?: boolean | { readonly path: string };
  /** Host header values accepted (DNS-rebinding protection). @default - localhost names when bound to loopback, any otherwise */
  readonly allowed_hosts?: readonly string[];
  /** Origin header values accepted. @default - none (a request with any Origin is refused) unless bound to loopback, then localhost origins */
  readonly allowed_origins?: readonly string[];
  /** @default 1048576 */
  readonly max_body_bytes?: number;
  /** @default 4194304 */
  readonly max_response_bytes?: number;
  /** @default 256 */
  readonly max_concurrent_calls?: number;
  /** A session id (2025 revisions) expires this long after `initialize` issued it. @default 3600000 */
  readonly session_ttl_ms?: number;
  /**
   * A file holding the session key (hex or base64 text, at least 32 bytes) that signs session ids; replicas sharing
   * it serve each other's sessions. Read at start only. @default - the `CDKTF_MCP_GATEWAY_SESSION_KEY` environment
   * variable, else a random key per process
   */
  readonly session_key_file?: string;
  /** Open notification streams (2025 GET streams and 2026-07-28 `subscriptions/listen`) per principal. @default 16 */
  readonly max_streams_per_principal?: number;
  /** `ttlMs` of the 2026-07-28 `tools/list` and `server/discover` results (0: immediately stale). @default 0 */
  readonly tools_list_ttl_ms?: number;
}

/** The whole document. */
export interface GatewayConfig {
  readonly version: typeof GATEWAY_CONFIG_VERSION;
  readonly gateway: GatewaySettings;
  readonly tools: readonly ToolConfig[];
}
