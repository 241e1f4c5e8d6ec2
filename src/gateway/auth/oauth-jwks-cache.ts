/**
 * The issuer's signing keys, cached. Keys rotate: a token whose `kid` the cache does not hold triggers a refetch,
 * but at most one per cooldown (a minute), so a flood of tokens with made-up `kid`s costs the issuer one request
 * a minute. A failed load is never remembered for long: the next attempt is allowed after a short pause, so the
 * gateway recovers by itself when the issuer is back. While no usable key set is held, every check fails closed.
 */
import type { CryptoKey, JSONWebKeySet, JWSHeaderParameters } from 'jose' with { 'resolution-mode': 'import' };
import { type FetchFunction, type IssuerFetchOptions, IssuerUnavailableError, fetchIssuerJson } from './oauth-fetch';
import { loadJose } from './oauth-jose';

/** Timing and sources of a {@link JwksCache}. */
export interface JwksCacheOptions {
  /** Resolves the JWKS URL (may discover it; called again after a failure). */
  readonly locate: () => Promise<string>;
  readonly fetch: FetchFunction;
  /** Milliseconds since the epoch. @default Date.now */
  readonly now?: () => number;
  /** Least time between two fetches caused by an unknown `kid`. @default 60000 */
  readonly unknownKidCooldownMs?: number;
  /** Least time between a failed load and the next attempt. @default 5000 */
  readonly retryAfterFailureMs?: number;
  /** A key set older than this is fetched again before use. @default 600000 */
  readonly maxAgeMs?: number;
  /** Limits of each fetch. @default - 5 s, 256 KiB */
  readonly fetchLimits?: IssuerFetchOptions;
  /** Told of every load, for the log: `undefined` on success, the one-line reason on failure. */
  readonly onLoad?: (failure: string | undefined) => void;
}

/** The key set holds no key for the token's `kid` (after the refetch the cooldown allowed, if any). */
export class NoMatchingKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoMatchingKeyError';
  }
}

type KeyLookup = (header: JWSHeaderParameters) => Promise<CryptoKey>;

interface KeySet {
  readonly lookup: KeyLookup;
  readonly fetchedAt: number;
}

/** A cached JWKS with rate-limited refetching. */
export class JwksCache {
  private readonly now: () => number;
  private readonly cooldownMs: number;
  private readonly retryMs: number;
  private readonly maxAgeMs: number;
  private keys: KeySet | undefined;
  /** When the last load started, and whether it failed. */
  private lastAttempt: { at: number; failure: string | undefined } | undefined;
  private inFlight: Promise<KeySet> | undefined;
  private loads = 0;

  constructor(private readonly options: JwksCacheOptions) {
    this.now = options.now ?? Date.now;
    this.cooldownMs = options.unknownKidCooldownMs ?? 60_000;
    this.retryMs = options.retryAfterFailureMs ?? 5_000;
    this.maxAgeMs = options.maxAgeMs ?? 600_000;
  }

  /** How many loads were started (each is one JWKS fetch, plus discovery until it has succeeded). */
  get loadCount(): number {
    return this.loads;
  }

  /**
   * The verification key for a token header.
   *
   * @throws IssuerUnavailableError when no usable key set can be had now (fail closed)
   * @throws NoMatchingKeyError when the key set holds no key for the header
   */
  async keyFor(header: JWSHeaderParameters): Promise<CryptoKey> {
    let keys = await this.current();
    try {
      return await this.lookup(keys, header);
    } catch (err) {
      if (!(err instanceof NoMatchingKeyError)) throw err;
      if (!this.mayRefetchForUnknownKid(keys)) throw err;
      keys = await this.load();
      return this.lookup(keys, header);
    }
  }

  /**
   * Resolves once a usable key set is held (loading it if needed).
   * @throws IssuerUnavailableError when none can be had now
   */
  async ready(): Promise<void> {
    await this.current();
  }

  /** Loads the key set now unless a load is allowed only later; never throws (the failure goes to `onLoad`). */
  async warm(): Promise<void> {
    await this.current().catch(() => undefined);
  }

  private async current(): Promise<KeySet> {
    const keys = this.keys;
    if (keys !== undefined && this.now() - keys.fetchedAt < this.maxAgeMs) return keys;
    const last = this.lastAttempt;
    if (this.inFlight === undefined && last?.failure !== undefined && this.now() - last.at < this.retryMs) {
      throw new IssuerUnavailableError(last.failure);
    }
    return this.load();
  }

  private mayRefetchForUnknownKid(keys: KeySet): boolean {
    // A load already under way (started by another request) is shared rather than counted against the cooldown.
    if (this.inFlight !== undefined) return true;
    const since = this.lastAttempt?.at ?? keys.fetchedAt;
    return this.now() - since >= this.cooldownMs;
  }

  private load(): Promise<KeySet> {
    this.inFlight ??= this.fetchKeys().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async fetchKeys(): Promise<KeySet> {
    const at = this.now();
    this.loads += 1;
    this.lastAttempt = { at, failure: undefined };
    try {
      const url = await this.options.locate();
      const doc = await fetchIssuerJson(url, this.options.fetch, this.options.fetchLimits);
      const lookup = await toLookup(url, doc);
      const keys: KeySet = { lookup, fetchedAt: at };
      this.keys = keys;
      this.options.onLoad?.(undefined);
      return keys;
    } catch (err) {
      const failure =
        err instanceof IssuerUnavailableError ? err.message : `the key set could not be loaded: ${String(err)}`;
      this.lastAttempt = { at, failure };
      // Fail closed: a key set that can no longer be refreshed is not used past its age either.
      if (this.keys !== undefined && this.now() - this.keys.fetchedAt >= this.maxAgeMs) this.keys = undefined;
      this.options.onLoad?.(failure);
      throw new IssuerUnavailableError(failure);
    }
  }

  private async lookup(keys: KeySet, header: JWSHeaderParameters): Promise<CryptoKey> {
    const jose = await loadJose();
    try {
      return await keys.lookup(header);
    } catch (err) {
      if (err instanceof jose.errors.JWKSNoMatchingKey) {
        throw new NoMatchingKeyError(
          header.kid === undefined
            ? 'no key of the issuer matches the token'
            : "no key of the issuer matches the token's kid",
        );
      }
      if (err instanceof jose.errors.JWKSMultipleMatchingKeys) {
        throw new NoMatchingKeyError('the token has no kid and several keys of the issuer could match');
      }
      throw err;
    }
  }
}

async function toLookup(url: string, doc: unknown): Promise<KeyLookup> {
  const jose = await loadJose();
  try {
    return jose.createLocalJWKSet(doc as JSONWebKeySet);
  } catch {
    throw new IssuerUnavailableError(`${url}: the body is not a JSON Web Key Set`);
  }
}
