/**
 * The rules for what a gateway adds to a backend request (see docs/gateway.md: `endpoint.headers`, secret references,
 * `forwardIdentity`): one home for the config check (`parse-config.ts`), the constructs and the manifest, and the
 * runtime that reads secret values at start.
 */
import { X509Certificate } from 'node:crypto';

/** A header name as HTTP defines it (RFC 9110 `token`). */
export const HEADER_NAME_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$";

/** A secret name: an environment variable name, also a file name under `/run/secrets`. */
export const SECRET_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,127}$';

/** The header the gateway sets to the caller's principal (token id) when `forward_identity` is on. */
export const PRINCIPAL_HEADER = 'x-mcp-principal';

/** The header the gateway sets to the caller's client name when `forward_identity` is on. */
export const CLIENT_HEADER = 'x-mcp-client';

/**
 * Header names a service may not set, lower-case: the connection's own (hop-by-hop, framing, `host`), those the
 * gateway sets itself on every request, and the identity headers (only `forward_identity` sets them, so a
 * backend can trust them). `authorization` is allowed: credentials towards the backend are the point.
 */
export const RESERVED_BACKEND_HEADERS: readonly string[] = [
  'host',
  'content-length',
  'connection',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'accept',
  'content-type',
  'user-agent',
  PRINCIPAL_HEADER,
  CLIENT_HEADER,
];

/**
 * Secret names the gateway refuses: they would replace a variable of the gateway's own process (the secret is
 * passed in its environment), e.g. `NODE_OPTIONS` could make it load any code.
 */
const RESERVED_SECRET_NAME =
  /^(PATH|HOME|HOSTNAME|USER|SHELL|PWD|TZ|LANG|LC_.*|NODE_.*|NPM_.*|UV_.*|CDKTF_MCP_GATEWAY_.*)$/i;

/** A header value written in the config: visible ASCII, Latin-1 text, spaces and tabs, no line break. */
const HEADER_VALUE_RE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Why `name` cannot be a backend header, or `undefined`. */
export function headerNameProblem(name: string): string | undefined {
  if (!new RegExp(HEADER_NAME_PATTERN).test(name)) {
    return "is not a valid header name (letters, digits and !#$%&'*+.^_`|~- only, at most 128)";
  }
  const lower = name.toLowerCase();
  if (lower.startsWith('proxy-') || RESERVED_BACKEND_HEADERS.includes(lower)) {
    const why =
      lower === PRINCIPAL_HEADER || lower === CLIENT_HEADER
        ? 'it is set only by forward_identity (forwardIdentity: true), so that a backend can trust it'
        : 'the gateway or the connection sets it';
    return `is reserved: ${why}`;
  }
  return undefined;
}

/**
 * Why `value` cannot be sent as a header value, or `undefined`. The reason never quotes the value: it may be a
 * secret.
 */
export function headerValueProblem(value: string): string | undefined {
  if (HEADER_VALUE_RE.test(value)) return undefined;
  return /[\r\n]/.test(value)
    ? 'holds a line break, which cannot be sent in a header'
    : 'holds a character that cannot be sent in a header (control characters or text outside Latin-1)';
}

/** Why `name` cannot name a secret, or `undefined`. */
export function secretNameProblem(name: string): string | undefined {
  if (!new RegExp(SECRET_NAME_PATTERN).test(name)) {
    return 'must be an environment variable name (letters, digits and _, not starting with a digit, at most 128)';
  }
  if (RESERVED_SECRET_NAME.test(name)) {
    return "is reserved: the gateway's own process reads this environment variable; choose another name";
  }
  return undefined;
}

/**
 * The certificates of a PEM CA bundle, or why it cannot be one. The reason never quotes the text (it may come
 * from a secret).
 */
export function parsePemBundle(text: string): { readonly certificates: string[] } | { readonly problem: string } {
  const certificates = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (certificates.length === 0) return { problem: 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)' };
  for (const [n, certificate] of certificates.entries()) {
    try {
      new X509Certificate(certificate);
    } catch {
      return { problem: `certificate ${n + 1} of the bundle does not parse` };
    }
  }
  return { certificates };
}
