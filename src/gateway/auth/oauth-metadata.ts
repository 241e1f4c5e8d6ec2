/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728): the document that tells an agent which authorization server
 * issues tokens for this gateway and which scopes exist. It is public (served without authentication) and holds
 * nothing beyond the fields below.
 */

/** The well-known prefix of protected-resource metadata (RFC 9728 §3). */
export const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** The RFC 9728 document a gateway serves. */
export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  /** Present when the gateway knows of at least one scope. */
  readonly scopes_supported?: readonly string[];
  /** Tokens are accepted only in the `Authorization` header (never in a query or form body). */
  readonly bearer_methods_supported: readonly ['header'];
}

/** What the metadata document is built from. */
export interface ProtectedResourceMetadataOptions {
  /** The gateway's resource URL, e.g. `https://gw.example.com/mcp`. */
  readonly resource: string;
  /** The configured issuer(s). */
  readonly authorizationServers: readonly string[];
  /**
   * Every scope the gateway may ask for: `auth.oauth.scopes` and each tool's `required_scopes`. Repeats are
   * dropped, the first occurrence keeps its place.
   * @default []
   */
  readonly scopes?: Iterable<string>;
}

/**
 * Builds the protected-resource metadata document.
 * @example
 * protectedResourceMetadata({ resource: 'https://gw.example.com/mcp', authorizationServers: ['https://idp.example.com'], scopes: ['crm.read'] });
 * // { resource, authorization_servers: ['https://idp.example.com'], scopes_supported: ['crm.read'], bearer_methods_supported: ['header'] }
 */
export function protectedResourceMetadata(options: ProtectedResourceMetadataOptions): ProtectedResourceMetadata {
  const scopes = [...new Set(options.scopes ?? [])];
  return {
    resource: options.resource,
    authorization_servers: [...options.authorizationServers],
    ...(scopes.length > 0 ? { scopes_supported: scopes } : {}),
    bearer_methods_supported: ['header'],
  };
}

/**
 * The URL of the metadata for `resource` (RFC 9728 §3.1: the well-known segment goes between the host and the
 * path), as sent in `WWW-Authenticate: Bearer resource_metadata="…"`.
 * @example
 * protectedResourceMetadataUrl('https://gw.example.com/mcp'); // 'https://gw.example.com/.well-known/oauth-protected-resource/mcp'
 */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}${protectedResourceMetadataPaths(resource)[0]}`;
}

/**
 * The request paths that serve the metadata, most specific first: `/.well-known/oauth-protected-resource/mcp`
 * for a resource at `/mcp`, and `/.well-known/oauth-protected-resource` (clients that ignore the path).
 */
export function protectedResourceMetadataPaths(resource: string): string[] {
  const path = new URL(resource).pathname.replace(/\/+$/, '');
  return path === ''
    ? [PROTECTED_RESOURCE_WELL_KNOWN]
    : [`${PROTECTED_RESOURCE_WELL_KNOWN}${path}`, PROTECTED_RESOURCE_WELL_KNOWN];
}
