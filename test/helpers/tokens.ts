/**
 * Bearer tokens for tests: the gateway config holds only the SHA-256 hash of a token (docs/gateway.md), the caller
 * sends the token itself.
 */
import { createHash, randomBytes } from 'node:crypto';

/** A token as a test needs it: what the caller sends and what the config holds. */
export interface TestToken {
  /** The principal id written to the audit log. */
  readonly id: string;
  /** The secret the caller sends as `Authorization: Bearer <token>`. */
  readonly token: string;
  /** Lowercase hex SHA-256 of `token`, as `auth.tokens[].sha256` in the gateway config. */
  readonly sha256: string;
}

/** Lowercase hex SHA-256 of a string (UTF-8). */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Makes a token for the principal `id`: a fresh random one unless `token` is given.
 * @example
 * const bot = makeToken('support-bot');
 * config.gateway.auth = { tokens: [{ id: bot.id, sha256: bot.sha256 }] };
 */
export function makeToken(id = 'test-bot', token = `tok_${randomBytes(24).toString('base64url')}`): TestToken {
  return { id, token, sha256: sha256Hex(token) };
}

/** The `{ id, sha256 }` entry of a token for `gateway.auth.tokens`. */
export function tokenEntry(t: TestToken): { id: string; sha256: string } {
  return { id: t.id, sha256: t.sha256 };
}

/** The principal `bot` of the in-process gateway tests; its token is fixed so a test can also write it inline. */
export const BOT: TestToken = makeToken('bot', 'test-token-1');
/** The principal `other`, for what one principal must not see of another. */
export const OTHER: TestToken = makeToken('other', 'test-token-2');
