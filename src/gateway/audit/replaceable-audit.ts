import type { SharedStore } from '../store/shared-store';
import type { AuditSink } from './audit-log';

/**
 * The gateway's audit sink, whose target a reload may replace (`audit_log` changed, e.g. a store added): records
 * go to the current target, and the one replaced is flushed and closed.
 */
export class ReplaceableAudit implements AuditSink {
  constructor(private current: AuditSink) {}

  write(record: Parameters<AuditSink['write']>[0]): void {
    this.current.write(record);
  }

  useStore(store: SharedStore | undefined): void {
    this.current.useStore?.(store);
  }

  /**
   * Sends every later record to `next`; resolves once the previous target has written what it held, or handed
   * to `next` what it could not write (a store that is down or removed).
   */
  replace(next: AuditSink): Promise<void> {
    const previous = this.current;
    this.current = next;
    return previous.close(next);
  }

  close(): Promise<void> {
    return this.current.close();
  }
}
