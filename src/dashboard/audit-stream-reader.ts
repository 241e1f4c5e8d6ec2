import type { Redis as RedisClient } from 'ioredis';
import { parseAuditLine, type DashboardRecord } from './audit-line';
import type { AuditStore } from './audit-store';
import type { Logger } from './gateway-shared';
import { storeErrorReason } from '../contract/rate-limits';

/** A gateway whose replicas write their audit to a store (`audit_log: 'store'`), as the dashboard reads it. */
export interface AuditStoreSource {
  /** `redis://HOST:PORT` (or `rediss://`), the gateway's `store.url`. */
  readonly url: string;
  /** The gateway's name: its keys in the store start with it. */
  readonly gateway: string;
  /** @default - none */
  readonly password?: string;
}

/** What reading one gateway's store has found, served with every summary. */
export interface StoreSourceStats {
  readonly gateway: string;
  /** Replica streams read (every replica the gateway has had, on any node, within the store's keep time). */
  streams: number;
  /** Records read, per node the replicas ran on. */
  readonly records_by_node: Record<string, number>;
  /** Whether the last read reached the store. */
  reachable: boolean;
  /** Why the last read did not reach it, when it did not. */
  error?: string;
}

/** Records asked for per stream and read. */
const READ_COUNT = 1_000;
/** Distinct node names counted; records of further nodes count under `(other)` (the store is not trusted). */
const MAX_NODES = 256;

/**
 * Reads the audit of gateways that write it to their store: every replica's stream, named with its node in the
 * gateway's index (`cdktf-mcp-gateway:GATEWAY:audit`), from its first record on, then follows it. Each stream is
 * read from where the last read stopped (its entry ids), so a record is counted once however often the index is
 * read and whichever node the replica ran on. Read-only: the dashboard never writes to a gateway's store.
 */
export class AuditStreamReader {
  readonly stats: StoreSourceStats[];
  /** Lines that were not a well-typed audit record. */
  malformed = 0;
  private readonly clients: RedisClient[];
  /** Per source: stream key → the id of the last entry read. */
  private readonly cursors: Map<string, string>[];
  /** Per source: the client's last connection error, which says more than a failed command does. */
  private readonly lastErrors: (string | undefined)[];
  /** Per source: whether the current outage (or an empty index) was logged already. */
  private readonly logged: (false | 'unreachable' | 'empty')[];
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly sources: readonly AuditStoreSource[],
    private readonly store: AuditStore,
    private readonly logger: Logger,
    private readonly pollIntervalMs = 1_000,
  ) {
    this.stats = sources.map((s) => ({
      gateway: s.gateway,
      streams: 0,
      // node names come from the store: no prototype for a `__proto__` to reach
      records_by_node: Object.create(null) as Record<string, number>,
      reachable: false,
    }));
    this.cursors = sources.map(() => new Map());
    this.lastErrors = sources.map(() => undefined);
    this.logged = sources.map(() => false);
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only by a dashboard that reads a store
    const { Redis } = sources.length === 0 ? { Redis: undefined } : (require('ioredis') as typeof import('ioredis'));
    this.clients = sources.map(
      (s) =>
        new Redis!(s.url, {
          password: s.password,
          lazyConnect: true,
          enableOfflineQueue: true,
          maxRetriesPerRequest: 1,
          connectTimeout: 2_000,
          commandTimeout: 10_000,
          retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
          ...(s.url.startsWith('rediss:') ? { tls: {} } : {}),
        }),
    );
    // reported per read, in stats and once per outage in the log
    this.clients.forEach((client, i) => client.on('error', (err: Error) => (this.lastErrors[i] = err.message)));
  }

  /** Reads everything the stores hold now, then follows. Resolves after the first read (reached or not). */
  async start(): Promise<void> {
    await this.read();
    this.timer = setInterval(() => {
      this.reading ??= this.read().finally(() => (this.reading = undefined));
    }, this.pollIntervalMs);
    this.timer.unref();
  }

  /** One pass over every source (tests call it to read at once). */
  async read(): Promise<void> {
    for (let i = 0; i < this.sources.length && !this.closed; i++) {
      const stats = this.stats[i];
      try {
        await this.readSource(i);
        if (!stats.reachable) this.logger('info', 'reading audit from the store', { gateway: stats.gateway });
        stats.reachable = true;
        delete stats.error;
        if (stats.streams === 0 && this.logged[i] !== 'empty') {
          this.logger('warn', 'no replica of this gateway has written its audit to the store (yet)', {
            gateway: stats.gateway,
            index: indexKey(stats.gateway),
          });
          this.logged[i] = 'empty';
        } else if (stats.streams > 0) {
          this.logged[i] = false;
        }
      } catch (err) {
        stats.reachable = false;
        const reason = storeErrorReason(`${(err as Error).message} ${this.lastErrors[i] ?? ''}`);
        stats.error = /password/.test(reason) ? `${reason}: check password_file` : reason;
        if (this.logged[i] !== 'unreachable') {
          this.logger('warn', 'audit store unreachable; retrying every second', {
            gateway: stats.gateway,
            error: stats.error,
          });
          this.logged[i] = 'unreachable';
        }
      }
    }
    this.store.prune();
  }

  private async readSource(i: number): Promise<void> {
    const client = this.clients[i];
    if (client.status === 'wait') await client.connect();
    const index = indexKey(this.sources[i].gateway);
    const nodes = await client.hgetall(index);
    const cursors = this.cursors[i];
    for (const stream of Object.keys(nodes)) if (!cursors.has(stream)) cursors.set(stream, '0-0');
    this.stats[i].streams = cursors.size;
    for (const [stream, after] of cursors) {
      let cursor = after;
      for (;;) {
        const entries = await client.xrange(stream, `(${cursor}`, '+', 'COUNT', READ_COUNT);
        if (entries.length === 0) break;
        this.ingest(i, nodes[stream] ?? '(unknown)', entries);
        cursor = entries[entries.length - 1][0];
        cursors.set(stream, cursor);
        if (entries.length < READ_COUNT || this.closed) break;
      }
    }
  }

  private ingest(i: number, node: string, entries: [id: string, fields: string[]][]): void {
    const records: DashboardRecord[] = [];
    const byNode = this.stats[i].records_by_node;
    const key = node in byNode || Object.keys(byNode).length < MAX_NODES ? node : '(other)';
    for (const [, fields] of entries) {
      const line = fields[0] === 'r' ? fields[1] : undefined;
      const record = line === undefined ? undefined : parseAuditLine(line);
      if (record === undefined) {
        this.malformed++;
        continue;
      }
      records.push(record);
    }
    byNode[key] = (byNode[key] ?? 0) + records.length;
    this.store.addAll(records);
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    for (const client of this.clients) client.disconnect();
  }
}

/** The gateway's index of replica streams (`src/gateway/store/shared-store.ts` writes it). */
function indexKey(gateway: string): string {
  return `cdktf-mcp-gateway:${gateway}:audit`;
}
