import { createHash, timingSafeEqual } from 'node:crypto';
import type { GatewaySettings } from '../../contract/gateway-config';
import { HttpError } from '../http/http-error';
import { RpcCode } from '../mcp/jsonrpc';

/** Who made a request: the token id, or `null` when authentication is off. */
export type Principal = string | null;

/** Resolves the bearer token of a request to its principal, or refuses with HTTP 401. */
export interface Authenticator {
  authenticate(authorization: string | undefined): Principal;
}

const UNAUTHORIZED = new HttpError(401, RpcCode.UNAUTHORIZED, 'Unauthorized: a valid bearer token is required', {
  'WWW-Authenticate': 'Bearer',
});

/** Builds the authenticator for a gateway's `auth` setting: tokens known only by their SHA-256. */
export function createAuthenticator(auth: GatewaySettings['auth']): Authenticator {
  if (auth === 'none') return { authenticate: () => null };
  const known = tokenHashes(auth.tokens);
  return {
    authenticate(authorization) {
      const token = bearerToken(authorization);
      const principal = token === undefined ? undefined : matchTokenHash(token, known);
      if (principal === undefined) throw UNAUTHORIZED;
      return principal;
    },
  };
}

/** Configured tokens as the hashes {@link matchTokenHash} compares. */
export function tokenHashes(tokens: readonly { readonly id: string; readonly sha256: string }[]): TokenHash[] {
  return tokens.map((t) => ({ id: t.id, hash: Buffer.from(t.sha256, 'hex') }));
}

/** A configured token by its id and its SHA-256. */
export interface TokenHash {
  readonly id: string;
  readonly hash: Buffer;
}

/**
 * The id of the configured token `token` is, or `undefined`. Its hash is compared with every configured hash with
 * `timingSafeEqual`, without stopping at a match, so the time taken says nothing about which (or whether a) hash
 * matched.
 */
export function matchTokenHash(token: string, known: readonly TokenHash[]): string | undefined {
  const presented = createHash('sha256').update(token, 'utf8').digest();
  let id: string | undefined;
  for (const candidate of known) {
    if (timingSafeEqual(presented, candidate.hash) && id === undefined) id = candidate.id;
  }
  return id;
}

function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined || authorization.length < 8) return undefined;
  if (authorization.slice(0, 7).toLowerCase() !== 'bearer ') return undefined;
  const token = authorization.slice(7).trim();
  return token === '' ? undefined : token;
}
