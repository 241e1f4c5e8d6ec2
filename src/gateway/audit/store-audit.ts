import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { AUDIT_NODE_ENV } from '../../config';
import { jsonLine, type Logger } from '../log/logger';
import { StoreUnavailableError, type SharedStore } from '../store/shared-store';
import type { AuditRecord, AuditSink } from './audit-log';

/** Records per append: one script run stays well inside the store's `timeout_ms`. */
const BATCH_RECORDS = 200;
/** Records kept while the store is down; records past it are dropped, counted and logged. */
const MAX_BACKLOG_RECORDS = 100_000;
/** How often a backlog is retried while the store is down, in ms. */
const RETRY_MS = 1_000;
/** How long `close()` waits for the backlog to reach the store, in ms. */
const CLOSE_WAIT_MS = 5_000;

/**
 * The audit sink of `audit_log: 'store'`: each replica appends its records, in batches of what arrived while the
 * previous batch was on its way, to a stream of its own in the gateway's store, which the dashboard reads for every
 * replica on every node. Each record's id is chosen here and increases, so a batch sent again after a timeout is never counted twice; while the store is down
 * records wait in memory (bounded) and go when it is back; `close()` (a drain) sends what waits before it resolves.
 */
export class StoreAuditLog implements AuditSink {
  private store: SharedStore | undefined;
  /** `[id, line, id, line, …]` not yet acknowledged by the store, oldest first. */
  private pending: string[] = [];
  private sending: Promise<void> | undefined;
  /** A send is scheduled (for the end of this turn, or a retry). */
  private queued = false;
  private lastMs = 0;
  private seq = 0;
  private dropped = 0;
  private closed = false;
  /** The last append failed (so an error is logged once per streak). */
  private failing = false;
  /** The node named beside this process's stream: `CDKTF_MCP_GATEWAY_NODE`, else the host name. */
  readonly node = process.env[AUDIT_NODE_ENV] || hostname();
  /** This process's stream; a new one when the store's holds an id ahead of this process's (see `flush`). */
  replica = newReplicaName();

  constructor(private readonly log: Logger) {}

  /** The store records go to from now on (a reload may replace it); what waits goes there too. */
  useStore(store: SharedStore | undefined): void {
    this.store = store;
    store?.onRecovery(() => this.schedule(0));
    if (this.pending.length > 0) this.schedule(0);
  }

  /** Records waiting for the store. */
  get backlog(): number {
    return this.pending.length / 2;
  }

  write(record: AuditRecord): void {
    if (this.pending.length / 2 >= MAX_BACKLOG_RECORDS) {
      if (this.dropped++ === 0) {
        this.log('error', 'audit records dropped: the store has been unavailable too long', {
          kept: MAX_BACKLOG_RECORDS,
        });
      }
      return;
    }
    const line = jsonLine(record);
    this.pending.push(this.nextId(), line.slice(0, -1));
    this.schedule(0);
  }

  async close(successor?: AuditSink): Promise<void> {
    this.closed = true;
    const deadline = Date.now() + CLOSE_WAIT_MS;
    while (this.pending.length > 0 && Date.now() < deadline && this.store?.available === true) {
      await this.flush();
      // a store that answers but refuses the records would otherwise be asked again at once, holding the loop
      if (this.failing) break;
    }
    await this.sending;
    if (this.pending.length === 0) return;
    if (successor !== undefined && successor.discards !== true) {
      // after the records the successor took meanwhile: each keeps its own ts
      const records = this.backlog;
      for (let i = 1; i < this.pending.length; i += 2) successor.write(JSON.parse(this.pending[i]) as AuditRecord);
      this.pending = [];
      this.log('warn', 'audit records the store had not taken went to the new audit target', { records });
      return;
    }
    const reason = successor === undefined ? 'before shutdown' : 'before the audit was turned off';
    this.log('error', `audit records not written: the store did not take them ${reason}`, { records: this.backlog });
  }

  /** `MS-SEQ` on this process's clock, never repeating or going back (the store orders a stream by it). */
  private nextId(): string {
    const now = Date.now();
    if (now > this.lastMs) {
      this.lastMs = now;
      this.seq = 0;
    } else {
      this.seq++;
    }
    return `${this.lastMs}-${this.seq}`;
  }

  /**
   * Sends at the end of this event-loop turn (`ms` 0), or after `ms`. One batch is in flight at a time, and what
   * arrives meanwhile goes in the next: under load the batches grow by themselves, and a record waits in memory no
   * longer than one round trip to the store, so a node that dies loses little.
   */
  private schedule(ms: number): void {
    if (this.queued || this.sending !== undefined) return;
    this.queued = true;
    const run = (): void => {
      this.queued = false;
      void this.flush();
    };
    if (ms === 0) setImmediate(run);
    else setTimeout(run, ms);
  }

  /** Sends the oldest batch (one at a time, so ids reach the stream in order); on failure it stays for a retry. */
  private flush(): Promise<void> {
    if (this.sending !== undefined) return this.sending;
    const store = this.store;
    if (store === undefined || this.pending.length === 0) return Promise.resolve();
    const batch = this.pending.slice(0, BATCH_RECORDS * 2);
    let failed = false;
    let rotated = false;
    this.sending = store
      .appendAudit(this.replica, this.node, batch)
      .then(
        ([added, lastId]) => {
          if (added < batch.length / 2 && isAhead(lastId, this.lastMs, this.seq)) {
            // Another writer put an id in this stream ahead of any this process made: every record of ours would
            // be refused as old. The batch goes to a stream of its own instead.
            this.log('warn', 'audit stream holds an entry this replica did not write; using a new stream', {
              stream: this.replica,
            });
            this.replica = newReplicaName();
            rotated = true;
            return;
          }
          this.pending.splice(0, batch.length);
          if (this.dropped > 0) {
            this.log('warn', 'audit records reach the store again', { dropped: this.dropped });
            this.dropped = 0;
          }
        },
        (err: Error) => {
          // once per failing streak: the store logs its outage itself, this says what becomes of the records
          if (!this.failing) {
            if (err instanceof StoreUnavailableError) {
              this.log('warn', 'audit records wait in memory until the store is back', {
                kept_up_to: MAX_BACKLOG_RECORDS,
              });
            } else {
              this.log('error', 'audit records not taken by the store; retrying', { error: err.message });
            }
          }
          failed = true;
        },
      )
      .finally(() => {
        this.sending = undefined;
        this.failing = failed;
        // a rotation waits too: a writer that poisons every new stream gets one a second, not one a turn
        if (this.pending.length > 0 && !this.closed) this.schedule(failed || rotated ? RETRY_MS : 0);
      });
    return this.sending;
  }
}

/** The host, the process and random bytes: a restarted process never appends to an old stream. */
function newReplicaName(): string {
  return `${hostname()}.${process.pid}.${randomBytes(4).toString('hex')}`;
}

/** Whether stream id `id` (`MS-SEQ`) is past `ms-seq`, the last id this process made. */
function isAhead(id: string, ms: number, seq: number): boolean {
  const dash = id.indexOf('-');
  if (dash < 0) return false;
  const idMs = Number(id.slice(0, dash));
  const idSeq = Number(id.slice(dash + 1));
  return idMs > ms || (idMs === ms && idSeq > seq);
}
