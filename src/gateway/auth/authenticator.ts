/**
 * Who is calling: the bearer token of a request checked against the configured static tokens first (constant
 * time), then, when `auth.oauth` is set, as an OAuth 2.1 access token (see docs/auth.md).
 */
import type { AuthConfig, TokenConfig } from '../../config/gateway-config';
import { HttpError } from '../errors/http-error';
import type { Logger } from '../log/logger';
import { RpcCode } from '../errors/jsonrpc';
import { bearerToken, createTokenMatcher, tokenHashes, type Principal } from './bearer-tokens';
import { unauthorizedError } from './oauth-challenge';
import {
  protectedResourceMetadata,
  protectedResourceMetadataPaths,
  protectedResourceMetadataUrl,
} from './oauth-metadata';
import { createOAuthVerifier, OAuthTokenError, type OAuthVerifier, type OAuthVerifierOptions } from './oauth-verifier';

/** The caller of a request, as its credential names it. */
export interface Identity {
  /** The token id, the OAuth principal claim (default `sub`), or `null` with `auth: 'none'`. */
  readonly principal: Principal;
  /** The OAuth client (`client_id`, else `azp`); `null` for static tokens and `auth: 'none'`. */
  readonly clientId: string | null;
  /**
   * The scopes the credential grants; `undefined` means unrestricted (a static token without `scopes`,
   * `auth: 'none'`): such a caller sees and calls every tool.
   */
  readonly scopes: ReadonlySet<string> | undefined;
  /** Whether an OAuth access token named the caller (metrics never label such a principal by name). */
  readonly oauth: boolean;
  /** When the OAuth token expires (its `exp`, ms since the epoch); `undefined` for static tokens and no auth. */
  readonly expiresAtMs?: number;
}

/** The OAuth side of a gateway: its RFC 9728 metadata and where it is served. */
export interface ProtectedResource {
  /** The metadata URL sent in `WWW-Authenticate: Bearer resource_metadata="…"`. */
  readonly metadataUrl: string;
  /** The request paths that serve the metadata (without authentication). */
  readonly metadataPaths: readonly string[];
  /** The metadata document, serialized once. */
  readonly metadataJson: string;
}

/** Resolves the bearer token of a request to its caller, or refuses with HTTP 401. */
export interface Authenticator {
  /** @throws HttpError 401 (with the RFC 9728 challenge when OAuth is configured) */
  authenticate(authorization: string | undefined): Promise<Identity>;
  /** Set when `auth.oauth` is. */
  readonly resource: ProtectedResource | undefined;
  /** Loads the issuer's keys now rather than at the first token; never throws. */
  warm(): Promise<void>;
}

/** What the authenticator needs besides the `auth` setting. */
export interface AuthenticatorOptions {
  /** `gateway.resource_url` (required with `auth.oauth`). */
  readonly resourceUrl?: string;
  /** Every scope the gateway may ask for (for `scopes_supported`). @default [] */
  readonly scopes?: Iterable<string>;
  readonly logger?: Logger;
  /** Passed to the OAuth verifier (tests shorten its pauses). */
  readonly verifier?: Omit<OAuthVerifierOptions, 'resourceUrl' | 'logger'>;
}

const UNAUTHORIZED = new HttpError(401, RpcCode.INVALID_REQUEST, 'Unauthorized: a valid bearer token is required', {
  headers: { 'WWW-Authenticate': 'Bearer' },
});
const NO_AUTH: Identity = { principal: null, clientId: null, scopes: undefined, oauth: false };

/**
 * Builds the authenticator for a gateway's `auth` setting. Static tokens are known only by their SHA-256 and are
 * compared first, in constant time; a token that matches none goes to the OAuth verifier when `oauth` is set.
 * @example
 * const auth = createAuthenticator(config.gateway.auth, { resourceUrl: config.gateway.resource_url });
 * const { principal, scopes } = await auth.authenticate(req.headers.authorization);
 */
export function createAuthenticator(auth: AuthConfig | 'none', options: AuthenticatorOptions = {}): Authenticator {
  if (auth === 'none') return { authenticate: async () => NO_AUTH, resource: undefined, warm: async () => undefined };
  const matchToken = createTokenMatcher(tokenHashes(auth.tokens ?? []));
  const identities = staticIdentities(auth.tokens ?? []);
  const oauth = auth.oauth === undefined ? undefined : oauthSide(auth, options);
  const refuse = (tokenError?: OAuthTokenError): HttpError =>
    oauth === undefined ? UNAUTHORIZED : unauthorizedError(oauth.resource.metadataUrl, tokenError);
  return {
    async authenticate(authorization) {
      const token = bearerToken(authorization);
      if (token === undefined) throw refuse();
      const id = matchToken(token);
      if (id !== undefined) return identities.get(id)!;
      if (oauth === undefined) throw refuse();
      try {
        const caller = await oauth.verifier.verify(token);
        return {
          principal: caller.principal,
          clientId: caller.client,
          scopes: caller.scopes,
          oauth: true,
          expiresAtMs: caller.expiresAtMs,
        };
      } catch (err) {
        if (err instanceof OAuthTokenError) throw refuse(err);
        throw err;
      }
    },
    resource: oauth?.resource,
    warm: async () => oauth?.verifier.warm(),
  };
}

function staticIdentities(tokens: readonly TokenConfig[]): Map<string, Identity> {
  const identities = new Map<string, Identity>();
  for (const t of tokens) {
    const scopes = t.scopes === undefined ? undefined : new Set(t.scopes);
    identities.set(t.id, { principal: t.id, clientId: null, scopes, oauth: false });
  }
  return identities;
}

function oauthSide(
  auth: AuthConfig,
  options: AuthenticatorOptions,
): { verifier: OAuthVerifier; resource: ProtectedResource } {
  const resourceUrl = options.resourceUrl;
  // parse-config refuses a config with `auth.oauth` and no `resource_url`; this is a programming error.
  if (resourceUrl === undefined) throw new TypeError("auth.oauth needs the gateway's resource URL");
  const verifier = createOAuthVerifier(auth.oauth!, { ...options.verifier, resourceUrl, logger: options.logger });
  const metadata = protectedResourceMetadata({
    resource: resourceUrl,
    authorizationServers: [auth.oauth!.issuer],
    scopes: options.scopes,
  });
  return {
    verifier,
    resource: {
      metadataUrl: protectedResourceMetadataUrl(resourceUrl),
      metadataPaths: protectedResourceMetadataPaths(resourceUrl),
      metadataJson: JSON.stringify(metadata),
    },
  };
}
