/**
 * Reading the gateway's audit log (JSON lines, SPEC §4) from tests.
 */
import { existsSync, readFileSync } from 'node:fs';

/** The keys an audit record may have (SPEC §4): never argument values. */
export const AUDIT_RECORD_KEYS: readonly string[] = [
  'ts', 'gateway', 'session', 'principal', 'client', 'tool', 'outcome', 'error', 'duration_ms',
];

/** One audit record as written by the gateway. */
export interface AuditRecord {
  readonly ts?: string;
  readonly gateway?: string;
  readonly session?: string;
  readonly principal?: string;
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
  return lines.filter((l) => l.trim() !== '').map((l, i) => {
    try {
      return JSON.parse(l) as AuditRecord;
    } catch {
      throw new Error(`audit line ${i + 1} is not JSON: ${l.slice(0, 200)}`);
    }
  });
}

/**
 * Polls until the audit log holds at least `count` records (bounded), then returns them all.
 * Rejects with the count seen when it times out.
 */
export async function waitForAuditRecords(file: string, count: number, timeoutMs = 5_000): Promise<AuditRecord[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const records = readAuditLog(file);
    if (records.length >= count) return records;
    if (Date.now() > deadline) {
      throw new Error(`audit log ${file} has ${records.length} records, expected at least ${count} within ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The keys of `record` that SPEC §4 does not allow in an audit record. */
export function unexpectedAuditKeys(record: AuditRecord): string[] {
  return Object.keys(record).filter((k) => !AUDIT_RECORD_KEYS.includes(k));
}
