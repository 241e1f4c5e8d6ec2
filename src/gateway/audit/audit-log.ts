import {
  closeSync,
  constants,
  createWriteStream,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  writeSync,
} from 'node:fs';
import { Socket } from 'node:net';
import { dirname } from 'node:path';
import type { Writable } from 'node:stream';
import { ConfigError } from '../../config';
import { jsonLine, type Logger } from '../log/logger';
import type { SharedStore } from '../store/shared-store';

/** How a `tools/call` ended: answered by the service, failed at the service, or refused by the gateway. */
export type AuditOutcome = 'ok' | 'error' | 'refused';

/** One audit line (escaped by `jsonLine`: one record per line for any reader). Never argument values. */
export interface AuditRecord {
  readonly ts: string;
  readonly gateway: string;
  /** A short digest of the 2025 session id (`sessionDigest`), never the id; `null` in the stateless era. */
  readonly session: string | null;
  /** The token id, the OAuth principal claim (default `sub`), or `null` with `auth: 'none'`. */
  readonly principal: string | null;
  /** The principal's kind: `token` (a static token id) or `oauth` (an OAuth subject); `null` with no auth. */
  readonly auth: 'token' | 'oauth' | null;
  /** What the agent says it is (`clientInfo`). */
  readonly client: { readonly name: string | null; readonly version: string | null };
  /** The OAuth client the token was issued to (`client_id`, else `azp`); only for OAuth callers. */
  readonly client_id?: string;
  readonly tool: string;
  readonly outcome: AuditOutcome;
  readonly error: { readonly code: string; readonly message: string } | null;
  /** What the tool's response controls dropped and redacted (counts, never values); only for shaped tools. */
  readonly response?: { readonly fields_dropped: number; readonly redacted: number };
  readonly duration_ms: number;
}

/** Receives audit records. */
export interface AuditSink {
  write(record: AuditRecord): void;
  /**
   * Writes what is buffered and closes the sink.
   * @param successor the sink that takes over (a reload that moves the audit): records this one cannot write go there
   */
  close(successor?: AuditSink): Promise<void>;
  /** Set on a sink that keeps nothing (`audit_log: false`). */
  readonly discards?: true;
  /** The gateway's store, for a sink that writes there (`audit_log: 'store'`); called again when a reload swaps it. */
  useStore?(store: SharedStore | undefined): void;
}

/** An audit sink that drops records (`audit_log: false`). */
export const noAudit: AuditSink = { write: () => undefined, close: async () => undefined, discards: true };

/** Why a pipe or socket with no reader is refused as the audit file. */
const NO_READER = 'a pipe or socket with nothing reading it, which would hold every write';
/** Flags of every open of the audit file: a pipe with no reader fails at once (ENXIO) instead of blocking. */
const APPEND_NOW = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK;

/** Appends `line` to `path` now, or drops it when that would block (a full pipe, one with no reader). */
function appendNow(path: string, line: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(path, APPEND_NOW, 0o644);
    writeSync(fd, line);
  } catch {
    // reported by the stream's error handler already, or the file is gone
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** How long a record may wait in memory before it is written, in ms. @default 20 */
const FLUSH_INTERVAL_MS = 20;
/** Buffered text (UTF-16 code units) that triggers a write before the interval. @default 65536 */
const FLUSH_CHARS = 65_536;
/**
 * Bytes handed to the file and not yet taken, past which new records are dropped (counted and logged) rather than
 * held: a pipe whose reader stopped, or a stalled disk, must not grow the gateway's memory until it is killed.
 */
const MAX_WAITING_BYTES = 16 * 1024 * 1024;
/** How long `close()` waits for the file to take what waits, in ms; the store's audit waits as long. */
const CLOSE_WAIT_MS = 5_000;

/**
 * An append-only JSON-lines audit file. Records are buffered and written in batches — every 20 ms, or sooner when
 * 64 K characters are waiting — so a call never waits for the disk and a busy gateway makes a few dozen writes a
 * second instead of one per event-loop turn; `close()` resolves once every record is on its way to the file, or
 * after 5 s with what the file did not take logged as lost.
 *
 * @param log where dropped and unwritten records are reported
 * @throws ConfigError when the file cannot be opened (checked at start-up, not at the first call)
 */
export function openAuditLog(path: string, log: Logger): AuditSink {
  let fd: number;
  try {
    makeDirectories(dirname(path));
    fd = openSync(path, APPEND_NOW, 0o644);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new ConfigError(
      `gateway.audit_log: cannot open ${path}: ${code === 'ENXIO' ? NO_READER : code} ` +
        '(pass --audit-log FILE or set audit_log: false)',
    );
  }
  // A pipe something reads (a container's stdout) is written to as a socket, off the loop and without a thread:
  // a reader that stops then holds no thread pool write, and the pipe can be let go at shutdown.
  const out: Writable = fstatSync(fd).isFIFO()
    ? new Socket({ fd, readable: false, writable: true })
    : createWriteStream(path, { fd, flags: 'a' });
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  let failed = false;
  let closed = false;
  /** Records dropped since the file last took a write. */
  let dropped = 0;
  out.on('error', (err: NodeJS.ErrnoException) => {
    // A disk error (or a pipe's reader gone) must not crash the gateway: reported once, on stderr and in the log;
    // the stream is done, and every later record is dropped and counted.
    if (failed) return;
    failed = true;
    process.stderr.write(`cdktf-mcp-gateway: audit log ${path}: write failed\n`);
    log('error', 'audit records dropped: the audit file failed', { path, error: err.code ?? err.message });
  });
  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (pending === '') return;
    const lines = pending;
    pending = '';
    if (failed) {
      dropped += countLines(lines);
      return;
    }
    if (out.writableLength >= MAX_WAITING_BYTES) {
      if (dropped === 0) {
        log('error', 'audit records dropped: the audit file is not taking writes', {
          path,
          waiting_bytes: out.writableLength,
        });
      }
      dropped += countLines(lines);
      return;
    }
    if (dropped > 0) {
      log('warn', 'audit file taking writes again', { path, dropped });
      dropped = 0;
    }
    out.write(lines);
  };
  return {
    write(record) {
      if (closed) {
        // A call that outlived the drain timeout still gets its record, synchronously, unless the file is now a
        // pipe that is full or has no reader: then the record is lost rather than the event loop held.
        appendNow(path, jsonLine(record));
        return;
      }
      pending += jsonLine(record);
      if (pending.length >= FLUSH_CHARS) flush();
      else timer ??= setTimeout(flush, FLUSH_INTERVAL_MS);
    },
    close(successor) {
      if (closed) return Promise.resolve();
      closed = true;
      flush();
      // a reload that moved the audit closes this file too; the records it missed stay lost either way
      const before = successor === undefined ? 'before shutdown' : 'before a reload replaced it';
      if (dropped > 0) log('error', `audit records dropped ${before}`, { path, dropped });
      return endWithin(out, path, `the audit file did not take them ${before}`, log);
    },
  };
}

/** Ends `out` once it has written what waits, or lets it go after {@link CLOSE_WAIT_MS}, logging what was lost. */
function endWithin(out: Writable, path: string, reason: string, log: Logger): Promise<void> {
  return new Promise((resolve) => {
    const giveUp = setTimeout(() => {
      log('error', `audit records not written: ${reason}`, {
        path,
        bytes: out.writableLength,
      });
      out.destroy();
      resolve();
    }, CLOSE_WAIT_MS);
    out.end(() => {
      clearTimeout(giveUp);
      resolve();
    });
  });
}

function countLines(text: string): number {
  let lines = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
  return lines;
}

/**
 * `mkdir -p`, one level at a time. Not `mkdirSync(…, { recursive: true })`: under `/proc` (and other pseudo file
 * systems) that call never returns on Node 20, spinning a core, where this one fails with ENOENT.
 */
function makeDirectories(dir: string): void {
  if (existsSync(dir)) return;
  const parent = dirname(dir);
  if (parent !== dir) makeDirectories(parent);
  try {
    mkdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}
