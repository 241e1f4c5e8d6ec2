/**
 * Backend host names as the gateway's connections resolve them: a name resolved once serves every new connection
 * at once, and an answer older than {@link REFRESH_AFTER_MS} is still used while a lookup in the background
 * replaces it. So a call never waits on the resolver once its backend's name has been resolved, and a resolver
 * that loses a query (a DNS pod gone with its node: the system resolver waits its whole timeout, 5 s by default,
 * before asking again) or does not answer at all delays no call. Only the first lookup of a name, or one whose
 * last good answer is older than {@link MAX_STALE_MS}, is waited for, and concurrent connections share it.
 */
import { lookup as systemLookup, type LookupAddress, type LookupOptions } from 'node:dns';

/** What a lookup calls back with: `dns.lookup`'s answer (a list of addresses when `options.all`). */
type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A lookup in `dns.lookup`'s shape: the resolver this uses (the system's `getaddrinfo`, as Node's own connections
 * use), and what it gives `net.connect` as its `lookup` option.
 */
export type LookupFunction = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/** Age past which an answer is looked up again in the background, the answer itself still used meanwhile. */
export const REFRESH_AFTER_MS = 10_000;
/** Age past which an answer that could not be refreshed is no longer used: the next connection waits for a lookup. */
export const MAX_STALE_MS = 300_000;
/** Names kept at most (a config names a few backends; past it the cache starts again). */
const MAX_NAMES = 1_000;

interface Answer {
  readonly address: string | LookupAddress[];
  readonly family: number | undefined;
  readonly at: number;
  /** Connections given this answer so far. */
  uses: number;
}

interface Entry {
  answer?: Answer;
  /** Callbacks waiting for the lookup in flight (only when there is no usable answer). */
  waiting?: ((err: NodeJS.ErrnoException | null, answer?: Answer) => void)[];
  /** A lookup in flight (in the background, or waited for). */
  resolving: boolean;
}

/**
 * A `lookup` for `net.connect` (and undici's `connect` options) sharing one cache of answers.
 * @param resolve the resolver @default dns.lookup
 * @param now the clock, ms @default Date.now
 */
export function sharedHostLookup(
  resolve: LookupFunction = systemLookup as LookupFunction,
  now: () => number = Date.now,
): LookupFunction {
  const entries = new Map<string, Entry>();

  function run(key: string, entry: Entry, hostname: string, options: LookupOptions): void {
    entry.resolving = true;
    const settle: LookupCallback = (err, address, family) => {
      entry.resolving = false;
      const waiting = entry.waiting;
      entry.waiting = undefined;
      if (err === null || err === undefined) entry.answer = { address, family, at: now(), uses: 0 };
      else if (entry.answer === undefined) entries.delete(key);
      // a failed refresh keeps the last good answer until it is too old (then the next connection waits)
      for (const done of waiting ?? []) done(err, entry.answer);
    };
    try {
      resolve(hostname, options, settle);
    } catch (err) {
      process.nextTick(settle, err as NodeJS.ErrnoException, '');
    }
  }

  return function lookup(hostname, options, callback) {
    const key = `${options.all === true ? 'all' : 'one'}|${options.family ?? 0}|${options.hints ?? 0}|${hostname}`;
    let entry = entries.get(key);
    if (entry === undefined) {
      if (entries.size >= MAX_NAMES) entries.clear();
      entry = { resolving: false };
      entries.set(key, entry);
    }
    const answer = entry.answer;
    const age = answer === undefined ? Infinity : now() - answer.at;
    if (answer !== undefined && age < MAX_STALE_MS) {
      if (age >= REFRESH_AFTER_MS && !entry.resolving) run(key, entry, hostname, options);
      // answered as a resolver does, after this call returns
      process.nextTick(callback, null, copy(answer), answer.family);
      return;
    }
    (entry.waiting ??= []).push((err, got) => {
      if (got !== undefined && now() - got.at < MAX_STALE_MS) callback(null, copy(got), got.family);
      else callback(err ?? Object.assign(new Error(`lookup ${hostname} failed`), { code: 'ENOTFOUND' }), '');
    });
    if (!entry.resolving) run(key, entry, hostname, options);
  };
}

/**
 * Each connection gets its own list of addresses, the cached one staying as the resolver gave it. A list of one
 * family starts one address further each time, so that new connections spread over a name's addresses as fresh
 * lookups would (a list of both families keeps its order, which decides the family tried first).
 */
function copy(answer: Answer): string | LookupAddress[] {
  const { address } = answer;
  if (typeof address === 'string') return address;
  const list = address.map((a) => ({ ...a }));
  if (list.length < 2 || list.some((a) => a.family !== list[0].family)) return list;
  const start = answer.uses++ % list.length;
  return [...list.slice(start), ...list.slice(0, start)];
}
