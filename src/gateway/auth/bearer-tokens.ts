import { createHash, timingSafeEqual } from 'node:crypto';

/** Who made a request: the token id, the OAuth principal claim, or `null` when authentication is off. */
export type Principal = string | null;

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

/** The token of an `Authorization: Bearer …` header, or `undefined` when there is none. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined || authorization.length < 8) return undefined;
  if (authorization.slice(0, 7).toLowerCase() !== 'bearer ') return undefined;
  const token = authorization.slice(7).trim();
  return token === '' ? undefined : token;
}
