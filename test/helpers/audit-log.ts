/**
 * Reading the gateway's audit log (JSON lines, docs/gateway.md) from tests.
 */
import { existsSync, readFileSync } from 'node:fs';
import { eventually } from './eventually';

/** The keys an audit record may have (docs/gateway.md): never argument values. */
export const AUDIT_RECORD_KEYS: readonly string[] = [
  'ts',
  'gateway',
  'session',
  'principal',
  'auth',
  'client',
  'tool',
  'outcome',
  'error',
  'duration_ms',
];

/** The key an OAuth caller's record adds: the token's `client_id` (or `azp`). */
export const OAUTH_AUDIT_KEY = 'client_id';

/** The key a call of a tool with response controls adds: `{ fields_dropped, redacted }` (counts only). */
export const RESPONSE_AUDIT_KEY = 'response';

/** One audit record as written by the gateway. */
export interface AuditRecord {
  readonly ts?: string;
  readonly gateway?: string;
  readonly session?: string;
  readonly principal?: string;
  /** The principal's kind: `token` or `oauth` (`null` without authentication). */
  readonly auth?: 'token' | 'oauth' | null;
  readonly client?: { readonly name?: string; readonly version?: string };
  readonly tool?: string;
  readonly outcome?: 'ok' | 'error' | 'refused';
  readonly error?: { readonly code?: number | string; readonly message?: string };
  readonly duration_ms?: number;
  readonly [key: string]: unknown;
}

/** The raw text of the audit log; `''` when the file does not exist yet. */
export function readAuditText(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

/** Every complete line of the audit log, parsed (throws on a line that is not JSON: a torn record is a bug). */
export function readAuditLog(file: string): AuditRecord[] {
  const text = readAuditText(file);
  const lines = text.split('\n');
  // The last element is '' after a complete final line, or a partial line still being written.
  lines.pop();
  return lines
    .filter((l) => l.trim() !== '')
    .map((l, i) => {
      try {
        return JSON.parse(l) as AuditRecord;
      } catch {
        throw new Error(`audit line ${i + 1} is not JSON: ${l.slice(0, 200)}`);
      }
    });
}

export interface WaitForAuditOptions {
  /** @default 5000 */
  readonly timeoutMs?: number;
  /** Counts only the records it accepts (e.g. one session's), and returns only those. @default - every record */
  readonly where?: (record: AuditRecord) => boolean;
}

/**
 * Polls until the audit log holds at least `count` records (those `where` accepts), then returns them all.
 * Rejects with the count seen when it times out. Records land after the answer (the log is written off the hot
 * path), so a test waits for its own records, selected by session or content, rather than counting lines.
 * @example
 * const mine = await waitForAuditRecords(gw.auditLogPath, 1, { where: (r) => r.session === sessionDigest(session.sessionId) });
 */
export function waitForAuditRecords(
  file: string,
  count: number,
  options: WaitForAuditOptions = {},
): Promise<AuditRecord[]> {
  const { timeoutMs = 5_000, where } = options;
  return eventually(
    () => {
      const all = readAuditLog(file);
      const records = where === undefined ? all : all.filter(where);
      if (records.length < count) {
        throw new Error(
          `audit log ${file} has ${records.length} matching records, expected at least ${count} within ${timeoutMs} ms`,
        );
      }
      return records;
    },
    { timeoutMs, intervalMs: 25 },
  );
}

/** The keys of `record` that docs/gateway.md does not allow in an audit record. */
export function unexpectedAuditKeys(record: AuditRecord): string[] {
  return Object.keys(record).filter(
    (k) => !AUDIT_RECORD_KEYS.includes(k) && k !== OAUTH_AUDIT_KEY && k !== RESPONSE_AUDIT_KEY,
  );
}
