import { agentKey, type DashboardRecord } from './audit-line';
import type { PrincipalKind } from './gateway-shared';
import { detached } from './detached-string';
import { RecentRefusals } from './recent-refusals';

export const MINUTE_MS = 60_000;

/** Memory bounds and retention of an {@link AuditStore}. */
export interface AuditStoreOptions {
  /** How long records are kept, in ms. @default 604800000 (7 days) */
  readonly retentionMs?: number;
  /**
   * Distinct (gateway, principal, tool) series held at once; records of further series count in one overflow series
   * until the retention drops every record of an older one. @default 10000
   */
  readonly maxSeries?: number;
  /** Cells plus message entries over all minutes; past it the oldest minutes are dropped. @default 4000000 */
  readonly maxEntries?: number;
  /** Distinct messages counted per series and minute; the rest count as other messages. @default 8 */
  readonly maxMessagesPerCell?: number;
  /** Recent refusals kept per agent. @default 50 */
  readonly refusalsPerAgent?: number;
  /** Agents whose recent refusals are kept. @default 1000 */
  readonly maxAgents?: number;
  /** How far ahead of the clock a record may be dated and still count, in ms. @default 300000 */
  readonly futureSlackMs?: number;
  /** The clock. @default Date.now */
  readonly now?: () => number;
}

export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * MINUTE_MS;

/** What one series is: an agent (principal) calling one tool of one gateway. */
export interface Series {
  readonly id: number;
  readonly gateway: string;
  readonly principal: string | null;
  /** The principal's kind (`null` without a principal): `token:alice` and `oauth:alice` are two series. */
  readonly auth: PrincipalKind | null;
  readonly tool: string;
  /** The series that counts records of series past `maxSeries`. */
  readonly overflow: boolean;
}

/** The counts of one series in one minute. */
export interface Cell {
  calls: number;
  refusals: number;
  errors: number;
  /** The latest record time seen in this cell. */
  lastMs: number;
  /** Message → count, for `error` and `refused` records; at most `maxMessagesPerCell` keys (none until one fails). */
  messages: Map<string, number> | undefined;
  /** Messages past the cap. */
  otherMessages: number;
}

/** Counters of what ingestion kept and dropped. */
export interface StoreStats {
  /** Records counted in the minute buckets. */
  records: number;
  /** Records dated before the retention window or too far in the future, not counted. */
  outOfRange: number;
  /** Records counted in the overflow series because `maxSeries` was reached. */
  seriesOverflow: number;
  /** Minutes dropped before their time because `maxEntries` was reached. */
  evictedMinutes: number;
}

/** Buckets of one resolution (minutes or hours): bucket index → series id → cell, and the indexes in order. */
class Tier {
  readonly buckets = new Map<number, Map<number, Cell>>();
  /** The keys of `buckets`, ascending. */
  readonly order: number[] = [];

  bucket(index: number): Map<number, Cell> {
    let bucket = this.buckets.get(index);
    if (bucket === undefined) {
      bucket = new Map();
      this.buckets.set(index, bucket);
      let at = this.order.length;
      while (at > 0 && this.order[at - 1] > index) at--;
      this.order.splice(at, 0, index);
    }
    return bucket;
  }

  /** Removes the first `count` buckets (in order) and returns them. */
  shift(count: number): [number, Map<number, Cell>][] {
    const removed = this.order.splice(0, count).map((i): [number, Map<number, Cell>] => [i, this.buckets.get(i)!]);
    for (const [i] of removed) this.buckets.delete(i);
    return removed;
  }
}

/** Minutes per hour bucket. */
const HOUR_MINUTES = 60;
/** Minutes kept at minute resolution: the 24 h window, plus the hour it starts in. */
const MINUTE_TIER_MINUTES = 24 * 60;

/**
 * Counts of audit records per (gateway, principal, tool) series in time buckets, for a retention window: minute
 * buckets for the last 24 hours (from the start of the hour the 24 h window begins in), hour buckets before that
 * (older minutes are rolled into their hour). Memory is bounded whatever the log size: by the retention,
 * `maxSeries` (cells per bucket), `maxMessagesPerCell` and, over all of it, `maxEntries`.
 */
export class AuditStore {
  readonly retentionMs: number;
  readonly now: () => number;
  readonly refusals: RecentRefusals;
  readonly stats: StoreStats = { records: 0, outOfRange: 0, seriesOverflow: 0, evictedMinutes: 0 };
  /** Bumped on every change, so readers can tell whether anything is new. */
  version = 0;

  private readonly maxSeries: number;
  private readonly maxEntries: number;
  private readonly maxMessages: number;
  private readonly futureSlackMs: number;
  private readonly seriesByKey = new Map<string, Series>();
  /** By id; a series no bucket holds a cell of any more is forgotten (`undefined`) and its id used again. */
  private readonly seriesList: (Series | undefined)[] = [];
  private readonly keyOf: string[] = [];
  private readonly cellsOf: number[] = [];
  private readonly freeIds: number[] = [];
  private overflowSeries: Series | undefined;
  private readonly minutes = new Tier();
  private readonly hours = new Tier();
  private entries = 0;

  constructor(options: AuditStoreOptions = {}) {
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.maxSeries = options.maxSeries ?? 10_000;
    this.maxEntries = options.maxEntries ?? 4_000_000;
    this.maxMessages = options.maxMessagesPerCell ?? 8;
    this.futureSlackMs = options.futureSlackMs ?? 5 * MINUTE_MS;
    this.now = options.now ?? Date.now;
    this.refusals = new RecentRefusals(options.refusalsPerAgent ?? 50, options.maxAgents ?? 1000);
  }

  /** The oldest minute still inside the retention window at `nowMs`. */
  firstRetainedMinute(nowMs: number): number {
    return Math.floor(nowMs / MINUTE_MS) - Math.ceil(this.retentionMs / MINUTE_MS) + 1;
  }

  /** The first minute held at minute resolution at `nowMs` (a whole hour: the 24 h window starts in it). */
  private firstMinuteTierMinute(nowMs: number): number {
    const first24h = Math.floor(nowMs / MINUTE_MS) - MINUTE_TIER_MINUTES + 1;
    return Math.floor(first24h / HOUR_MINUTES) * HOUR_MINUTES;
  }

  /** Counts records; those outside the retention window (or dated ahead of the clock) only in `outOfRange`. */
  addAll(records: readonly DashboardRecord[]): void {
    const nowMs = this.now();
    const first = this.firstRetainedMinute(nowMs);
    const firstMinuteTier = this.firstMinuteTierMinute(nowMs);
    const latestMs = nowMs + this.futureSlackMs;
    for (const record of records) this.add(record, first, firstMinuteTier, latestMs);
    if (this.entries > this.maxEntries) this.evictOldest();
    this.version++;
  }

  private add(record: DashboardRecord, firstMinute: number, firstMinuteTier: number, latestMs: number): void {
    const minute = Math.floor(record.tsMs / MINUTE_MS);
    if (minute < firstMinute || record.tsMs > latestMs) {
      this.stats.outOfRange++;
      return;
    }
    this.stats.records++;
    const series = this.seriesOf(record);
    const bucket =
      minute >= firstMinuteTier ? this.minutes.bucket(minute) : this.hours.bucket(Math.floor(minute / HOUR_MINUTES));
    let cell = bucket.get(series.id);
    if (cell === undefined) {
      cell = { calls: 0, refusals: 0, errors: 0, lastMs: record.tsMs, messages: undefined, otherMessages: 0 };
      bucket.set(series.id, cell);
      this.entries++;
      this.cellsOf[series.id]++;
    }
    cell.calls++;
    if (record.tsMs > cell.lastMs) cell.lastMs = record.tsMs;
    if (record.outcome === 'ok') return;
    if (record.outcome === 'refused') {
      cell.refusals++;
      this.refusals.add(agentKey(record.auth, record.principal), {
        tsMs: record.tsMs,
        gateway: record.gateway,
        tool: record.tool,
        message: record.message ?? '',
        clientName: record.clientName,
        clientVersion: record.clientVersion,
      });
    } else {
      cell.errors++;
    }
    this.countMessage(cell, record.message ?? '', 1);
  }

  private countMessage(cell: Cell, message: string, count: number): void {
    const messages = (cell.messages ??= new Map());
    const known = messages.get(message);
    if (known !== undefined) messages.set(message, known + count);
    else if (messages.size < this.maxMessages) {
      messages.set(detached(message), count);
      this.entries++;
    } else cell.otherMessages += count;
  }

  private seriesOf(record: DashboardRecord): Series {
    // \u0000 cannot be confused with name text; `null` principals get a key no string can produce.
    const key = `${record.gateway}\u0000${record.principal === null ? '\u0001' : `${record.auth}=${record.principal}`}\u0000${record.tool}`;
    let series = this.seriesByKey.get(key);
    if (series !== undefined) return series;
    if (this.seriesByKey.size >= this.maxSeries) {
      this.stats.seriesOverflow++;
      this.overflowSeries ??= this.newSeries('(other)', '(other)', null, '(other)', true);
      return this.overflowSeries;
    }
    series = this.newSeries(
      detached(record.gateway),
      record.principal === null ? null : detached(record.principal),
      record.auth,
      detached(record.tool),
      false,
    );
    this.keyOf[series.id] = detached(key);
    this.seriesByKey.set(this.keyOf[series.id], series);
    return series;
  }

  private newSeries(
    gateway: string,
    principal: string | null,
    auth: PrincipalKind | null,
    tool: string,
    overflow: boolean,
  ): Series {
    const id = this.freeIds.pop() ?? this.seriesList.length;
    const series: Series = { id, gateway, principal, auth, tool, overflow };
    this.seriesList[id] = series;
    this.cellsOf[id] = 0;
    return series;
  }

  /** Drops the oldest buckets (hours first) until the entries fit `maxEntries`; counts the minutes dropped. */
  private evictOldest(): void {
    while (this.entries > this.maxEntries && this.hours.order.length > 0) {
      for (const [, bucket] of this.hours.shift(1)) this.forget(bucket);
      this.stats.evictedMinutes += HOUR_MINUTES;
    }
    while (this.entries > this.maxEntries && this.minutes.order.length > 1) {
      for (const [, bucket] of this.minutes.shift(1)) this.forget(bucket);
      this.stats.evictedMinutes++;
    }
  }

  private forget(bucket: Map<number, Cell>): void {
    for (const [id, cell] of bucket) {
      this.entries -= 1 + (cell.messages?.size ?? 0);
      if (--this.cellsOf[id] === 0 && !this.seriesList[id]!.overflow) this.forgetSeries(id);
    }
  }

  /** A series none of whose records is held any more: its key and id are free for another. */
  private forgetSeries(id: number): void {
    this.seriesByKey.delete(this.keyOf[id]);
    this.seriesList[id] = undefined;
    this.freeIds.push(id);
  }

  /**
   * Rolls minutes older than the minute tier into their hour, and drops buckets (and recent refusals) that left
   * the retention window. Cheap when nothing is due: call it before reading.
   */
  prune(): void {
    const nowMs = this.now();
    const first = this.firstRetainedMinute(nowMs);
    const firstMinuteTier = this.firstMinuteTierMinute(nowMs);
    let roll = 0;
    while (roll < this.minutes.order.length && this.minutes.order[roll] < firstMinuteTier) roll++;
    for (const [minute, bucket] of this.minutes.shift(roll)) {
      // merged before the minute is forgotten, so a series held only by this minute lives on in its hour
      if (minute >= first) {
        const hour = this.hours.bucket(Math.floor(minute / HOUR_MINUTES));
        for (const [id, cell] of bucket) this.merge(hour, id, cell);
      }
      this.forget(bucket);
    }
    let drop = 0;
    while (drop < this.hours.order.length && (this.hours.order[drop] + 1) * HOUR_MINUTES - 1 < first) drop++;
    for (const [, bucket] of this.hours.shift(drop)) this.forget(bucket);
    drop = 0;
    while (drop < this.minutes.order.length && this.minutes.order[drop] < first) drop++;
    for (const [, bucket] of this.minutes.shift(drop)) this.forget(bucket);
    if (roll > 0 || drop > 0) this.version++;
    this.refusals.prune(first * MINUTE_MS);
  }

  private merge(bucket: Map<number, Cell>, id: number, from: Cell): void {
    let cell = bucket.get(id);
    if (cell === undefined) {
      cell = { calls: 0, refusals: 0, errors: 0, lastMs: from.lastMs, messages: undefined, otherMessages: 0 };
      bucket.set(id, cell);
      this.entries++;
      this.cellsOf[id]++;
    }
    cell.calls += from.calls;
    cell.refusals += from.refusals;
    cell.errors += from.errors;
    if (from.lastMs > cell.lastMs) cell.lastMs = from.lastMs;
    cell.otherMessages += from.otherMessages;
    if (from.messages !== undefined)
      for (const [message, count] of from.messages) this.countMessage(cell, message, count);
  }

  /**
   * Calls `visit` for every cell of the minutes `fromMinute`..`toMinute` (inclusive) and of every hour bucket that
   * overlaps them (`minute` is then the hour's first minute). Hour buckets hold only minutes older than the minute
   * buckets, so a window starting inside the minute tier (1 h, 24 h) is exact to the minute, and a longer one is
   * exact except that its first hour may count minutes just before it (minutes the retention has not dropped yet).
   */
  forEachCell(fromMinute: number, toMinute: number, visit: (minute: number, series: Series, cell: Cell) => void): void {
    const firstHour = Math.floor(fromMinute / HOUR_MINUTES);
    for (const hour of this.hours.order) {
      if (hour < firstHour) continue;
      if (hour * HOUR_MINUTES > toMinute) break;
      for (const [id, cell] of this.hours.buckets.get(hour)!) visit(hour * HOUR_MINUTES, this.seriesList[id]!, cell);
    }
    for (const minute of this.minutes.order) {
      if (minute < fromMinute) continue;
      if (minute > toMinute) break;
      for (const [id, cell] of this.minutes.buckets.get(minute)!) visit(minute, this.seriesList[id]!, cell);
    }
  }

  /** Cells plus message entries held now (what `maxEntries` bounds). */
  get entryCount(): number {
    return this.entries;
  }
}
