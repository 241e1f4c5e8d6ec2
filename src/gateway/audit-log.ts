import { appendFileSync, closeSync, createWriteStream, mkdirSync, openSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from './errors';

/** Where `audit_log: true` writes when no path is given. */
export const DEFAULT_AUDIT_LOG_PATH = '/var/log/cdktf-mcp-gateway/audit.jsonl';

/** How a `tools/call` ended: answered by the service, failed at the service, or refused by the gateway. */
export type AuditOutcome = 'ok' | 'error' | 'refused';

/** One audit line. Never argument values. */
export interface AuditRecord {
  readonly ts: string;
  readonly gateway: string;
  readonly session: string | null;
  /** The token id, or `null` with `auth: 'none'`. */
  readonly principal: string | null;
  readonly client: { readonly name: string | null; readonly version: string | null };
  readonly tool: string;
  readonly outcome: AuditOutcome;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly duration_ms: number;
}

/** Receives audit records. */
export interface AuditSink {
  write(record: AuditRecord): void;
  /** Writes what is buffered and closes the file. */
  close(): Promise<void>;
}

/** An audit sink that drops records (`audit_log: false`). */
export const noAudit: AuditSink = { write: () => undefined, close: async () => undefined };

/**
 * An append-only JSON-lines audit file. Records are buffered and written in batches after the current tick, so
 * a call never waits for the disk; `close()` resolves only once every record is on its way to the file.
 *
 * @throws ConfigError when the file cannot be opened (checked at start-up, not at the first call)
 */
export function openAuditLog(path: string): AuditSink {
  try {
    mkdirSync(dirname(path), { recursive: true });
    closeSync(openSync(path, 'a'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new ConfigError(
      `gateway.audit_log: cannot open ${path}: ${code} (pass --audit-log FILE or set audit_log: false)`,
    );
  }
  const stream: WriteStream = createWriteStream(path, { flags: 'a' });
  let buffer: string[] = [];
  let scheduled = false;
  let failed = false;
  let closed = false;
  stream.on('error', () => {
    // A disk error must not crash the gateway; it is reported once on stderr.
    if (!failed) process.stderr.write(`cdktf-mcp-gateway: audit log ${path}: write failed\n`);
    failed = true;
  });
  const flush = (): void => {
    scheduled = false;
    if (buffer.length === 0) return;
    const lines = buffer.join('');
    buffer = [];
    stream.write(lines);
  };
  return {
    write(record) {
      if (closed) {
        // A call that outlived the drain timeout still gets its record, synchronously.
        try {
          appendFileSync(path, `${JSON.stringify(record)}\n`);
        } catch {
          // reported by the stream's error handler already, or the disk is gone
        }
        return;
      }
      buffer.push(`${JSON.stringify(record)}\n`);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      flush();
      return new Promise((resolve) => stream.end(() => resolve()));
    },
  };
}
