/**
 * A bounded memory of credentials that already verified, keyed by the exact string a client sent (a session id, a
 * bearer token). A client sends the same credential with every request, so the HMAC of its session id and the
 * SHA-256 of its token need to be computed once, not per call.
 *
 * What it remembers is only ever the outcome of a successful verification: a string that failed is never stored,
 * so garbage costs what it cost before and takes no room. Each entry carries the time it stops being valid and is
 * never returned at or after it. Memory is bounded whatever clients send: at most `maxEntries` entries and
 * `maxKeyChars` characters of keys together; when either is reached the least recently used entry makes room (an
 * evicted credential is simply verified again on its next use). Checks that can change while a credential is
 * remembered (revocation lists, the principal presenting it) stay with the caller, who runs them on every request.
 */

import { LRUCache } from 'lru-cache';

/** Entries a cache keeps at most. @see VerifiedCacheOptions.maxEntries */
export const DEFAULT_VERIFIED_CACHE_ENTRIES = 10_000;

/** Characters of keys a cache keeps at most, all entries together. @see VerifiedCacheOptions.maxKeyChars */
export const DEFAULT_VERIFIED_CACHE_KEY_CHARS = 4_000_000;

export interface VerifiedCacheOptions {
  /** Entries kept at most; the least recently used is dropped to make room. @default 10000 */
  readonly maxEntries?: number;
  /**
   * Characters of keys kept at most, all entries together (a key longer than this is never stored).
   * @default 4000000
   */
  readonly maxKeyChars?: number;
}

interface Entry<V> {
  readonly value: V;
  readonly expiresAtMs: number;
}

/**
 * Verified values by the exact credential string, bounded in entries and key characters, each until its expiry.
 * `lru-cache` keeps the bounds (the least recently used entry makes room); the expiry is checked here, against the
 * caller's clock, so that a lookup at `nowMs` never returns a value past its time.
 * @example
 * const cache = new VerifiedCache<SessionData>();
 * let data = cache.get(id, Date.now());
 * if (data === undefined) {
 *   data = verifySlowly(id);
 *   if (data !== undefined) cache.set(id, data, data.expiresAtMs);
 * }
 */
export class VerifiedCache<V> {
  private readonly entries: LRUCache<string, Entry<V>>;

  constructor(options: VerifiedCacheOptions = {}) {
    const maxKeyChars = positiveInteger('maxKeyChars', options.maxKeyChars ?? DEFAULT_VERIFIED_CACHE_KEY_CHARS);
    this.entries = new LRUCache<string, Entry<V>>({
      max: positiveInteger('maxEntries', options.maxEntries ?? DEFAULT_VERIFIED_CACHE_ENTRIES),
      maxSize: maxKeyChars,
      sizeCalculation: (_entry, key) => Math.max(1, key.length),
    });
  }

  /** How many entries are kept right now (expired ones included until they are looked up or evicted). */
  get size(): number {
    return this.entries.size;
  }

  /** Characters of all keys kept right now. */
  get keyCharCount(): number {
    return this.entries.calculatedSize;
  }

  /** The value remembered for exactly `key`, or `undefined` when there is none or it has expired at `nowMs`. */
  get(key: string, nowMs: number): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (nowMs >= entry.expiresAtMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /**
   * Remembers `value` for `key` until `expiresAtMs` (ms since the epoch; `Infinity` for a credential that does not
   * expire by itself). Call it only after `key` verified. A key longer than `maxKeyChars` is not stored.
   */
  set(key: string, value: V, expiresAtMs: number): void {
    this.entries.set(key, { value, expiresAtMs });
  }

  /** Forgets everything (a changed key, token list or lifetime makes every remembered outcome stale). */
  clear(): void {
    this.entries.clear();
  }
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new Error(`verified cache: ${name} must be a positive integer, got ${value}`);
  return value;
}
