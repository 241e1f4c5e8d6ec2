import { createHash } from 'node:crypto';

/** Hex characters of a {@link sessionDigest}: 64 bits, enough to tell a gateway's sessions apart in its records. */
export const SESSION_DIGEST_CHARS = 16;

/**
 * What logs and audit records say about a session: a short SHA-256 digest of its id, never the id itself, which
 * is a bearer credential (with the token that opened it) for as long as it is valid. The same id always gives the
 * same digest, so one session's records still line up.
 * @example
 * sessionDigest('eyJ….mac'); // '3f1c9a0b2d4e6f81'
 */
export function sessionDigest(sessionId: string): string {
  return createHash('sha256').update(sessionId, 'utf8').digest('hex').slice(0, SESSION_DIGEST_CHARS);
}
