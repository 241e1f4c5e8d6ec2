/**
 * Counts calls against their limits: in the shared store when the gateway has one (exact across replicas), else
 * (and during a store outage with `on_unavailable: 'allow'`) in this process's own fixed windows.
 */
import type { Principal } from '../auth/bearer-tokens';
import { StoreUnavailableError, type SharedStore, type StoreLimit } from '../store/shared-store';
import type { Limit } from './limit-rules';

/** What a call's limits decided. */
export type LimitDecision =
  | { readonly admitted: true }
  | { readonly admitted: false; readonly limit: Limit; readonly retryAfterMs: number }
  | { readonly admitted: false; readonly storeUnavailable: true };

const ADMITTED: LimitDecision = { admitted: true };

/** Windows this process counts at most; past it, windows that ended are dropped first, then the oldest. */
const MAX_LOCAL_WINDOWS = 100_000;
/** Principals whose store keys are kept per tool's limits; past it the cache starts again. */
const MAX_KEYED_PRINCIPALS = 10_000;

export class RateLimiter {
  private readonly local = new LocalWindows();
  /**
   * A tool's limits (one array per config) → principal → their store keys: built once, and one array per principal
   * and tool, so that the store counts a run of such calls in one step.
   */
  private keyed = new WeakMap<readonly Limit[], Map<string, readonly StoreLimit[]>>();

  constructor(private store: SharedStore | undefined) {}

  /** The store calls count in from now on (a reload may add, change or remove it). */
  useStore(store: SharedStore | undefined): void {
    this.store = store;
    this.keyed = new WeakMap();
  }

  /**
   * Counts one call of `principal` against `limits` (all or none: a refused call counts nowhere).
   * Never waits on the store longer than its `timeout_ms`.
   */
  async count(limits: readonly Limit[], principal: Principal): Promise<LimitDecision> {
    const store = this.store;
    if (store === undefined) return this.local.count(limits, principal, Date.now());
    try {
      const [admitted, index, value] = await store.countCall(this.storeLimits(store, limits, String(principal)));
      return admitted === 1 ? ADMITTED : { admitted: false, limit: limits[index - 1], retryAfterMs: value };
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) throw err;
      if (store.onUnavailable === 'refuse') return { admitted: false, storeUnavailable: true };
      return this.local.count(limits, principal, Date.now());
    }
  }

  private storeLimits(store: SharedStore, limits: readonly Limit[], who: string): readonly StoreLimit[] {
    let byPrincipal = this.keyed.get(limits);
    if (byPrincipal === undefined || byPrincipal.size >= MAX_KEYED_PRINCIPALS) {
      byPrincipal = new Map();
      this.keyed.set(limits, byPrincipal);
    }
    let keyed = byPrincipal.get(who);
    if (keyed === undefined) {
      keyed = limits.map((l) => ({ key: `${store.prefix}limit:${l.id}:${who}`, windowMs: l.windowMs, calls: l.calls }));
      byPrincipal.set(who, keyed);
    }
    return keyed;
  }
}

/** This process's own fixed windows, the same arithmetic as the store's script. */
class LocalWindows {
  /** `limit id` + principal → the window's start and the calls counted in it. */
  private readonly windows = new Map<string, { start: number; count: number; end: number }>();

  count(limits: readonly Limit[], principal: Principal, now: number): LimitDecision {
    const entries = limits.map((limit) => {
      const key = `${limit.id}\0${String(principal)}`;
      const start = now - (now % limit.windowMs);
      const held = this.windows.get(key);
      return { limit, key, start, count: held !== undefined && held.start === start ? held.count : 0 };
    });
    let refused: { limit: Limit; retryAfterMs: number } | undefined;
    for (const e of entries) {
      const wait = e.start + e.limit.windowMs - now;
      if (e.count >= e.limit.calls && (refused === undefined || wait > refused.retryAfterMs)) {
        refused = { limit: e.limit, retryAfterMs: wait };
      }
    }
    if (refused !== undefined) return { admitted: false, ...refused };
    if (this.windows.size >= MAX_LOCAL_WINDOWS) this.prune(now);
    for (const e of entries) {
      this.windows.set(e.key, { start: e.start, count: e.count + 1, end: e.start + e.limit.windowMs });
    }
    return ADMITTED;
  }

  private prune(now: number): void {
    for (const [key, w] of this.windows) if (w.end <= now) this.windows.delete(key);
    // still full of live windows (more principals than it holds): the oldest go, undercounting them
    for (const key of this.windows.keys()) {
      if (this.windows.size < MAX_LOCAL_WINDOWS) break;
      this.windows.delete(key);
    }
  }
}
