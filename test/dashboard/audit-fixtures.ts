/**
 * Audit lines for dashboard tests, in the format `src/gateway/audit-log.ts` writes.
 */
import type { AuditRecord } from '../../src/gateway';

/** A record with defaults: an `ok` call of `get_customer` by `support-bot` on gateway `support`. */
export function auditRecord(overrides: Partial<AuditRecord> & { tsMs?: number } = {}): AuditRecord {
  const { tsMs, ...rest } = overrides;
  return {
    ts: new Date(tsMs ?? Date.now()).toISOString(),
    gateway: 'support',
    session: 'sess-1',
    principal: 'support-bot',
    auth: 'token',
    client: { name: 'agent-sdk', version: '1.2.0' },
    tool: 'get_customer',
    outcome: 'ok',
    error: null,
    duration_ms: 12,
    ...rest,
  };
}

/** A refused call with its message. */
export function refusal(message: string, overrides: Partial<AuditRecord> & { tsMs?: number } = {}): AuditRecord {
  return auditRecord({ outcome: 'refused', error: { code: 'INVALID_ARGS', message }, ...overrides });
}

/** Records as JSON lines, each ending with a newline. */
export function lines(records: readonly AuditRecord[]): string {
  return records.map((r) => `${JSON.stringify(r)}\n`).join('');
}
