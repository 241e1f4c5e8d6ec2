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

/**
 * Builds the authenticator for a gateway's `auth` setting. Tokens are known only by their SHA-256; the presented
 * token's hash is compared with every configured hash with `timingSafeEqual`, without stopping at a match, so the
 * time taken says nothing about which (or whether a) hash matched.
 */
export function createAuthenticator(auth: GatewaySettings['auth']): Authenticator {
  if (auth === 'none') return { authenticate: () => null };
  const known = auth.tokens.map((t) => ({ id: t.id, hash: Buffer.from(t.sha256, 'hex') }));
  return {
    authenticate(authorization) {
      const token = bearerToken(authorization);
      if (token === undefined) throw UNAUTHORIZED;
      const presented = createHash('sha256').update(token, 'utf8').digest();
      let principal: string | undefined;
      for (const candidate of known) {
        if (timingSafeEqual(presented, candidate.hash) && principal === undefined) principal = candidate.id;
      }
      if (principal === undefined) throw UNAUTHORIZED;
      return principal;
    },
  };
}

function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined || authorization.length < 8) return undefined;
  if (authorization.slice(0, 7).toLowerCase() !== 'bearer ') return undefined;
  const token = authorization.slice(7).trim();
  return token === '' ? undefined : token;
}
