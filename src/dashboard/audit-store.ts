import type { DashboardRecord } from './audit-line';
import { RecentRefusals } from './recent-refusals';

export const MINUTE_MS = 60_000;

/** Memory bounds and retention of an {@link AuditStore}. */
export interface AuditStoreOptions {
  /** How long records are kept, in ms. @default 604800000 (7 days) */
  readonly retentionMs?: number;
  /** Distinct (gateway, principal, tool) series; records of further series count in one overflow series. @default 10000 */
  readonly maxSeries?: number;
  /** Cells plus message entries over all minutes; past it the oldest minutes are dropped. @default 1000000 */
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
  /** Message → count, for `error` and `refused` records; at most `maxMessagesPerCell` keys. */
  readonly messages: Map<string, number>;
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

/**
 * Minute buckets of audit records, per (gateway, principal, tool) series, for a retention window. Memory is
 * bounded whatever the log size: by the retention (minutes), `maxSeries` (cells per minute), `maxMessagesPerCell`
 * and, over all of it, `maxEntries`.
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
  private readonly seriesList: Series[] = [];
  private overflowSeries: Series | undefined;
  private readonly minutes = new Map<number, Map<number, Cell>>();
  /** The keys of `minutes`, ascending. */
  private readonly order: number[] = [];
  private entries = 0;

  constructor(options: AuditStoreOptions = {}) {
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.maxSeries = options.maxSeries ?? 10_000;
    this.maxEntries = options.maxEntries ?? 1_000_000;
    this.maxMessages = options.maxMessagesPerCell ?? 8;
    this.futureSlackMs = options.futureSlackMs ?? 5 * MINUTE_MS;
    this.now = options.now ?? Date.now;
    this.refusals = new RecentRefusals(options.refusalsPerAgent ?? 50, options.maxAgents ?? 1000);
  }

  /** The oldest minute still inside the retention window at `nowMs`. */
  firstRetainedMinute(nowMs: number): number {
    return Math.floor(nowMs / MINUTE_MS) - Math.ceil(this.retentionMs / MINUTE_MS) + 1;
  }

  /** Counts records; those outside the retention window (or dated ahead of the clock) only in `outOfRange`. */
  addAll(records: readonly DashboardRecord[]): void {
    const nowMs = this.now();
    const first = this.firstRetainedMinute(nowMs);
    const latestMs = nowMs + this.futureSlackMs;
    for (const record of records) this.add(record, first, latestMs);
    this.version++;
  }

  private add(record: DashboardRecord, firstMinute: number, latestMs: number): void {
    const minute = Math.floor(record.tsMs / MINUTE_MS);
    if (minute < firstMinute || record.tsMs > latestMs) {
      this.stats.outOfRange++;
      return;
    }
    this.stats.records++;
    const series = this.seriesOf(record);
    let bucket = this.minutes.get(minute);
    if (bucket === undefined) {
      bucket = new Map();
      this.minutes.set(minute, bucket);
      this.insertMinute(minute);
    }
    let cell = bucket.get(series.id);
    if (cell === undefined) {
      cell = { calls: 0, refusals: 0, errors: 0, lastMs: record.tsMs, messages: new Map(), otherMessages: 0 };
      bucket.set(series.id, cell);
      this.entries++;
    }
    cell.calls++;
    if (record.tsMs > cell.lastMs) cell.lastMs = record.tsMs;
    if (record.outcome !== 'ok') {
      if (record.outcome === 'refused') {
        cell.refusals++;
        this.refusals.add(record.principal, {
          tsMs: record.tsMs, gateway: record.gateway, tool: record.tool, message: record.message ?? '',
          clientName: record.clientName, clientVersion: record.clientVersion,
        });
      } else {
        cell.errors++;
      }
      const message = record.message ?? '';
      const count = cell.messages.get(message);
      if (count !== undefined) cell.messages.set(message, count + 1);
      else if (cell.messages.size < this.maxMessages) {
        cell.messages.set(message, 1);
        this.entries++;
      } else cell.otherMessages++;
    }
    if (this.entries > this.maxEntries) this.evictOldest();
  }

  private seriesOf(record: DashboardRecord): Series {
    // \u0000 cannot be confused with name text; `null` principals get a key no string can produce.
    const key = `${record.gateway}\u0000${record.principal === null ? '\u0001' : `=${record.principal}`}\u0000${record.tool}`;
    let series = this.seriesByKey.get(key);
    if (series !== undefined) return series;
    if (this.seriesList.length >= this.maxSeries) {
      this.stats.seriesOverflow++;
      this.overflowSeries ??= this.newSeries('(other)', '(other)', '(other)', true);
      return this.overflowSeries;
    }
    series = this.newSeries(record.gateway, record.principal, record.tool, false);
    this.seriesByKey.set(key, series);
    return series;
  }

  private newSeries(gateway: string, principal: string | null, tool: string, overflow: boolean): Series {
    const series: Series = { id: this.seriesList.length, gateway, principal, tool, overflow };
    this.seriesList.push(series);
    return series;
  }

  private insertMinute(minute: number): void {
    let at = this.order.length;
    while (at > 0 && this.order[at - 1] > minute) at--;
    this.order.splice(at, 0, minute);
  }

  private evictOldest(): void {
    while (this.entries > this.maxEntries && this.order.length > 1) {
      this.dropMinute(this.order[0]);
      this.order.shift();
      this.stats.evictedMinutes++;
    }
  }

  private dropMinute(minute: number): void {
    const bucket = this.minutes.get(minute);
    if (bucket === undefined) return;
    for (const cell of bucket.values()) this.entries -= 1 + cell.messages.size;
    this.minutes.delete(minute);
  }

  /** Drops minutes (and recent refusals) that left the retention window. */
  prune(): void {
    const nowMs = this.now();
    const first = this.firstRetainedMinute(nowMs);
    let drop = 0;
    while (drop < this.order.length && this.order[drop] < first) this.dropMinute(this.order[drop++]);
    if (drop > 0) {
      this.order.splice(0, drop);
      this.version++;
    }
    this.refusals.prune(first * MINUTE_MS);
  }

  /** Calls `visit` for every cell of the minutes `fromMinute`..`toMinute` (inclusive). */
  forEachCell(fromMinute: number, toMinute: number, visit: (minute: number, series: Series, cell: Cell) => void): void {
    for (const minute of this.order) {
      if (minute < fromMinute) continue;
      if (minute > toMinute) break;
      for (const [id, cell] of this.minutes.get(minute)!) visit(minute, this.seriesList[id], cell);
    }
  }

  /** Cells plus message entries held now (what `maxEntries` bounds). */
  get entryCount(): number {
    return this.entries;
  }

  /** Minutes held now. */
  get minuteCount(): number {
    return this.order.length;
  }
}
