import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bracketHost, jsonLogger, type Logger } from './gateway-shared';
import { AuditIngester } from './audit-ingester';
import { AuditStreamReader } from './audit-stream-reader';
import { AuditStore, type AuditStoreOptions } from './audit-store';
import { DashboardAuth } from './dashboard-auth';
import { checkExposure, isLoopbackHost, type DashboardSettings } from './dashboard-settings';
import { loadPageAssets } from './page-assets';
import { createRequestListener } from './request-listener';
import { dashboardGuard } from './dashboard-origin-guard';

/** Options of {@link startDashboard} beyond the settings (tests and embedding). */
export interface StartDashboardOptions {
  /** @default - JSON lines on stdout */
  readonly logger?: Logger;
  /** Bounds and clock of the store; `retentionMs` comes from the settings. @default - the store's defaults */
  readonly store?: Omit<AuditStoreOptions, 'retentionMs'>;
  /** How often files are polled besides change events, in ms. @default 1000 */
  readonly pollIntervalMs?: number;
}

/** A started dashboard. */
export interface RunningDashboard {
  /** The address it listens on, e.g. `http://127.0.0.1:8090/`. */
  readonly url: string;
  readonly port: number;
  readonly store: AuditStore;
  readonly ingester: AuditIngester;
  readonly streams: AuditStreamReader;
  /** Stops following files and closes the server. */
  close(): Promise<void>;
}

/**
 * Starts the audit dashboard: reads the audit files, then listens. Refuses (before reading anything) to listen
 * without a token on an address other machines can reach.
 *
 * @example
 * const dashboard = await startDashboard({ auditDirs: ['.dev'], port: 8090, host: '127.0.0.1', auth: undefined,
 *   retentionMs: DEFAULT_RETENTION_MS, flag: DEFAULT_FLAG_RULE });
 * console.log(`Dashboard: ${dashboard.url}`);
 * @throws ConfigError for settings that cannot work (exposure without a token, missing page assets)
 */
export async function startDashboard(
  settings: DashboardSettings,
  options: StartDashboardOptions = {},
): Promise<RunningDashboard> {
  checkExposure(settings);
  const logger = options.logger ?? jsonLogger();
  if (settings.auth === 'none' && !isLoopbackHost(settings.host)) {
    logger(
      'warn',
      'dashboard authentication is off (auth: none): anyone who reaches the port reads the audit summary',
      { host: settings.host },
    );
  }
  const assets = loadPageAssets();
  const store = new AuditStore({ ...options.store, retentionMs: settings.retentionMs });
  const ingester = new AuditIngester({
    dirs: settings.auditDirs,
    store,
    logger,
    pollIntervalMs: options.pollIntervalMs,
  });
  await ingester.start();
  const streams = new AuditStreamReader(settings.auditStores ?? [], store, logger, options.pollIntervalMs);
  await streams.start();
  const pruneTimer = setInterval(() => store.prune(), 60_000);
  pruneTimer.unref();
  const server: Server = createServer(
    createRequestListener({
      store,
      ingester,
      streams,
      auth: new DashboardAuth(settings.auth),
      guard: dashboardGuard(settings.host),
      flag: settings.flag,
      assets,
      logger,
    }),
  );
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(settings.port, settings.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    ingester.close();
    streams.close();
    clearInterval(pruneTimer);
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${bracketHost(settings.host)}:${port}/`;
  logger('info', 'dashboard listening', {
    url,
    audit_dirs: settings.auditDirs,
    audit_stores: (settings.auditStores ?? []).map((s) => s.gateway),
    files: ingester.stats.files,
    records: store.stats.records,
    malformed: ingester.stats.malformed,
  });
  return {
    url,
    port,
    store,
    ingester,
    streams,
    close: async () => {
      ingester.close();
      streams.close();
      clearInterval(pruneTimer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
