/**
 * The gateway config document: what synthesis uploads to `/etc/cdktf-mcp-gateway/gateway.json` and what
 * `cdktf-mcp-gateway serve --config FILE` reads. Keys are snake_case, like the manifest.
 * The runtime validates a loaded document against its own schema (see the gateway runtime) and exits
 * with one line naming the bad field.
 */
export const GATEWAY_CONFIG_VERSION = 1;

/** How validation refusals reach the agent (SPEC §3). */
export type ValidationErrorsChannel = 'protocol' | 'tool_result' | 'auto';

/** HTTP methods a backend may be called with. */
export const BACKEND_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** An HTTP method a backend may be called with. */
export type BackendMethod = (typeof BACKEND_METHODS)[number];

/** A bearer token, known to the gateway only by the SHA-256 hash (lowercase hex) of the token. */
export interface TokenConfig {
  /** Names the caller in the audit log (`principal`). */
  readonly id: string;
  /** Lowercase hex SHA-256 of the token. */
  readonly sha256: string;
}

/** One tool: an HTTP service exposed over MCP. */
export interface ToolConfig {
  /** The tool name, `^[A-Za-z0-9_.-]{1,64}$`. */
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
    /** @default 10000 */
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
  /** Idle session expiry. @default 3600000 */
  readonly session_ttl_ms?: number;
}

/** The whole document. */
export interface GatewayConfig {
  readonly version: typeof GATEWAY_CONFIG_VERSION;
  readonly gateway: GatewaySettings;
  readonly tools: readonly ToolConfig[];
}
