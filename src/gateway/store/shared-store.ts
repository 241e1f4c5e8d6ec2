/**
 * The Redis (or Valkey) server that a gateway's replicas share rate limits and ended sessions through
 * (`gateway.store`, see docs/rate-limits.md). Every command is bounded by `timeout_ms`; while the server cannot be
 * reached the store reports itself unavailable at once (no call waits on it), logs one line per outage, probes in
 * the background and recovers by itself.
 */
import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import {
  DEFAULT_STORE_ON_UNAVAILABLE,
  DEFAULT_STORE_TIMEOUT_MS,
  auditIndexKey,
  storeErrorReason,
  storeKeyPrefix,
  type StoreConfig,
} from '../../config';
import type { Logger } from '../log/logger';
import { AUDIT_SCRIPT } from './audit-script';
import { LIMIT_SCRIPT } from './limit-script';

/** Thrown by a store operation while the store cannot answer in time; the caller falls back as configured. */
export class StoreUnavailableError extends Error {
  constructor(reason: string) {
    super(`the limit store is unavailable: ${reason}`);
    this.name = 'StoreUnavailableError';
  }
}

/** What a store outage changes, for `/metrics` and `/readyz`. */
export interface StoreObserver {
  availability(available: boolean): void;
}

/** One limit as the script counts it: its key, its window and its count. */
export interface StoreLimit {
  readonly key: string;
  readonly windowMs: number;
  readonly calls: number;
}

/**
 * A call's answer: `[1, 0, 0]` when the call was counted, `[0, index, retryAfterMs]` when limit `index`
 * (1-based) refused it and nothing was counted.
 */
export type LimitReply = readonly [number, number, number];

/** Ended sessions as the store passes them between replicas: the id's MAC and the id's expiry. */
export type RevokedListener = (mac: string, expiresAtMs: number) => void;

const PROBE_INTERVAL_MS = 500;

/** Ended sessions read from the store per command (a hint to `ZSCAN`), each page well within `timeout_ms`. */
const REVOKED_PAGE = 1_000;

/** The client's errors that mean the store did not answer (any other is an answer: a refusal, a script error). */
const OUTAGE = /timed out|writeable|Connection is closed|max retries per request|ECONN|ETIMEDOUT|EPIPE/i;

type RedisWithLimit = RedisClient & {
  limit(numKeys: number, ...args: (string | number)[]): Promise<number[]>;
  audit(numKeys: number, ...args: (string | number)[]): Promise<[number, string]>;
};

/** The most calls counted by one script invocation (more in one event-loop turn start another batch). */
const MAX_CALLS_PER_BATCH = 256;

const COUNTED: LimitReply = [1, 0, 0];

interface PendingCall {
  readonly limits: readonly StoreLimit[];
  readonly resolve: (reply: LimitReply) => void;
  readonly reject: (err: unknown) => void;
}

/** Records kept per replica stream (approximately: the store trims whole blocks). */
export const AUDIT_STREAM_MAX_RECORDS = 100_000;
/** How long a replica's stream outlives its last record, in seconds: a day past the dashboard's default window. */
export const AUDIT_STREAM_TTL_SECONDS = 8 * 86_400;

export class SharedStore {
  /** Every key and channel of this gateway starts with it: gateways sharing a server stay apart. */
  readonly prefix: string;
  /** Where the dashboard finds every replica's audit stream. */
  private readonly auditIndex: string;
  readonly onUnavailable: 'allow' | 'refuse';
  readonly timeoutMs: number;
  private readonly client: RedisWithLimit;
  private subscriber: RedisClient | undefined;
  private up = false;
  private outageReason: string | undefined = 'not connected yet';
  private probe: NodeJS.Timeout | undefined;
  private closed = false;
  /** Calls waiting for the end of this event-loop turn, to be counted by one script invocation. */
  private pending: PendingCall[] | undefined;
  /** Waiting for the store to answer (`connected`, {@link whenUp}): each called once, at the next connection. */
  private readonly waiters: (() => void)[] = [];
  /** Called at every recovery (`onRecovery`). */
  private readonly recoveryHooks: (() => void)[] = [];
  private readonly options: { readonly url: string; readonly password: string | undefined };

  constructor(
    config: StoreConfig,
    password: string | undefined,
    gateway: string,
    private readonly log: Logger,
    private readonly observer?: StoreObserver,
  ) {
    this.prefix = storeKeyPrefix(gateway);
    this.auditIndex = auditIndexKey(gateway);
    this.onUnavailable = config.on_unavailable ?? DEFAULT_STORE_ON_UNAVAILABLE;
    this.timeoutMs = config.timeout_ms ?? DEFAULT_STORE_TIMEOUT_MS;
    this.client = newClient(config.url, password, this.timeoutMs) as RedisWithLimit;
    this.client.defineCommand('limit', { lua: LIMIT_SCRIPT });
    this.client.defineCommand('audit', { lua: AUDIT_SCRIPT });
    this.client.on('ready', () => this.markUp());
    this.client.on('error', (err: Error) => this.markDown(err.message));
    this.client.on('close', () => this.markDown('the connection closed'));
    this.options = { url: config.url, password };
  }

  /** Whether the last command answered (calls skip the store while it is not). */
  get available(): boolean {
    return this.up;
  }

  /** Waits up to `ms` for the first connection; the gateway serves either way (falling back while it is down). */
  async connected(ms: number): Promise<boolean> {
    if (this.up) return true;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      this.waiters.push(done);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
    });
    return this.up;
  }

  /**
   * Counts a call against `limits` atomically on the store's clock, or refuses it. The calls of one event-loop turn
   * share one script invocation (one round trip), counted in the order they came.
   * @throws StoreUnavailableError when the store is down or does not answer within `timeout_ms`
   */
  countCall(limits: readonly StoreLimit[]): Promise<LimitReply> {
    if (!this.up) return Promise.reject(this.outage());
    return new Promise<LimitReply>((resolve, reject) => {
      if (this.pending === undefined) {
        this.pending = [];
        setImmediate(() => this.countPending());
      }
      this.pending.push({ limits, resolve, reject });
      if (this.pending.length >= MAX_CALLS_PER_BATCH) this.countPending();
    });
  }

  /**
   * Sends the waiting calls in one script invocation: each distinct counter once, then each run of consecutive
   * calls with the same limits (the same array: the rate limiter keeps one per principal and tool) as its length,
   * the indexes of its counters and their counts. The reply lists the calls not admitted; every other was counted.
   */
  private countPending(): void {
    const calls = this.pending;
    this.pending = undefined;
    if (calls === undefined) return;
    // key → the indexes of its counters (one per window; in practice a key names one window): looked up by the key
    // itself, whose hash the string keeps, never by a string built per call
    const counters = new Map<string, number[]>();
    const keys: string[] = [];
    const windows: number[] = [];
    const args: number[] = [];
    for (let c = 0; c < calls.length;) {
      const limits = calls[c].limits;
      let run = 1;
      while (c + run < calls.length && calls[c + run].limits === limits) run++;
      args.push(run, limits.length);
      for (const l of limits) {
        const indexes = counters.get(l.key);
        let index = indexes?.find((i) => windows[i - 1] === l.windowMs);
        if (index === undefined) {
          index = keys.push(l.key);
          windows.push(l.windowMs);
          if (indexes === undefined) counters.set(l.key, [index]);
          else indexes.push(index);
        }
        args.push(index, l.calls);
      }
      c += run;
    }
    this.run(() => this.client.limit(keys.length, ...keys, ...windows, ...args)).then(
      (reply) => {
        const answers: (LimitReply | undefined)[] = new Array(calls.length);
        for (let r = 0; r + 4 < reply.length; r += 5) {
          const answer: LimitReply = [reply[r + 2], reply[r + 3], reply[r + 4]];
          answers.fill(answer, reply[r] - 1, reply[r] - 1 + reply[r + 1]);
        }
        calls.forEach((c, i) => {
          const answer = answers[i] ?? COUNTED;
          if (answer[0] === -1)
            c.reject(new Error(`the limit store holds no count for limit ${answer[1]} of this call`));
          else c.resolve(answer);
        });
      },
      (err: unknown) => calls.forEach((c) => c.reject(err)),
    );
  }

  /**
   * Records an ended session until its expiry and tells every replica.
   * @throws StoreUnavailableError as `countCall`
   */
  async revoke(mac: string, expiresAtMs: number): Promise<void> {
    const key = `${this.prefix}revoked`;
    await this.run(() =>
      this.client
        .multi()
        .zadd(key, expiresAtMs, mac)
        .zremrangebyscore(key, '-inf', Date.now())
        .publish(key, `${mac} ${expiresAtMs}`)
        .exec(),
    );
  }

  /**
   * Appends one replica's audit records (`[id, line, id, line, …]`, ids increasing) to its stream
   * (`PREFIX:audit:REPLICA`) and names the stream and its node in the gateway's index (`PREFIX:audit`), where the
   * dashboard finds every replica's. Records already in the stream (a batch sent again) are not added twice.
   * A slow append is not an outage: it fails this batch (sent again later) and leaves the limits on the store.
   * @returns the records added, and the stream's last id after the append
   * @throws StoreUnavailableError while the store is down or when the append does not answer within `timeout_ms`
   */
  async appendAudit(replica: string, node: string, entries: readonly string[]): Promise<[number, string]> {
    if (!this.up) throw this.outage();
    try {
      return await withDeadline(
        this.client.audit(
          2,
          `${this.auditIndex}:${replica}`,
          this.auditIndex,
          node,
          AUDIT_STREAM_MAX_RECORDS,
          AUDIT_STREAM_TTL_SECONDS,
          ...entries,
        ),
        this.timeoutMs,
      );
    } catch (err) {
      const message = (err as Error).message;
      if (OUTAGE.test(message)) throw new StoreUnavailableError(message);
      throw err;
    }
  }

  /**
   * Calls `listener` for every session another replica (or this one) ends from now on, and for every ended
   * session the store holds each time the subscription (re)connects, so an outage loses none.
   */
  onRevoked(listener: RevokedListener): void {
    const key = `${this.prefix}revoked`;
    const subscriber = newClient(this.options.url, this.options.password, this.timeoutMs);
    this.subscriber = subscriber;
    subscriber.on('error', () => undefined); // the command connection reports outages
    subscriber.on('message', (_channel: string, message: string) => {
      const space = message.indexOf(' ');
      const expiresAtMs = Number(message.slice(space + 1));
      if (space > 0 && Number.isSafeInteger(expiresAtMs)) listener(message.slice(0, space), expiresAtMs);
    });
    subscriber.on('ready', () => {
      // subscribed before reading the set, so a session ended in between arrives at least once; the set is read
      // through the command connection, which may connect after this one
      subscriber.subscribe(key).then(
        () => this.whenUp(() => this.readRevoked(key, listener)),
        (err: Error) => this.log('warn', 'ended sessions not read from the limit store', { error: err.message }),
      );
    });
  }

  /**
   * Passes every ended session the store holds to `listener`, a page per command: one agent may end hundreds of
   * thousands of sessions, and one reply of them all would outlast `timeout_ms` and be taken for an outage at every
   * connection. Read again when the store returns, if it failed.
   */
  private readRevoked(key: string, listener: RevokedListener, cursor = '0'): void {
    this.run(() => this.client.zscan(key, cursor, 'COUNT', REVOKED_PAGE)).then(
      ([next, entries]) => {
        // expired entries (not yet trimmed) are passed too: `listener` ignores them
        for (let i = 0; i + 1 < entries.length; i += 2) listener(entries[i], Number(entries[i + 1]));
        if (next !== '0') this.readRevoked(key, listener, next);
      },
      (err: Error) => {
        if (err instanceof StoreUnavailableError) this.whenUp(() => this.readRevoked(key, listener));
        else this.log('warn', 'ended sessions not read from the limit store', { error: err.message });
      },
    );
  }

  /** Runs `fn` now while the store answers, else once it does (its first connection or the end of an outage). */
  whenUp(fn: () => void): void {
    if (this.up) fn();
    else this.waiters.push(fn);
  }

  /** Runs `fn` when `available` again after an outage (e.g. to hand over what was kept locally meanwhile). */
  onRecovery(fn: () => void): void {
    this.recoveryHooks.push(fn);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.probe);
    this.client.disconnect();
    this.subscriber?.disconnect();
  }

  /** `fn`'s answer, or StoreUnavailableError at once while the store is down (a probe watches for its return). */
  private async run<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.up) throw this.outage();
    try {
      return await withDeadline(fn(), this.timeoutMs);
    } catch (err) {
      const message = (err as Error).message;
      // an error the server answered (a script bug, a wrong password) is not an outage of the connection
      if (!OUTAGE.test(message)) throw err;
      this.markDown(message);
      throw new StoreUnavailableError(message);
    }
  }

  /** The error a command gets at once while the store is down. */
  private outage(): StoreUnavailableError {
    return new StoreUnavailableError(this.outageReason ?? 'not connected');
  }

  private markDown(reason: string): void {
    if (this.closed) return;
    if (this.up || this.outageReason === 'not connected yet') {
      this.log('warn', 'limit store unavailable', {
        reason: storeErrorReason(reason),
        on_unavailable: this.onUnavailable,
      });
    }
    this.up = false;
    this.outageReason = reason;
    this.observer?.availability(false);
    this.probe ??= setInterval(() => {
      this.client.ping().then(
        () => this.markUp(),
        () => undefined,
      );
    }, PROBE_INTERVAL_MS);
    this.probe.unref();
  }

  private markUp(): void {
    if (this.closed || this.up) return;
    const wasDown = this.outageReason !== 'not connected yet';
    this.up = true;
    this.outageReason = undefined;
    clearInterval(this.probe);
    this.probe = undefined;
    this.observer?.availability(true);
    this.log('info', wasDown ? 'limit store available again' : 'limit store connected', {});
    for (const fn of this.waiters.splice(0)) fn();
    if (wasDown) for (const fn of this.recoveryHooks) fn();
  }
}

/**
 * `promise`, or a timeout once `ms` have passed without its answer, counting only time this process could read
 * the answer: a gateway whose own event loop was busy past the deadline must not take a store that answered in
 * time for an outage. A deadline timer that fires late (the loop was busy, the answer may wait unread, or not even
 * be sent) gives the store one more period; the final check runs after the loop's next poll phase, which reads
 * what the store sent meanwhile. So a call waits at most about twice `ms` plus what the loop was blocked.
 */
function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout;
    /** Runs `end` with the first outcome only (the answer, its error or the timeout). */
    const settle = (end: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      end();
    };
    const arm = (late: boolean): void => {
      const due = Date.now() + ms;
      timer = setTimeout(() => {
        if (!late && Date.now() - due > ms / 2) return arm(true);
        setImmediate(() => settle(() => reject(new Error('Command timed out'))));
      }, ms);
    };
    arm(false);
    promise.then(
      (value) => settle(() => resolve(value)),
      (err: unknown) => settle(() => reject(err)),
    );
  });
}

/** The client's own bound on a command: far past `timeout_ms`, which {@link withDeadline} enforces on calls. */
function clientTimeoutMs(timeoutMs: number): number {
  return Math.max(10 * timeoutMs, 1_000);
}

function newClient(url: string, password: string | undefined, timeoutMs: number): RedisClient {
  const options: RedisOptions = {
    password,
    commandTimeout: clientTimeoutMs(timeoutMs),
    connectTimeout: Math.max(1_000, timeoutMs),
    // fail at once while disconnected rather than queue calls behind a reconnect
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // no auto-pipelining: the calls of one turn share one script invocation already (countCall)
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
    ...(url.startsWith('rediss:') ? { tls: {} } : {}),
  };
  // loaded with the first store: a gateway without one never pays for the client
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Redis } = require('ioredis') as typeof import('ioredis');
  return new Redis(url, options);
}
