/**
 * The rules a gateway config obeys, shared by the config schema (what `serve` accepts), the constructs and the
 * manifest (what synthesis accepts), so that the two sides cannot drift apart.
 */

/** A tool or gateway name (see docs/gateway.md). */
export const TOOL_NAME_PATTERN = '^[A-Za-z0-9_.-]{1,64}$';

/** {@link TOOL_NAME_PATTERN} compiled. */
export const TOOL_NAME_RE = new RegExp(TOOL_NAME_PATTERN);

/** The name rule spelled out for error messages. */
export const NAME_RULE = `1-64 letters, digits, '_', '.' or '-' (${TOOL_NAME_PATTERN})`;

/** A limit store's name: its host name on the stack's network, so a DNS label in lower case. */
export const LIMIT_STORE_NAME_RE = /^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** {@link LIMIT_STORE_NAME_RE} spelled out for error messages. */
export const LIMIT_STORE_NAME_RULE =
  'a host name: lower-case letters, digits and -, starting with a letter and not ending with -';

/** How validation refusals reach the agent (see docs/input-and-validation.md). */
export const VALIDATION_CHANNELS = ['protocol', 'tool_result', 'auto'] as const;

/** How validation refusals reach the agent (see docs/input-and-validation.md). */
export type ValidationErrorsChannel = (typeof VALIDATION_CHANNELS)[number];

/** HTTP methods a backend may be called with. */
export const BACKEND_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** An HTTP method a backend may be called with. */
export type BackendMethod = (typeof BACKEND_METHODS)[number];

/** The longest `timeout_ms` of a service (10 minutes). */
export const MAX_SERVICE_TIMEOUT_MS = 600_000;

/** A token hash as the config holds it: the SHA-256 of the token, lowercase hex. */
export const TOKEN_SHA256_PATTERN = '^[0-9a-f]{64}$';

/**
 * Checks a token hash as a user writes it (any case) and returns it lowercased, or a reason that says exactly
 * what is wrong. The reason never quotes the value: a token pasted by mistake must not reach build logs.
 */
export function normalizeTokenSha256(value: unknown): { readonly sha256: string } | { readonly problem: string } {
  if (typeof value !== 'string') return { problem: 'must be a string of 64 hex characters, the SHA-256 of the token' };
  if (value.trim() === '') {
    return {
      problem: 'is empty (an unset environment variable?): set it to the SHA-256 of the token, 64 hex characters',
    };
  }
  if (/^[0-9a-fA-F]{64}\s+(-|\S+)?\s*$/.test(value)) {
    return { problem: "holds sha256sum's whole output line: keep only the 64 hex characters before the two spaces" };
  }
  if (value.length === 64 && !/^[0-9a-fA-F]{64}$/.test(value)) {
    return { problem: 'is 64 characters long but not hexadecimal: it must be the SHA-256 of the token, not the token' };
  }
  if (!/^[0-9a-fA-F]{64}$/.test(value)) {
    return {
      problem:
        `must be 64 hex characters, the SHA-256 of the token (this value has ${value.length} characters; ` +
        'make it with printf %s "$TOKEN" | sha256sum), never the token itself',
    };
  }
  return { sha256: value.toLowerCase() };
}

/** The highest TCP port. */
export const MAX_PORT = 65_535;

/** The port rule of a published or listening port, in words (`container.port`, `Gateway.port`, …). */
export const PORT_RULE = `an integer between 1 and ${MAX_PORT}`;

/** The rule of a port to listen on where 0 asks the system for a free one (`--port`), in words. */
export const LISTEN_PORT_RULE = `an integer 0-${MAX_PORT}`;

/**
 * Whether `value` is a TCP port (1-65535), or with `anyFree` also 0 (listen on a free port the system picks).
 * One rule for the constructs, the config, the dashboard settings and the command lines.
 */
export function isPort(value: unknown, anyFree = false): value is number {
  return Number.isInteger(value) && (value as number) >= (anyFree ? 0 : 1) && (value as number) <= MAX_PORT;
}

/** An environment variable (or build argument) name. */
export const ENV_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';

/** {@link ENV_NAME_PATTERN} compiled. */
export const ENV_NAME_RE = new RegExp(ENV_NAME_PATTERN);
