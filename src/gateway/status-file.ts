import { renameSync, writeFileSync } from 'node:fs';
import { GATEWAY_BUILD_ENV, type GatewayStatus } from '../config';
import type { Logger } from './log/logger';

/**
 * Writes the gateway's status file (`serve --status-file`), which `apply-config` reads to learn whether the config
 * it stored is served or was refused. Each write replaces the file atomically (a temp file, then a rename), so a
 * reader never sees half a status. A failed write is logged, never thrown: the status informs deploys, it does not
 * decide whether the gateway serves.
 */
export class StatusFile {
  private readonly build = process.env[GATEWAY_BUILD_ENV] ?? '';
  private served: { digest: string; loadedAt: number } | undefined;
  /** Once the gateway stopped, nothing it still finishes (a reload refused mid-build) says it serves again. */
  private hasStopped = false;

  constructor(
    private readonly file: string,
    private readonly log: Logger,
  ) {}

  /** The config with this digest serves from now on. */
  serving(digest: string): void {
    if (this.hasStopped) return;
    this.served = { digest, loadedAt: Date.now() };
    this.write({ state: 'serving', ...this.base() });
  }

  /**
   * A reload was refused for `reason`; the config served before keeps serving.
   * @param digest the refused config's, once it was read: a deploy waits only for its own config's outcome
   */
  refused(reason: string, digest: string | undefined): void {
    if (this.hasStopped) return;
    const refused = { at: Date.now(), reason, ...(digest === undefined ? {} : { digest }) };
    this.write({ state: 'serving', ...this.base(), refused });
  }

  /** The gateway stopped serving. */
  stopped(): void {
    this.hasStopped = true;
    this.write({ state: 'stopped', ...this.base() });
  }

  private base(): Pick<GatewayStatus, 'build' | 'digest' | 'loaded_at'> {
    return { build: this.build, digest: this.served?.digest ?? '', loaded_at: this.served?.loadedAt ?? 0 };
  }

  private write(status: GatewayStatus): void {
    const temp = `${this.file}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, `${JSON.stringify(status)}\n`, { mode: 0o600 });
      renameSync(temp, this.file);
    } catch (err) {
      this.log('warn', 'status file not written', { file: this.file, error: (err as Error).message });
    }
  }
}
