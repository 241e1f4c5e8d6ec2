/**
 * The refusals of an OAuth-protected gateway (see docs/auth.md; RFC 6750 §3, MCP authorization): 401 with
 * `WWW-Authenticate: Bearer resource_metadata="…"` (plus `error` and `error_description` when a token was sent),
 * 403 `insufficient_scope` naming the scope a call needs.
 */
import { HttpError } from '../errors/http-error';
import { RpcCode } from '../errors/jsonrpc';
import type { OAuthTokenError } from './oauth-verifier';

/** The `error` codes of RFC 6750 §3.1. */
export type BearerErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

/** The parameters of a `Bearer` challenge. */
export interface BearerChallenge {
  /** The RFC 9728 metadata URL (see `protectedResourceMetadataUrl`). @default - none (a gateway without OAuth) */
  readonly resourceMetadataUrl?: string;
  /** @default - none (no token was sent) */
  readonly error?: BearerErrorCode;
  /** @default - none */
  readonly description?: string;
  /** Scopes, space-separated or as a list. @default - none */
  readonly scope?: string | readonly string[];
}

/**
 * Builds a `WWW-Authenticate` value: `Bearer resource_metadata="…", error="…", error_description="…", scope="…"`
 * (the optional parameters only when given). Values are quoted strings: `"` and `\` are escaped (RFC 9110
 * §5.6.4) and anything outside printable ASCII becomes `?`, so no value can end the header or add a line.
 * @example
 * wwwAuthenticate({ resourceMetadataUrl: 'https://gw/.well-known/oauth-protected-resource/mcp', error: 'invalid_token', description: 'the token has expired' });
 */
export function wwwAuthenticate(challenge: BearerChallenge): string {
  const params: string[] = [];
  if (challenge.resourceMetadataUrl !== undefined)
    params.push(`resource_metadata=${quoted(challenge.resourceMetadataUrl)}`);
  if (challenge.error !== undefined) params.push(`error=${quoted(challenge.error)}`);
  if (challenge.description !== undefined) params.push(`error_description=${quoted(challenge.description)}`);
  if (challenge.scope !== undefined) {
    const scope = typeof challenge.scope === 'string' ? challenge.scope : challenge.scope.join(' ');
    params.push(`scope=${quoted(scope)}`);
  }
  return `Bearer ${params.join(', ')}`;
}

function quoted(value: string): string {
  return `"${value.replace(/[^\x20-\x7E]/g, '?').replace(/["\\]/g, '\\$&')}"`;
}

/**
 * The 401 for a request without a usable bearer token: no token (`tokenError` undefined) gets the bare challenge,
 * a refused token gets `error="invalid_token"` and its description.
 * @example
 * throw unauthorizedError(metadataUrl, err instanceof OAuthTokenError ? err : undefined);
 */
export function unauthorizedError(resourceMetadataUrl: string, tokenError?: OAuthTokenError): HttpError {
  const message =
    tokenError === undefined
      ? 'Unauthorized: a valid bearer token is required'
      : `Unauthorized: ${tokenError.description}`;
  const header =
    tokenError === undefined
      ? wwwAuthenticate({ resourceMetadataUrl })
      : wwwAuthenticate({ resourceMetadataUrl, error: tokenError.error, description: tokenError.description });
  return new HttpError(401, RpcCode.INVALID_REQUEST, message, { headers: { 'WWW-Authenticate': header } });
}

/**
 * The 403 for a caller whose token lacks a scope a call needs. `missing` are the scopes it lacks (named in the
 * message), `required` all the scopes the call needs (the challenge's `scope`, so the agent can ask for them
 * in one go). Without OAuth (static tokens with scopes) `resourceMetadataUrl` is `undefined` and the challenge
 * has no `resource_metadata`.
 * @example
 * const missing = missingScopes(required, caller.scopes);
 * if (missing.length > 0) throw insufficientScopeError(metadataUrl, missing, required);
 */
export function insufficientScopeError(
  resourceMetadataUrl: string | undefined,
  missing: readonly string[],
  required: readonly string[] = missing,
  id: string | number | null = null,
): HttpError {
  const names = missing.map((s) => JSON.stringify(s)).join(', ');
  const description = `the call needs scope ${names}`;
  const header = wwwAuthenticate({ resourceMetadataUrl, error: 'insufficient_scope', description, scope: required });
  return new HttpError(403, RpcCode.INVALID_REQUEST, `Forbidden: ${description}`, {
    headers: { 'WWW-Authenticate': header },
    id,
  });
}
