import { createHash, timingSafeEqual } from 'node:crypto';
import { VerifiedCache, type VerifiedCacheOptions } from './verified-cache';

/** Who made a request: the token id, the OAuth principal claim, or `null` when authentication is off. */
export type Principal = string | null;

/** Which kind of credential named a principal: a static token or an OAuth access token (audit `auth`). */
export type PrincipalKind = 'token' | 'oauth';

/** The longest principal name accepted (a token id, an OAuth `sub` or `principalClaim`), in UTF-16 code units. */
export const MAX_PRINCIPAL_CHARS = 256;

/** The kind of a principal (audit `auth`), `null` with authentication off. */
export function principalKind(identity: {
  readonly principal: Principal;
  readonly oauth: boolean;
}): PrincipalKind | null {
  if (identity.principal === null) return null;
  return identity.oauth ? 'oauth' : 'token';
}

/**
 * A principal as one string: its kind and its name (`token:ci-bot`, `oauth:ci-bot`), `null` with authentication
 * off. Sessions, stream caps and revocations are keyed by it, so an OAuth subject named like a static token id is
 * another principal.
 */
export function principalKey(identity: { readonly principal: Principal; readonly oauth: boolean }): Principal {
  if (identity.principal === null) return null;
  const kind: PrincipalKind = identity.oauth ? 'oauth' : 'token';
  return `${kind}:${identity.principal}`;
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

/**
 * {@link matchTokenHash} over `known` that remembers the tokens that matched (bounded, see {@link VerifiedCache}),
 * so a client's token is hashed once rather than per request. A token that matches nothing is never remembered
 * and costs the full constant-time comparison every time. Build a new matcher when the token list changes.
 */
export function createTokenMatcher(
  known: readonly TokenHash[],
  cache?: VerifiedCacheOptions,
): (token: string) => string | undefined {
  const verified = new VerifiedCache<string>(cache);
  return (token) => {
    // Static tokens do not expire; the matcher lives as long as the token list it was built from.
    const remembered = verified.get(token, 0);
    if (remembered !== undefined) return remembered;
    const id = matchTokenHash(token, known);
    if (id !== undefined) verified.set(token, id, Infinity);
    return id;
  };
}

/** The token of an `Authorization: Bearer …` header, or `undefined` when there is none. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined || authorization.length < 8) return undefined;
  if (authorization.slice(0, 7).toLowerCase() !== 'bearer ') return undefined;
  const token = authorization.slice(7).trim();
  return token === '' ? undefined : token;
}
