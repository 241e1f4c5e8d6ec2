import { createHash } from 'node:crypto';
import { VerifiedCache } from '../auth/verified-cache';

/** Hex characters of a {@link sessionDigest}: 64 bits, enough to tell a gateway's sessions apart in its records. */
export const SESSION_DIGEST_CHARS = 16;

// Every call of a session writes its digest into the audit record: computed once per id, not per call. Only ids
// that verified reach here; the cache is bounded in entries and characters whatever clients send.
const digests = new VerifiedCache<string>({ maxEntries: 10_000, maxKeyChars: 4_000_000 });

/**
 * What logs and audit records say about a session: a short SHA-256 digest of its id, never the id itself, which
 * is a bearer credential (with the token that opened it) for as long as it is valid. The same id always gives the
 * same digest, so one session's records still line up.
 * @example
 * sessionDigest('eyJ….mac'); // '3f1c9a0b2d4e6f81'
 */
export function sessionDigest(sessionId: string): string {
  let digest = digests.get(sessionId, 0);
  if (digest === undefined) {
    digest = createHash('sha256').update(sessionId, 'utf8').digest('hex').slice(0, SESSION_DIGEST_CHARS);
    // A digest never goes stale: it is a function of the id alone.
    digests.set(sessionId, digest, Infinity);
  }
  return digest;
}
