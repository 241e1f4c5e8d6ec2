/**
 * Stateless session ids for the 2025 revisions (SPEC §4): the id is a token signed with HMAC-SHA256 under the
 * gateway's session key, carrying the principal, the protocol version, the client info and the issue time. Any
 * process holding the key serves any session, and sessions survive a restart; nothing per session is stored.
 *
 * Token: `<payload>.<mac>`, both base64url without padding (header-safe: `[A-Za-z0-9_-]` and one `.`).
 * - payload: UTF-8 JSON `[1, principal, protocolVersion, clientName, clientVersion, issuedAtMs, nonce]`; the
 *   nonce is 16 random bytes (base64url) so two sessions opened in the same millisecond differ. No secret inside:
 *   anyone holding the id can read it (it is the client's own data).
 * - mac: HMAC-SHA256(key, `cdktf-mcp-gateway/session/v1.` + payload), compared in constant time.
 *
 * `DELETE` revokes an id in the receiving process only, in a bounded list kept until the id would expire anyway.
 */
import { createHmac, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Principal } from '../auth';
import { cutClientField, type ClientInfo } from './client-info';

/** Longest id `verify` looks at; longer ones are refused before any decoding or hashing. */
export const MAX_SESSION_ID_LENGTH = 2048;

/** How far in the future an issue time may be (clock skew between replicas) before the id is refused. */
export const MAX_CLOCK_SKEW_MS = 60_000;

/** Revoked ids a signer keeps at most. @see SessionSignerOptions.maxRevoked */
export const DEFAULT_MAX_REVOKED = 10_000;

const MAC_DOMAIN = 'cdktf-mcp-gateway/session/v1.';
const FORMAT_VERSION = 1;
/** base64url of a 32-byte HMAC-SHA256, without padding. */
const MAC_LENGTH = 43;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** What a valid session id says. */
export interface SessionData {
  readonly principal: Principal;
  readonly protocolVersion: string;
  readonly client: ClientInfo;
  readonly issuedAtMs: number;
  /** `issuedAtMs + ttlMs` at verification time. */
  readonly expiresAtMs: number;
}

/** What `issue` puts into a token. */
export interface SessionClaims {
  readonly principal: Principal;
  readonly protocolVersion: string;
  readonly clientInfo: ClientInfo;
}

export interface SessionSignerOptions {
  /** The session key: at least 32 bytes (see `loadSessionKey`). */
  readonly key: Buffer;
  /** An id expires this long after it was issued (`session_ttl_ms`). */
  readonly ttlMs: number;
  /** The clock, for tests. @default Date.now */
  readonly now?: () => number;
  /**
   * Revoked ids kept at most. When the list is full, entries already past their expiry are dropped first; if none
   * is, the entry that expires soonest is evicted (that id becomes valid again until its own expiry, which is the
   * nearest of all). @default 10000
   */
  readonly maxRevoked?: number;
}

/** Issues and verifies session ids under one key. */
export interface SessionSigner {
  /** A new session id for these claims. */
  issue(claims: SessionClaims): string;
  /**
   * The session an id stands for, or `undefined` when it is malformed, tampered with, signed with another key,
   * expired, revoked, or presented by another principal than the one that opened it (all look the same).
   */
  verify(id: unknown, principal: Principal): SessionData | undefined;
  /**
   * Ends a session in this process until its expiry. Returns false (and stores nothing) for an id that does not
   * verify for this principal, so a caller cannot fill the list with garbage or with another principal's ids.
   */
  revoke(id: string, principal: Principal): boolean;
  /** Takes the `session_ttl_ms` of a reloaded config (applies to every id, old and new). */
  setTtlMs(ttlMs: number): void;
  /** How many revoked ids are kept right now. */
  readonly revokedCount: number;
}

/**
 * A signer over `key`.
 * @example
 * const signer = createSessionSigner({ key: loadSessionKey({ env: process.env[SESSION_KEY_ENV] }).key, ttlMs: 3_600_000 });
 * const id = signer.issue({ principal: 'ci-bot', protocolVersion: '2025-11-25', clientInfo: { name: 'agent', version: '1.0' } });
 * signer.verify(id, 'ci-bot'); // { principal: 'ci-bot', protocolVersion: '2025-11-25', … }
 */
export function createSessionSigner(options: SessionSignerOptions): SessionSigner {
  if (options.key.length < 32) throw new Error(`session key: ${options.key.length} bytes, at least 32 are needed`);
  checkTtl(options.ttlMs);
  // One KeyObject for the signer's life: cheaper per HMAC than handing over the raw bytes each time.
  const key = createSecretKey(Buffer.from(options.key));
  const now = options.now ?? Date.now;
  const maxRevoked = options.maxRevoked ?? DEFAULT_MAX_REVOKED;
  if (!Number.isSafeInteger(maxRevoked) || maxRevoked < 1)
    throw new Error(`maxRevoked must be a positive integer, got ${maxRevoked}`);
  let ttlMs = options.ttlMs;
  /** mac (unique per id under this key) → expiry. */
  const revoked = new Map<string, number>();

  const macOf = (payload: string): string =>
    createHmac('sha256', key).update(MAC_DOMAIN).update(payload).digest('base64url');

  function decode(id: unknown): SessionData | undefined {
    // Cheap shape checks first: an id of 1 MiB or of the wrong alphabet costs one length test or one linear scan.
    if (typeof id !== 'string' || id.length > MAX_SESSION_ID_LENGTH) return undefined;
    const dot = id.indexOf('.');
    if (dot <= 0 || id.length - dot - 1 !== MAC_LENGTH) return undefined;
    const payload = id.slice(0, dot);
    const mac = id.slice(dot + 1);
    if (!BASE64URL.test(payload) || !BASE64URL.test(mac)) return undefined;
    // Both sides are 43 ASCII bytes; comparing the encoded strings also refuses non-canonical encodings of the mac.
    if (!timingSafeEqual(Buffer.from(macOf(payload), 'latin1'), Buffer.from(mac, 'latin1'))) return undefined;
    const claims = parsePayload(payload);
    if (claims === undefined) return undefined;
    return { ...claims, expiresAtMs: claims.issuedAtMs + ttlMs };
  }

  function verify(id: unknown, principal: Principal): SessionData | undefined {
    const data = decode(id);
    if (data === undefined || data.principal !== principal) return undefined;
    const t = now();
    if (t >= data.expiresAtMs || data.issuedAtMs > t + MAX_CLOCK_SKEW_MS) return undefined;
    if (revoked.has((id as string).slice(-MAC_LENGTH))) return undefined;
    return data;
  }

  return {
    issue: (claims: SessionClaims): string => issueToken(claims, now(), macOf),

    verify,

    revoke(id: string, principal: Principal): boolean {
      const data = verify(id, principal);
      if (data === undefined) return false;
      if (revoked.size >= maxRevoked) makeRoom(revoked, now());
      revoked.set(id.slice(-MAC_LENGTH), data.expiresAtMs);
      return true;
    },

    setTtlMs(next: number): void {
      checkTtl(next);
      ttlMs = next;
    },

    get revokedCount(): number {
      return revoked.size;
    },
  };
}

/** A new id: the claims, the issue time and a nonce, signed with `macOf`. */
function issueToken(claims: SessionClaims, issuedAtMs: number, macOf: (payload: string) => string): string {
  const body: unknown[] = [
    FORMAT_VERSION,
    claims.principal,
    claims.protocolVersion,
    cutClientField(claims.clientInfo.name),
    cutClientField(claims.clientInfo.version),
    issuedAtMs,
    randomBytes(16).toString('base64url'),
  ];
  const payload = Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
  const id = `${payload}.${macOf(payload)}`;
  if (id.length > MAX_SESSION_ID_LENGTH) {
    // Only a principal id or protocol version thousands of characters long gets here: a config/caller bug.
    throw new Error(
      `session id would be ${id.length} characters, over ${MAX_SESSION_ID_LENGTH}: the principal id is too long`,
    );
  }
  return id;
}

/**
 * Drops every expired entry; when none has expired, evicts the one that expires soonest. One pass over the list,
 * and only when it is full.
 */
function makeRoom(revoked: Map<string, number>, now: number): void {
  let soonestKey: string | undefined;
  let soonest = Infinity;
  let dropped = 0;
  for (const [mac, expiresAt] of revoked) {
    if (expiresAt <= now) {
      revoked.delete(mac);
      dropped++;
    } else if (expiresAt < soonest) {
      soonest = expiresAt;
      soonestKey = mac;
    }
  }
  if (dropped === 0 && soonestKey !== undefined) revoked.delete(soonestKey);
}

/** The claims in a payload whose MAC already verified; `undefined` for anything not written by `issue`. */
function parsePayload(payload: string): Omit<SessionData, 'expiresAtMs'> | undefined {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(body) || body.length !== 7 || body[0] !== FORMAT_VERSION) return undefined;
  const [, principal, protocolVersion, name, version, issuedAtMs, nonce] = body as unknown[];
  if (principal !== null && typeof principal !== 'string') return undefined;
  if (typeof protocolVersion !== 'string' || typeof nonce !== 'string') return undefined;
  if (!isNullableString(name) || !isNullableString(version)) return undefined;
  if (typeof issuedAtMs !== 'number' || !Number.isSafeInteger(issuedAtMs) || issuedAtMs < 0) return undefined;
  return { principal, protocolVersion, client: { name, version }, issuedAtMs };
}

function isNullableString(value: unknown): value is string | null {
  return value === null || typeof value === 'string';
}

function checkTtl(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new Error(`session ttlMs must be a positive integer, got ${ttlMs}`);
}
