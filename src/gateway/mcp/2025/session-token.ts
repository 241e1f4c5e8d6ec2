/**
 * Stateless session ids for the 2025 revisions (see docs/gateway.md): the id is a token signed with HMAC-SHA256 under the
 * gateway's session key, carrying the principal, the protocol version, the client info and the issue time. Any
 * process holding the key serves any session, and sessions survive a restart; nothing per session is stored.
 *
 * Token: `<payload>.<mac>`, both base64url without padding (header-safe: `[A-Za-z0-9_-]` and one `.`).
 * - payload: UTF-8 JSON `[1, principal, protocolVersion, clientName, clientVersion, issuedAtMs, nonce]`; the
 *   nonce is 16 random bytes (base64url) so two sessions opened in the same millisecond differ. No secret inside:
 *   anyone holding the id can read it (it is the client's own data).
 * - mac: HMAC-SHA256(key, `cdktf-mcp-gateway/session/v2.` + JSON(gateway name) + `.` + payload), compared in
 *   constant time. The gateway's name is signed in, so two gateways given the same key still refuse each other's
 *   ids.
 * - principal: the caller's principal key (its kind and its name, {@link principalKey}), so an OAuth subject
 *   named like a static token id never holds that token's sessions.
 *
 * `DELETE` revokes an id in the receiving process, in a list bounded per principal and in total, kept until the id
 * would expire anyway. A principal over its share is refused (HTTP 429): no entry that has not expired is ever
 * evicted, so one principal cannot make another's revoked id valid again. With a shared store, ids ended on any
 * replica reach every replica's mirror (`remember`) instead (see `session-revocations.ts`).
 */
import { createHmac, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';
import { DEFAULT_MAX_REVOKED_SESSIONS_PER_PRINCIPAL } from '../../../config/defaults';
import type { Principal } from '../../auth';
import { VerifiedCache, type VerifiedCacheOptions } from '../../auth/verified-cache';
import { cutClientField, type ClientInfo } from '../shared/client-info';

/** Longest id `verify` looks at; longer ones are refused before any decoding or hashing. */
export const MAX_SESSION_ID_LENGTH = 8192;

/** How far in the future an issue time may be (clock skew between replicas) before the id is refused. */
export const MAX_CLOCK_SKEW_MS = 60_000;

/** Revoked ids a signer keeps at most, all principals together. @see SessionSignerOptions.maxRevoked */
export const DEFAULT_MAX_REVOKED = 200_000;

/** Revoked ids a signer keeps at most for one principal (the config's default). @see SessionSignerOptions.maxRevokedPerPrincipal */
export const DEFAULT_MAX_REVOKED_PER_PRINCIPAL = DEFAULT_MAX_REVOKED_SESSIONS_PER_PRINCIPAL;

/** Ids ended through the shared store that a signer mirrors at most (all principals, until each expires). */
export const MAX_MIRRORED_REVOCATIONS = 1_000_000;

const MAC_DOMAIN = 'cdktf-mcp-gateway/session/v2.';
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
   * The gateway's name, signed into every id: a gateway refuses the ids of another gateway holding the same key.
   * @default ''
   */
  readonly gateway?: string;
  /**
   * Revoked ids kept at most, all principals together. When full, entries past their expiry are dropped; if none
   * is, the revocation is refused (`'full'`), never a live entry evicted. @default 200000
   */
  readonly maxRevoked?: number;
  /** Revoked ids kept at most for one principal; over it, `revoke` answers `'full'`. @default 20000 */
  readonly maxRevokedPerPrincipal?: number;
  /**
   * Bounds of the memory of ids whose MAC already verified (so a client's id is hashed once, not per request).
   * @default - 10000 ids, 4000000 characters of ids
   */
  readonly verifiedCache?: VerifiedCacheOptions;
}

/**
 * What `revoke` did: `'revoked'`; `'unknown'` for an id that does not verify for this principal (nothing stored);
 * `'full'` when the principal's share (or the whole list) holds only live entries (nothing stored: HTTP 429).
 */
export type RevokeResult = 'revoked' | 'unknown' | 'full';

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
   * Ends a session in this process until its expiry. Stores nothing for an id that does not verify for this
   * principal, so a caller cannot fill the list with garbage or with another principal's ids, nor past its share.
   */
  revoke(id: string, principal: Principal): RevokeResult;
  /**
   * What ending this session through the shared store records (the id's MAC, unique under the key, and its
   * expiry), or `undefined` for an id that does not verify for this principal.
   */
  revocationOf(id: string, principal: Principal): { readonly mac: string; readonly expiresAtMs: number } | undefined;
  /**
   * Refuses the id with this MAC until `expiresAtMs` (a session ended through the shared store, on any replica).
   * Returns false, keeping nothing, when `MAX_MIRRORED_REVOCATIONS` live entries are held already.
   */
  remember(mac: string, expiresAtMs: number): boolean;
  /** Takes the `session_ttl_ms` of a reloaded config (applies to every id, old and new). */
  setTtlMs(ttlMs: number): void;
  /** How many revoked ids are kept right now (this process's list and the shared store's mirror). */
  readonly revokedCount: number;
  /** The per-principal share of the revocation list. */
  readonly maxRevokedPerPrincipal: number;
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
  const maxRevoked = positiveInteger('maxRevoked', options.maxRevoked ?? DEFAULT_MAX_REVOKED);
  const maxPerPrincipal = positiveInteger(
    'maxRevokedPerPrincipal',
    options.maxRevokedPerPrincipal ?? DEFAULT_MAX_REVOKED_PER_PRINCIPAL,
  );
  let ttlMs = options.ttlMs;
  const revoked = new RevocationList(maxRevoked, maxPerPrincipal);
  // ids of every principal in one list: the store already checked who ended them
  const mirrored = new RevocationList(MAX_MIRRORED_REVOCATIONS, MAX_MIRRORED_REVOCATIONS);
  const domain = `${MAC_DOMAIN}${JSON.stringify(options.gateway ?? '')}.`;
  // Decoded ids by their exact string, until their expiry; principal, expiry and revocation are checked per call.
  const verified = new VerifiedCache<SessionData>(options.verifiedCache);

  const macOf = (payload: string): string =>
    createHmac('sha256', key).update(domain).update(payload).digest('base64url');

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
    const t = now();
    let data = typeof id === 'string' ? verified.get(id, t) : undefined;
    if (data === undefined) {
      data = decode(id);
      if (data !== undefined) verified.set(id as string, data, data.expiresAtMs);
    }
    if (data === undefined || data.principal !== principal) return undefined;
    if (t >= data.expiresAtMs || data.issuedAtMs > t + MAX_CLOCK_SKEW_MS) return undefined;
    const mac = (id as string).slice(-MAC_LENGTH);
    if (revoked.has(principal, mac) || mirrored.has(ANY_PRINCIPAL, mac)) return undefined;
    return data;
  }

  return {
    issue: (claims: SessionClaims): string => issueToken(claims, now(), macOf),

    verify,

    revoke(id: string, principal: Principal): RevokeResult {
      const data = verify(id, principal);
      if (data === undefined) return 'unknown';
      return revoked.add(principal, id.slice(-MAC_LENGTH), data.expiresAtMs, now()) ? 'revoked' : 'full';
    },

    revocationOf(id: string, principal: Principal) {
      const data = verify(id, principal);
      return data === undefined ? undefined : { mac: id.slice(-MAC_LENGTH), expiresAtMs: data.expiresAtMs };
    },

    remember(mac: string, expiresAtMs: number): boolean {
      const t = now();
      // an expired id is refused anyway
      return expiresAtMs <= t || mirrored.add(ANY_PRINCIPAL, mac, expiresAtMs, t);
    },

    setTtlMs(next: number): void {
      checkTtl(next);
      ttlMs = next;
      verified.clear(); // remembered ids carry the old expiry
    },

    get revokedCount(): number {
      return revoked.size + mirrored.size;
    },

    maxRevokedPerPrincipal: maxPerPrincipal,
  };
}

/**
 * Revoked ids (their macs) per principal, each kept until its expiry. Bounded per principal and in total; when a
 * list is full only expired entries make room — a live entry is never evicted, so an id revoked once stays revoked.
 */
class RevocationList {
  /** principal → (mac, unique per id under this key → expiry). */
  private readonly byPrincipal = new Map<Principal, Map<string, number>>();
  private total = 0;
  /** No entry expires before this: a full list is scanned for expired entries only once one may have. */
  private soonestExpiry = Infinity;

  constructor(
    private readonly max: number,
    private readonly maxPerPrincipal: number,
  ) {}

  get size(): number {
    return this.total;
  }

  has(principal: Principal, mac: string): boolean {
    return this.byPrincipal.get(principal)?.has(mac) === true;
  }

  /**
   * Stores the mac (a mac held already stays as it is), or returns false when the principal's share (or the whole
   * list) holds only live entries.
   */
  add(principal: Principal, mac: string, expiresAtMs: number, now: number): boolean {
    const own = this.byPrincipal.get(principal);
    if (own?.has(mac) === true) return true;
    // a full share is scanned only once some entry may have expired
    if (own !== undefined && own.size >= this.maxPerPrincipal && this.soonestExpiry <= now)
      this.prune(principal, own, now);
    if (this.total >= this.max && this.soonestExpiry <= now) {
      this.soonestExpiry = Infinity;
      for (const [p, list] of [...this.byPrincipal]) this.prune(p, list, now);
    }
    let list = this.byPrincipal.get(principal);
    if ((list?.size ?? 0) >= this.maxPerPrincipal || this.total >= this.max) return false;
    if (list === undefined) {
      list = new Map();
      this.byPrincipal.set(principal, list);
    }
    list.set(mac, expiresAtMs);
    this.total++;
    this.soonestExpiry = Math.min(this.soonestExpiry, expiresAtMs);
    return true;
  }

  /** Drops the expired entries of one principal's list (and the list once empty). */
  private prune(principal: Principal, list: Map<string, number>, now: number): void {
    for (const [mac, expiresAt] of list) {
      if (expiresAt > now) {
        this.soonestExpiry = Math.min(this.soonestExpiry, expiresAt);
        continue;
      }
      list.delete(mac);
      this.total--;
    }
    if (list.size === 0) this.byPrincipal.delete(principal);
  }
}

/** The key of the mirror's one list (`RevocationList` per principal, used here for all of them). */
const ANY_PRINCIPAL: Principal = null;

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
    // Principals are at most 256 characters and client fields 128, so only a programming error gets here.
    throw new Error(
      `session id would be ${id.length} characters, over ${MAX_SESSION_ID_LENGTH}: the principal id is too long`,
    );
  }
  return id;
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

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${value}`);
  return value;
}

function checkTtl(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new Error(`session ttlMs must be a positive integer, got ${ttlMs}`);
}
