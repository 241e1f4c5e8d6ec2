import { watch, type FSWatcher } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from './gateway-shared';
import { parseAuditText, type DashboardRecord } from './audit-line';
import { NEEDS_JSON_PARSE } from './gateway-line-scanner';
import type { AuditStore } from './audit-store';
import { FileFollower, MAX_LINE_BYTES } from './file-follower';

/** Options of {@link AuditIngester}. */
export interface AuditIngesterOptions {
  /** Directories whose `*.jsonl` files are read (every replica's file, every gateway's). */
  readonly dirs: readonly string[];
  readonly store: AuditStore;
  readonly logger: Logger;
  /** How often every file is checked even without a change event, in ms. @default 1000 */
  readonly pollIntervalMs?: number;
}

/** Counters of ingestion, served with every summary. */
export interface IngestStats {
  /** Files followed now. */
  files: number;
  /** Lines read that were not a well-typed audit record (or longer than the line limit). */
  malformed: number;
  /** Times a file was found replaced or truncated and read again from its start. */
  restarts: number;
  /** Directories that could not be read at the last scan (missing or unreadable). */
  unreadableDirs: string[];
}

/**
 * Reads every `*.jsonl` file of the audit directories into the store and follows them: a directory watcher
 * (`fs.watch`) triggers a scan at once, a poll every second catches what watchers miss (network and overlay file
 * systems). Scans never overlap; a change during a scan triggers one more.
 */
export class AuditIngester {
  readonly stats: IngestStats = { files: 0, malformed: 0, restarts: 0, unreadableDirs: [] };
  private readonly followers = new Map<string, FileFollower>();
  private readonly watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | undefined;
  private scanning: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(private readonly options: AuditIngesterOptions) {}

  /** Reads everything there is now, then follows. Resolves after the first full read. */
  async start(): Promise<void> {
    await this.scan();
    for (const dir of this.options.dirs) {
      try {
        const watcher = watch(dir, { persistent: false }, () => this.requestScan());
        watcher.on('error', () => undefined); // the poll still runs
        this.watchers.push(watcher);
      } catch {
        // a missing directory is reported in stats and retried by the poll
      }
    }
    this.timer = setInterval(() => this.requestScan(), this.options.pollIntervalMs ?? 1000);
    this.timer.unref();
  }

  /** Scans now (or right after the running scan) and resolves when that scan is done. */
  scan(): Promise<void> {
    if (this.scanning !== undefined) {
      this.again = true;
      return this.scanning;
    }
    this.scanning = (async () => {
      try {
        do {
          this.again = false;
          await this.scanOnce();
        } while (this.again && !this.closed);
      } finally {
        this.scanning = undefined;
      }
    })();
    return this.scanning;
  }

  private requestScan(): void {
    if (this.closed) return;
    this.scan().catch((err: unknown) => {
      this.options.logger('error', 'audit scan failed', { error: (err as Error).message });
    });
  }

  private async scanOnce(): Promise<void> {
    const seen = new Set<string>();
    const unreadable: string[] = [];
    for (const dir of this.options.dirs) {
      let names: string[];
      try {
        names = (await readdir(dir, { withFileTypes: true }))
          .filter((e) => e.isFile() && e.name.endsWith('.jsonl'))
          .map((e) => e.name)
          .sort();
      } catch {
        unreadable.push(dir);
        continue;
      }
      for (const name of names) {
        const path = join(dir, name);
        seen.add(path);
        let follower = this.followers.get(path);
        if (follower === undefined) {
          follower = new FileFollower(path, (text) => this.ingest(text));
          this.followers.set(path, follower);
        }
        try {
          const result = await follower.poll();
          if (result.restarted !== undefined) {
            this.stats.restarts++;
            this.options.logger('info', `audit file ${result.restarted}, reading it from the start`, { path });
          }
          this.stats.malformed += result.overlong;
        } catch {
          // gone between readdir and stat (rotation in progress): the next scan sees the new file
          this.followers.delete(path);
          seen.delete(path);
        }
        if (this.closed) return;
      }
    }
    for (const path of this.followers.keys()) if (!seen.has(path)) this.followers.delete(path);
    this.stats.files = this.followers.size;
    this.stats.unreadableDirs = unreadable;
    this.options.store.prune();
  }

  /** Reads the lines of a decoded chunk without cutting them out of it first (see `gateway-line-scanner.ts`). */
  private ingest(text: string): void {
    const records: DashboardRecord[] = [];
    const plain = !NEEDS_JSON_PARSE.test(text);
    let start = 0;
    while (start <= text.length) {
      let stop = text.indexOf('\n', start);
      if (stop < 0) stop = text.length;
      if (stop - start > MAX_LINE_BYTES) {
        // a line that arrived whole inside one read: over the limit all the same (its characters are at most its bytes)
        this.stats.malformed++;
      } else if (stop > start && !(stop === start + 1 && text.charCodeAt(start) === 0x0d)) {
        const record = parseAuditText(text, start, stop, plain);
        if (record === undefined) this.stats.malformed++;
        else records.push(record);
      }
      start = stop + 1;
    }
    this.options.store.addAll(records);
  }

  /** Stops watching and polling. */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    for (const w of this.watchers) w.close();
    this.watchers.length = 0;
  }
}
