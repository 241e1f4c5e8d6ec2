import { watch as watchFile, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayConfig } from '../contract/gateway-config';
import { DEFAULT_AUDIT_LOG_PATH, noAudit, openAuditLog, type AuditSink } from './audit/audit-log';
import { ServiceClient } from './upstream/service-client';
import { buildGatewayState, type GatewayState } from './gateway-state';
import { createRequestListener, type HttpServerContext } from './http/request-listener';
import { loadGatewayConfig } from '../contract/load-config';
import { jsonLogger, type Logger } from './logger';
import { broadcast, broadcastComment } from './mcp/post-endpoint';
import { SessionStore } from './mcp/session-store';
import { parseGatewayConfig } from '../contract/parse-config';

/** Options of `startGateway`. */
export interface StartGatewayOptions {
  /** The gateway config (validated again here). */
  readonly config: GatewayConfig;
  /**
   * The file the config came from: enables reload on SIGHUP (and `watch`) and `reload()` without an argument.
   * @default - no reload from a file
   */
  readonly configPath?: string;
  /** Overrides `gateway.port`; 0 picks a free port. @default - the config's port, else 8080 */
  readonly port?: number;
  /** Overrides `gateway.host`. @default - the config's host, else '0.0.0.0' */
  readonly host?: string;
  /** Overrides the config's audit log path and turns the audit log on. @default - the config's `audit_log` */
  readonly auditLogPath?: string;
  /** Reload when the config file changes (needs `configPath`). @default false */
  readonly watch?: boolean;
  /** Where log records go. @default - JSON lines on stdout */
  readonly logger?: Logger;
  /** How long `close()` waits for in-flight calls. @default 10000 */
  readonly drainTimeoutMs?: number;
}

/** A listening gateway. */
export interface RunningGateway {
  /** The MCP endpoint, e.g. `http://127.0.0.1:8080/mcp`. */
  readonly url: string;
  readonly port: number;
  /**
   * Swaps in a new config (or the config file again, when started with `configPath`) after compiling every schema;
   * sessions get `notifications/tools/list_changed`. Rejects, keeping the running config, when it is invalid.
   */
  reload(config?: GatewayConfig): Promise<void>;
  /** Stops accepting, waits for in-flight calls (bounded), ends sessions and flushes the audit log. */
  close(): Promise<void>;
}

/**
 * Starts a gateway: validates the config, compiles every tool schema, opens the audit log, then listens.
 *
 * @throws ConfigError for an invalid config or an audit log that cannot be opened
 * @example
 * const gateway = await startGateway({ config: loadGatewayConfig('gateway.json'), port: 0, host: '127.0.0.1' });
 * console.log(gateway.url); // http://127.0.0.1:PORT/mcp
 * await gateway.close();
 */
export async function startGateway(options: StartGatewayOptions): Promise<RunningGateway> {
  const log = options.logger ?? jsonLogger();
  const config = parseGatewayConfig(options.config);
  const host = options.host ?? config.gateway.host ?? '0.0.0.0';
  const port = options.port ?? config.gateway.port ?? 8080;
  let state: GatewayState = buildGatewayState(config, host, log);
  const audit = openAudit(config, options.auditLogPath);
  const sessions = new SessionStore(state.sessionTtlMs);
  const services = new ServiceClient(state.maxResponseBytes);
  let shuttingDown = false;
  const inFlight: HttpServerContext['inFlight'] = { count: 0 };
  const ctx: HttpServerContext = {
    state: () => state,
    shuttingDown: () => shuttingDown,
    inFlight,
    sessions,
    log,
    services,
    audit,
    concurrency: { active: 0 },
  };

  const reload = async (next?: GatewayConfig): Promise<void> => {
    if (shuttingDown) throw new Error('the gateway is shutting down');
    if (next === undefined && options.configPath === undefined) {
      throw new Error('reload() needs a config: the gateway was not started from a file');
    }
    try {
      const parsed = next === undefined ? loadGatewayConfig(options.configPath!) : parseGatewayConfig(next);
      const replacement = buildGatewayState(parsed, host, log);
      warnUnchangeable(state.config, parsed, log);
      state = replacement;
      sessions.setTtlMs(replacement.sessionTtlMs);
      services.setMaxResponseBytes(replacement.maxResponseBytes);
    } catch (err) {
      log('error', 'reload refused; keeping the running config', { error: (err as Error).message });
      throw err;
    }
    const notified = broadcast(sessions, 'notifications/tools/list_changed');
    log('info', 'config reloaded', { gateway: state.name, tools: state.toolSet.tools.size, notified_streams: notified });
  };

  const onSighup = (): void => {
    reload().catch(() => undefined);
  };
  let watcher: FSWatcher | undefined;
  if (options.configPath !== undefined) {
    process.on('SIGHUP', onSighup);
    if (options.watch === true) watcher = watchConfig(options.configPath, onSighup);
  }

  const server = createServer(createRequestListener(ctx));
  // Comment frames keep idle notification streams open through proxies that drop silent connections.
  const keepAlive = setInterval(() => broadcastComment(sessions), 25_000);
  keepAlive.unref();
  try {
    await listen(server, port, host);
  } catch (err) {
    process.off('SIGHUP', onSighup);
    clearInterval(keepAlive);
    watcher?.close();
    sessions.close();
    await audit.close();
    await services.close();
    throw err;
  }
  const actualPort = (server.address() as AddressInfo).port;
  const url = `http://${urlHost(host)}:${actualPort}/mcp`;
  log('info', 'listening', { gateway: state.name, url, tools: state.toolSet.tools.size });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      shuttingDown = true;
      process.off('SIGHUP', onSighup);
      clearInterval(keepAlive);
      watcher?.close();
      log('info', 'shutting down', { in_flight: inFlight.count });
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      sessions.close();
      server.closeIdleConnections();
      await drain(inFlight, options.drainTimeoutMs ?? 10_000);
      server.closeAllConnections();
      await closed;
      await audit.close();
      await services.close();
      log('info', 'stopped', { gateway: state.name });
    })();
    return closing;
  };

  return { url, port: actualPort, reload, close };
}

function openAudit(config: GatewayConfig, override: string | undefined): AuditSink {
  if (override !== undefined) return openAuditLog(override);
  const setting = config.gateway.audit_log ?? true;
  if (setting === false) return noAudit;
  return openAuditLog(setting === true ? DEFAULT_AUDIT_LOG_PATH : setting.path);
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function drain(inFlight: HttpServerContext['inFlight'], timeoutMs: number): Promise<void> {
  if (inFlight.count === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, timeoutMs);
    function done(): void {
      clearTimeout(timer);
      inFlight.onIdle = undefined;
      resolve();
    }
    inFlight.onIdle = done;
  });
}

/**
 * Watches the config file. The directory is watched, not the file: editors and `kubectl`-style updates replace
 * the file (a new inode), which a watch on the file itself would miss. Changes come in bursts, so they are debounced.
 */
function watchConfig(path: string, onChange: () => void): FSWatcher {
  const name = basename(path);
  let timer: NodeJS.Timeout | undefined;
  const watcher = watchFile(dirname(path), (_event, filename) => {
    if (filename !== null && filename.toString() !== name) return;
    clearTimeout(timer);
    timer = setTimeout(onChange, 200);
    timer.unref();
  });
  watcher.on('error', () => undefined);
  watcher.unref();
  return watcher;
}

function warnUnchangeable(current: GatewayConfig, next: GatewayConfig, log: Logger): void {
  for (const key of ['host', 'port', 'audit_log'] as const) {
    if (JSON.stringify(current.gateway[key]) !== JSON.stringify(next.gateway[key])) {
      log('warn', `gateway.${key} changes only on restart`, { field: `gateway.${key}` });
    }
  }
}
