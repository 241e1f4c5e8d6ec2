import type { Redis as RedisClient } from 'ioredis';
import { MAX_NAME_CHARS, parseAuditLine, type DashboardRecord } from './audit-line';
import type { AuditStore } from './audit-store';
import type { Logger } from './gateway-shared';
import { auditIndexKey, storeErrorReason } from '../config/rate-limits';

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
  /** Streams the store would not read (a key of another type), skipped from then on. */
  unreadable_streams: number;
  /** Why the last read did not reach it, when it did not. */
  error?: string;
}

/** One store read for one gateway: its connection, what was read and what the log said. */
interface SourceState {
  readonly gateway: string;
  readonly client: RedisClient;
  readonly stats: StoreSourceStats;
  /** Stream key → the id of the last entry read. */
  readonly cursors: Map<string, string>;
  /** Streams the store would not read, skipped while the index names them. */
  readonly skipped: Set<string>;
  /** The client's last connection error, which says more than a failed command does. */
  lastError: string | undefined;
  /** Whether the current outage (or an empty index) was logged already. */
  logged: false | 'unreachable' | 'empty';
}

/** Records asked for per stream and read (a gateway's records are under 1 KiB each). */
const READ_COUNT = 200;
/** A longer entry is no gateway's record: counted as malformed, not parsed. */
const MAX_ENTRY_CHARS = 65_536;
/** Replica streams read per gateway; an index holding more (a store written by others) is read this far. */
const MAX_STREAMS = 10_000;
/** The largest stream id: nothing can follow an entry with it. */
const LAST_ID = '18446744073709551615-18446744073709551615';
/** How long a start waits for the first read of the stores before it serves. */
const FIRST_READ_WAIT_MS = 5_000;
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
  private readonly sources: SourceState[];
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private closed = false;

  constructor(
    sources: readonly AuditStoreSource[],
    private readonly store: AuditStore,
    private readonly logger: Logger,
    private readonly pollIntervalMs = 1_000,
  ) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only by a dashboard that reads a store
    const { Redis } = sources.length === 0 ? { Redis: undefined } : (require('ioredis') as typeof import('ioredis'));
    this.sources = sources.map((s) => {
      const source: SourceState = {
        gateway: s.gateway,
        client: new Redis!(s.url, {
          password: s.password,
          lazyConnect: true,
          enableOfflineQueue: true,
          maxRetriesPerRequest: 1,
          connectTimeout: 2_000,
          commandTimeout: 10_000,
          retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
          ...(s.url.startsWith('rediss:') ? { tls: {} } : {}),
        }),
        stats: {
          gateway: s.gateway,
          streams: 0,
          // node names come from the store: no prototype for a `__proto__` to reach
          records_by_node: Object.create(null) as Record<string, number>,
          reachable: false,
          unreadable_streams: 0,
        },
        cursors: new Map(),
        skipped: new Set(),
        lastError: undefined,
        logged: false,
      };
      // reported per read, in stats and once per outage in the log
      source.client.on('error', (err: Error) => (source.lastError = err.message));
      return source;
    });
    this.stats = this.sources.map((s) => s.stats);
  }

  /** Reads everything the stores hold now, then follows. Resolves after the first read (reached or not). */
  async start(): Promise<void> {
    // a slow store delays the dashboard's start by at most this much; the read goes on in the background
    const first = this.read();
    await Promise.race([first, new Promise((resolve) => setTimeout(resolve, FIRST_READ_WAIT_MS).unref())]);
    this.timer = setInterval(() => {
      if (this.reading === undefined) void this.read();
    }, this.pollIntervalMs);
    this.timer.unref();
  }

  /**
   * One pass over every source, after the one under way if any (tests call it to read at once): passes never
   * overlap, since two would read the same entries from the same cursors.
   */
  read(): Promise<void> {
    const next = (this.reading ?? Promise.resolve()).then(() => this.pass());
    this.reading = next;
    next
      .finally(() => {
        if (this.reading === next) this.reading = undefined;
      })
      .catch(() => undefined); // each source's failure is caught in the pass; the caller sees this one
    return next;
  }

  private async pass(): Promise<void> {
    for (const source of this.sources) {
      if (this.closed) break;
      const { stats } = source;
      try {
        await this.readSource(source);
        if (!stats.reachable) this.logger('info', 'reading audit from the store', { gateway: stats.gateway });
        stats.reachable = true;
        delete stats.error;
        if (stats.streams === 0 && source.logged !== 'empty') {
          this.logger('warn', 'no replica of this gateway has written its audit to the store (yet)', {
            gateway: stats.gateway,
            index: auditIndexKey(stats.gateway),
          });
          source.logged = 'empty';
        } else if (stats.streams > 0) {
          source.logged = false;
        }
      } catch (err) {
        stats.reachable = false;
        const reason = storeErrorReason(`${(err as Error).message} ${source.lastError ?? ''}`);
        stats.error = /password/.test(reason) ? `${reason}: check password_file` : reason;
        if (source.logged !== 'unreachable') {
          this.logger('warn', 'audit store unreachable; retrying every second', {
            gateway: stats.gateway,
            error: stats.error,
          });
          source.logged = 'unreachable';
        }
      }
    }
    this.store.prune();
  }

  private async readSource(source: SourceState): Promise<void> {
    const { client, cursors, skipped, stats } = source;
    if (client.status === 'wait') await client.connect();
    const nodes = await readIndex(client, auditIndexKey(source.gateway));
    // streams that left the index (expired with their replica) are read no more
    for (const stream of cursors.keys()) if (!nodes.has(stream)) cursors.delete(stream);
    for (const stream of nodes.keys()) if (!cursors.has(stream)) cursors.set(stream, '0-0');
    for (const stream of skipped) if (!nodes.has(stream)) skipped.delete(stream);
    stats.streams = cursors.size;
    // every stream in one round trip, then again for those with more to read; none after the last possible id
    let reading = [...cursors].filter(([stream, at]) => at !== LAST_ID && !skipped.has(stream)).map(([k]) => k);
    while (reading.length > 0 && !this.closed) {
      const pipeline = client.pipeline();
      for (const stream of reading) pipeline.xrange(stream, `(${cursors.get(stream)}`, '+', 'COUNT', READ_COUNT);
      const replies = (await pipeline.exec()) ?? [];
      const more: string[] = [];
      replies.forEach(([err, entries], k) => {
        const stream = reading[k];
        // one stream the store will not read (a key of another type, an id at the end of the range) stops only itself
        if (err !== null || !Array.isArray(entries)) {
          stats.unreadable_streams++;
          skipped.add(stream);
          return;
        }
        const page = entries as [string, string[]][];
        if (page.length === 0) return;
        this.ingest(stats, nodes.get(stream)!, page);
        cursors.set(stream, page[page.length - 1][0]);
        if (page.length === READ_COUNT) more.push(stream);
      });
      reading = more;
    }
  }

  private ingest(stats: StoreSourceStats, node: string, entries: [id: string, fields: string[]][]): void {
    const records: DashboardRecord[] = [];
    const byNode = stats.records_by_node;
    const key = node in byNode || Object.keys(byNode).length < MAX_NODES ? node : '(other)';
    for (const [, fields] of entries) {
      const line = fields[0] === 'r' && fields[1].length <= MAX_ENTRY_CHARS ? fields[1] : undefined;
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
    for (const source of this.sources) source.client.disconnect();
  }
}

/**
 * The index's streams and their nodes: only fields naming a stream of this gateway (`INDEX:…`), node names cut to
 * {@link MAX_NAME_CHARS}, at most {@link MAX_STREAMS}, read in pages (`HSCAN`) rather than in one reply.
 */
async function readIndex(client: RedisClient, index: string): Promise<Map<string, string>> {
  const nodes = new Map<string, string>();
  let cursor = '0';
  do {
    const [next, fields] = await client.hscan(index, cursor, 'COUNT', 1_000);
    for (let k = 0; k + 1 < fields.length && nodes.size < MAX_STREAMS; k += 2) {
      if (fields[k].startsWith(`${index}:`) && fields[k].length <= index.length + 1 + MAX_NAME_CHARS) {
        nodes.set(fields[k], fields[k + 1].slice(0, MAX_NAME_CHARS));
      }
    }
    cursor = next;
  } while (cursor !== '0' && nodes.size < MAX_STREAMS);
  return nodes;
}
