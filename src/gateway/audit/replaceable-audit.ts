import type { SharedStore } from '../store/shared-store';
import type { AuditSink } from './audit-log';

/**
 * The gateway's audit sink, whose target a reload may replace (`audit_log` changed, e.g. a store added): records
 * go to the current target, and the one replaced is flushed and closed.
 */
export class ReplaceableAudit implements AuditSink {
  /** The previous target's close (its hand-over): a shutdown waits for it too. */
  private replaced: Promise<void> = Promise.resolve();

  constructor(private current: AuditSink) {}

  write(record: Parameters<AuditSink['write']>[0]): void {
    this.current.write(record);
  }

  useStore(store: SharedStore | undefined): void {
    this.current.useStore?.(store);
  }

  /**
   * Sends every later record to `next`; resolves once the previous target has written what it held, or handed
   * to `next` what it could not write (a store that is down or removed). A close that fails is this call's to
   * report: the targets replaced after it are closed all the same.
   */
  replace(next: AuditSink): Promise<void> {
    const previous = this.current;
    this.current = next;
    const replaced = this.replaced.then(() => previous.close(next));
    this.replaced = replaced.catch(() => undefined);
    return replaced;
  }

  /** Closes the current target once every replaced one has finished handing over. */
  async close(): Promise<void> {
    await this.replaced;
    return this.current.close();
  }
}
