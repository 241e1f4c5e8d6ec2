import { createServer, type Server } from 'node:http';
import type { AddressInfo, ListenOptions } from 'node:net';
import {
  DEFAULT_AUDIT_LOG_PATH,
  DEFAULT_HOST,
  DEFAULT_METRICS,
  DEFAULT_PORT,
  ConfigError,
  configDigest,
  parseGatewayConfig,
  type GatewayConfig,
} from '../config';
import { noAudit, openAuditLog, ReplaceableAudit, StoreAuditLog, type AuditSink } from './audit';
import { watchForReload, type ReloadTrigger } from './config-reload-trigger';
import { buildGatewayState, buildGatewayStateInSlices, type GatewayState } from './state/gateway-state';
import { readConfigInSlices } from './reload/config-thread';
import { changeLogFields, configChangeSteps, isUnchanged } from './reload/config-changes';
import { runInSlices, Slicer } from './reload/event-loop-slices';
import {
  ConnectionGuard,
  createRequestListener,
  handOverPort,
  startMetricsServer,
  type HttpContext,
  type MetricsServer,
} from './http';
import type { Principal } from './auth/bearer-tokens';
import type { OriginGuard } from './auth/origin-guard';
import { urlHost } from './auth/url-host';
import { jsonLogger, type Logger } from './log/logger';
import {
  createSessionSigner,
  loadSessionKey,
  NotificationStreams,
  SESSION_KEY_ENV,
  type SessionKey,
  SessionRevocations,
  type SessionSigner,
} from './mcp';
import type { GatewayMetrics } from './metrics';
import { reusePortSupport } from './reuse-port';
import { StatusFile } from './status-file';
import { RateLimiter } from './limits';
import { SharedStore } from './store';
import { BodyThread, ServiceClient } from './upstream';
import { BackendHealth, backendOrigins, type BackendOrigin } from './upstream/backend-health';
import type { SecretSource } from './upstream/secrets';
import { modernAnswersOf } from './mcp/2026/answers';
import { UnauthorizedLog } from './log/unauthorized-log';

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
  /**
   * Bind with `SO_REUSEPORT`, sharing the port with other processes that do (replicas on one node, `serve
   * --workers`), and hand the port over on `close()` (see `handOverPort`). Needs Node >= 22.12 on Linux
   * (`reusePortSupport()`); a ConfigError otherwise.
   * @default false
   */
  readonly reusePort?: boolean;
  /**
   * The environment the session key may come from (`CDKTF_MCP_GATEWAY_SESSION_KEY`) when the config has no
   * `session_key_file`. @default process.env
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * The digest `/readyz` and the status file report for `config` (`readGatewayConfigFile` gives it for a file).
   * @default - the SHA-256 of the config as JSON
   */
  readonly configDigest?: string;
  /**
   * A file the gateway keeps its status in (the digest of the config it serves, the last refused reload, whether it
   * stopped), read by `apply-config`.
   * @default - no status file
   */
  readonly statusFile?: string;
  /** Where the secrets the config refers to are read from. @default - `/run/secrets` (or `$CDKTF_MCP_GATEWAY_SECRETS_DIR`), then the environment */
  readonly secrets?: SecretSource;
}

/** What a running gateway holds per client, for monitoring (and for tests that prove sessions cost nothing). */
export interface GatewayStats {
  /** Open notification streams (2025 GET and 2026-07-28 listen), all principals. */
  readonly openStreams: number;
  /** Session ids revoked by `DELETE` in this process and not yet expired (bounded). */
  readonly revokedSessions: number;
}

/** A listening gateway. */
export interface RunningGateway {
  /** The MCP endpoint, e.g. `http://127.0.0.1:8080/mcp`. */
  readonly url: string;
  readonly port: number;
  /**
   * Swaps in a new config (or the config file again, when started with `configPath`) after compiling every schema;
   * streams of a principal whose token left the config are closed, and every other notification stream (2025 GET,
   * 2026-07-28 listen) gets `notifications/tools/list_changed`. Rejects, keeping the running config, when invalid.
   */
  reload(config?: GatewayConfig): Promise<void>;
  /** Stops accepting, waits for in-flight calls (bounded), ends notification streams and flushes the audit log. */
  close(): Promise<void>;
  /** What the gateway holds per client right now. */
  stats(): GatewayStats;
}

/**
 * Starts a gateway: validates the config, compiles every tool schema, opens the audit log, then listens.
 *
 * @throws ConfigError for an invalid config, a session key that is short or malformed, or an audit log that cannot be opened
 * @example
 * const gateway = await startGateway({ config: loadGatewayConfig('gateway.json'), port: 0, host: '127.0.0.1' });
 * console.log(gateway.url); // http://127.0.0.1:PORT/mcp
 * await gateway.close();
 */
export async function startGateway(options: StartGatewayOptions): Promise<RunningGateway> {
  // A copy: the caller may edit its object and pass it to reload(), which compares it with the running config.
  const config = parseGatewayConfig(JSON.parse(JSON.stringify(options.config)));
  return startValidatedGateway({ ...options, config });
}

/**
 * {@link startGateway} for `options.config` that `loadGatewayConfig` or `parseGatewayConfig` returned just before,
 * unchanged since (the `serve` command's start): the same start without validating the same document a second
 * time, a cost that grows with the number of tools. Not part of the package's API: a caller holding a config
 * object of unknown origin uses {@link startGateway}.
 */
export async function startValidatedGateway(options: StartGatewayOptions): Promise<RunningGateway> {
  const { config } = options;
  const log = options.logger ?? jsonLogger();
  const host = options.host ?? config.gateway.host ?? DEFAULT_HOST;
  const key = sessionKey(config, options.env ?? process.env);
  const audit = new ReplaceableAudit(openAudit(config, options.auditLogPath, log));
  let gateway: Gateway;
  try {
    gateway = new Gateway(config, host, key, audit, options, log);
  } catch (err) {
    // e.g. a secret the config names is missing: nothing listens yet, but the audit file is open
    await audit.close();
    throw err;
  }
  try {
    await gateway.listen(options.port ?? config.gateway.port ?? DEFAULT_PORT);
  } catch (err) {
    await gateway.close();
    throw err;
  }
  return gateway;
}

/** One running gateway: its state (swapped on reload), its long-lived parts, and its HTTP server. */
class Gateway implements RunningGateway {
  url = '';
  port = 0;
  private state: GatewayState;
  private shuttingDown = false;
  private closing: Promise<void> | undefined;
  /** The reload running or last run: the next one starts after it. */
  private reloads: Promise<unknown> = Promise.resolve();
  /** A reload from the file, last in the queue and not started yet: a reload from the file asked now joins it. */
  private pendingFileReload: Promise<void> | undefined;
  private readonly sessions: SessionSigner;
  private readonly streams: NotificationStreams;
  private readonly services: ServiceClient;
  private readonly http: HttpContext;
  private readonly server: Server;
  private readonly keepAlive: NodeJS.Timeout;
  private readonly reloadTrigger: ReloadTrigger | undefined;
  private readonly metrics: GatewayMetrics | undefined;
  private metricsServer: MetricsServer | undefined;
  private readonly connections: ConnectionGuard;
  private configDigest: string;
  private configLoadedAt = Date.now();
  private readonly status: StatusFile | undefined;
  private store: SharedStore | undefined;
  /** The store config (with its password) the current `store` was made from, to tell a reload that changes it. */
  private storeIdentity = '';
  /** Whether the store answered last (the `/metrics` gauge). */
  private storeUp = false;
  private readonly limiter: RateLimiter;
  private readonly revocations: SessionRevocations;
  private readonly health: BackendHealth;

  constructor(
    config: GatewayConfig,
    private readonly host: string,
    private readonly key: SessionKeyInfo,
    private readonly audit: ReplaceableAudit,
    private readonly options: StartGatewayOptions,
    private readonly log: Logger,
  ) {
    this.state = buildGatewayState(config, host, log, options.secrets);
    this.configDigest = options.configDigest ?? configDigest(JSON.stringify(config));
    this.status = options.statusFile === undefined ? undefined : new StatusFile(options.statusFile, log);
    this.sessions = createSessionSigner({
      key: key.key,
      ttlMs: this.state.sessionTtlMs,
      gateway: this.state.name,
      maxRevokedPerPrincipal: this.state.maxRevokedSessionsPerPrincipal,
    });
    this.streams = new NotificationStreams(this.state.maxStreamsPerPrincipal);
    this.services = new ServiceClient(
      this.state.maxResponseBytes,
      new BodyThread(log),
      this.state.maxHeldResponseBytes,
    );
    const concurrency = { active: 0, byPrincipal: new Map<Principal, number>() };
    this.metrics = this.createMetrics(concurrency);
    this.knowNames();
    ({ store: this.store, identity: this.storeIdentity } = this.storeFor(this.state));
    audit.useStore?.(this.store);
    this.limiter = new RateLimiter(this.store);
    this.revocations = new SessionRevocations(this.sessions, this.store, log);
    this.health = new BackendHealth(() => this.backendOrigins(), log);
    const calls = {
      services: this.services,
      audit,
      concurrency,
      log,
      metrics: this.metrics,
      limiter: this.limiter,
      health: this.health,
    };
    this.http = {
      metrics: config.gateway.metrics === true ? this.metrics : undefined,
      mcp: { sessions: this.sessions, streams: this.streams, calls, revocations: this.revocations },
      readiness: () => readiness(this.state, this.store, this.health),
      log,
      unauthorized: new UnauthorizedLog(log),
      state: () => this.state,
      configDigest: () => this.configDigest,
      configLoadedAt: () => this.configLoadedAt,
      shuttingDown: () => this.shuttingDown,
      inFlight: { count: 0 },
    };
    // node:http's own header and request timeouts (checked every second rather than every 30 s).
    this.server = createServer(
      {
        headersTimeout: this.state.headerTimeoutMs,
        requestTimeout: this.state.requestTimeoutMs,
        connectionsCheckingInterval: 1_000,
      },
      createRequestListener(this.http),
    );
    this.connections = new ConnectionGuard(
      this.server,
      () => this.state,
      (address, reason) => this.log('warn', 'connection closed', { address, reason }),
    );
    // Comment frames keep idle notification streams open through proxies that drop silent connections.
    this.keepAlive = setInterval(() => this.streams.keepAlive(), 25_000);
    this.keepAlive.unref();
    if (options.configPath !== undefined) {
      this.reloadTrigger = watchForReload(options.configPath, options.watch === true, () => {
        this.reload().catch(() => undefined);
      });
    }
  }

  async listen(port: number): Promise<void> {
    const setting = this.state.config.gateway.metrics;
    const reusePort = this.options.reusePort === true;
    if (this.metrics !== undefined && typeof setting === 'object') {
      // The gateway's current Host/Origin allowlists (DNS-rebinding protection), read per request.
      const guard: OriginGuard = (host, origin) => this.state.guard(host, origin);
      this.metricsServer = await startMetricsServer(this.metrics, this.host, setting.port, {
        reusePort,
        guard,
      });
    }
    // the first calls find their backends' names resolved: /readyz waits for them (bounded)
    this.health.resolveNames((host) => this.services.resolve(host));
    // the first calls count in the store when it answers now; the gateway serves either way
    await this.store?.connected(STORE_CONNECT_WAIT_MS);
    await listen(this.server, port, this.host, reusePort);
    this.port = (this.server.address() as AddressInfo).port;
    // The issuer's keys are loaded now rather than at the first token; a failure is logged, never thrown.
    void this.state.auth.warm();
    this.url = `http://${urlHost(this.host)}:${this.port}/mcp`;
    const { name, toolSet } = this.state;
    this.log('info', 'listening', {
      gateway: name,
      url: this.url,
      tools: toolSet.tools.size,
      session_key: this.key.source,
      reuse_port: reusePort,
      config_digest: this.configDigest,
    });
    this.status?.serving(this.configDigest);
  }

  reload(next?: GatewayConfig): Promise<void> {
    // One reload at a time, in the order asked: each builds its state between calls, over many turns of the loop.
    // Reloads from the file that wait in the queue would all read the same file: a burst of SIGHUPs runs one.
    if (next === undefined && this.pendingFileReload !== undefined) return this.pendingFileReload;
    const run: Promise<void> = this.reloads.then(() => {
      if (this.pendingFileReload === run) this.pendingFileReload = undefined;
      return this.reloadNow(next);
    });
    this.reloads = run.catch(() => undefined);
    this.pendingFileReload = next === undefined ? run : undefined;
    return run;
  }

  private async reloadNow(next: GatewayConfig | undefined): Promise<void> {
    if (this.shuttingDown) throw new Error('the gateway is shutting down');
    const file = this.options.configPath;
    if (next === undefined && file === undefined) {
      throw new Error('reload() needs a config: the gateway was not started from a file');
    }
    // a sink opened and a store client made for this reload, not yet in use: closed if the reload is refused
    let unusedAudit: AuditSink | undefined;
    let unusedStore: SharedStore | undefined;
    let nextDigest: string | undefined;
    let prepared;
    try {
      const slicer = new Slicer();
      // `next` is copied: a caller editing one object in place and passing it again would otherwise reload a
      // config identical to the running one (the same object), and no client would hear of the change
      const text = next === undefined ? undefined : JSON.stringify(next);
      const { config: parsed, digest } =
        text === undefined
          ? await readConfigInSlices(file!, this.log, slicer)
          : { config: parseGatewayConfig(JSON.parse(text)), digest: configDigest(text) };
      nextDigest = digest;
      const replacement = await buildGatewayStateInSlices(parsed, this.host, this.log, this.options.secrets, slicer);
      if (this.shuttingDown) throw new Error('the gateway is shutting down');
      warnUnchangeable(this.state.config, parsed, this.log);
      const changes = await runInSlices(configChangeSteps(this.state.config, parsed), slicer);
      // Everything that may fail happens before anything changes, so a refused reload changes nothing: a new
      // audit target is opened (one that cannot be opened refuses the reload) and a new store's client made.
      unusedAudit = this.auditFor(parsed);
      const store = this.storeFor(replacement);
      if (store.store !== this.store) unusedStore = store.store;
      prepared = { parsed, digest, replacement, audit: unusedAudit, store, changes };
    } catch (err) {
      void unusedAudit?.close();
      void unusedStore?.close();
      this.metrics?.recordReload('refused');
      this.log('error', 'reload refused; keeping the running config', { error: (err as Error).message });
      this.status?.refused((err as Error).message, nextDigest);
      throw err;
    }
    // From here on the reload is applied: nothing below refuses it.
    const { parsed, digest, replacement, audit, store, changes } = prepared;
    const previous = this.state;
    this.state = replacement;
    this.swapStore(store);
    void replacement.auth.warm();
    this.sessions.setTtlMs(replacement.sessionTtlMs);
    this.streams.setLimit(replacement.maxStreamsPerPrincipal);
    const closed = this.streams.closePrincipals((p) => replacement.credentialOf(p) === previous.credentialOf(p));
    if (closed > 0) this.log('info', 'streams of removed tokens closed', { streams: closed });
    this.services.setLimits(replacement.maxResponseBytes, replacement.maxHeldResponseBytes);
    if (audit !== undefined) {
      audit.useStore?.(this.store);
      // The new target is in use already: a previous one that fails to close is said, and the reload stands. Not
      // waited for: a pipe whose reader stopped never finishes closing, and this reload (its digest, its status,
      // every reload after it) would wait with it. A shutdown waits for it (ReplaceableAudit.close).
      void this.audit.replace(audit).catch((err: unknown) => {
        this.log('error', 'the previous audit target did not close', { error: (err as Error).message });
      });
      this.log('info', 'audit log moved', { audit_log: auditTarget(parsed) });
    }
    this.knowNames();
    // a new backend's name resolves now rather than on its first call
    for (const { host } of this.backendOrigins()) void this.services.resolve(host);
    this.configDigest = digest;
    this.configLoadedAt = Date.now();
    this.metrics?.recordReload('applied');
    // Any change may alter a caller's list (a token's scopes, the page size); a config read again unchanged does not,
    // and telling every client to list again would have them all do it at once.
    const notified = isUnchanged(changes) ? 0 : this.streams.toolsListChanged();
    const { name, toolSet } = this.state;
    this.log('info', 'config reloaded', {
      gateway: name,
      tools: toolSet.tools.size,
      notified_streams: notified,
      config_digest: this.configDigest,
      ...changeLogFields(changes),
    });
    this.status?.serving(this.configDigest);
  }

  /** A sink for `next`'s `audit_log` when it differs from the running one (never with `--audit-log`). */
  private auditFor(next: GatewayConfig): AuditSink | undefined {
    if (auditTarget(next) === auditTarget(this.state.config)) return undefined;
    if (this.options.auditLogPath !== undefined) {
      this.log('warn', 'audit_log changed but not applied: --audit-log (or its environment variable) sets the audit', {
        audit_log: this.options.auditLogPath,
      });
      return undefined;
    }
    return openAudit(next, undefined, this.log);
  }

  /** The host and port of every backend the config calls. */
  private backendOrigins(): BackendOrigin[] {
    return backendOrigins(this.state.config.tools.map((t) => t.backend.url));
  }

  /**
   * A store for the state's `store` config: the current one when that config (and its password) did not change, or
   * a new one (its client made, not yet in use) that {@link swapStore} puts in place.
   */
  private storeFor(state: GatewayState): { readonly store: SharedStore | undefined; readonly identity: string } {
    const config = state.config.gateway.store;
    const identity = config === undefined ? '' : JSON.stringify([config, state.storePassword ?? null]);
    if (identity === this.storeIdentity) return { store: this.store, identity };
    if (config === undefined) return { store: undefined, identity };
    if (state.limits.any === false) {
      const holds = state.config.gateway.audit_log === 'store' ? 'ended sessions and the audit' : 'ended sessions';
      this.log('info', `limit store configured without rate_limits: it holds ${holds} only`, {});
    }
    // made last: a client, once made, reconnects until closed
    const store = new SharedStore(config, state.storePassword, state.name, this.log, {
      availability: (up) => (this.storeUp = up),
    });
    return { store, identity };
  }

  /** Moves limits, ended sessions and the audit to a reloaded config's store (closing the one it replaces). */
  private swapStore({ store: next, identity }: ReturnType<Gateway['storeFor']>): void {
    const previous = this.store;
    this.storeIdentity = identity;
    if (next === previous) return;
    this.store = next;
    this.limiter.useStore(next);
    this.revocations.useStore(next);
    this.audit.useStore?.(next);
    void previous?.close();
  }

  /** Metrics (`gateway.metrics`), counting calls by the names the current config declares. */
  private createMetrics(concurrency: { readonly active: number }): GatewayMetrics | undefined {
    if ((this.state.config.gateway.metrics ?? DEFAULT_METRICS) === false) return undefined;
    const { GatewayMetrics } = loadMetrics();
    const metrics = new GatewayMetrics(this.state.name, {
      inFlightCalls: () => concurrency.active,
      openStreams: () => this.streams.size,
      storeUp: () => (this.store === undefined ? undefined : this.storeUp ? 1 : 0),
    });
    return metrics;
  }

  private knowNames(): void {
    const { toolSet, tokenIds } = this.state;
    this.metrics?.setKnownNames(toolSet.tools.keys(), tokenIds);
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  stats(): GatewayStats {
    return { openStreams: this.streams.size, revokedSessions: this.sessions.revokedCount };
  }

  /** Stops accepting, drains in-flight calls (bounded), then closes connections, the audit log and the pools. */
  private async shutDown(): Promise<void> {
    this.reloadTrigger?.close();
    clearInterval(this.keepAlive);
    this.connections.close();
    const { name } = this.state;
    this.log('info', 'shutting down', { gateway: name, in_flight: this.http.inFlight.count });
    // with siblings on the port, keep serving while clients move over to them; then refuse as below
    const handedOver =
      this.options.reusePort === true
        ? await handOverPort(this.server, () => this.streams.closeAll(modernAnswersOf(this.state).serverInfo))
        : undefined;
    this.shuttingDown = true;
    let closed: Promise<void>;
    if (handedOver !== undefined) {
      closed = handedOver.closed;
      this.server.close();
    } else {
      closed = this.server.listening
        ? new Promise<void>((resolve) => this.server.close(() => resolve()))
        : Promise.resolve();
    }
    this.streams.closeAll(modernAnswersOf(this.state).serverInfo);
    this.server.closeIdleConnections();
    await drain(this.http.inFlight, this.options.drainTimeoutMs ?? 10_000);
    this.server.closeAllConnections();
    this.http.unauthorized.flush();
    await closed;
    await this.metricsServer?.close();
    await this.audit.close();
    await this.services.close();
    await this.store?.close();
    this.health.close();
    this.status?.stopped();
    this.log('info', 'stopped', { gateway: name });
  }
}

/**
 * `/readyz`'s status and fields: not ready while the backends' names resolve at start, while no backend is reachable, or while the store is down and calls
 * would be refused for it (`on_unavailable: 'refuse'`); how limits count, and the store's state.
 */
function readiness(
  state: GatewayState,
  store: SharedStore | undefined,
  health: BackendHealth,
): { status: string; fields: Record<string, string> } {
  const limits = !state.limits.any ? 'none' : store === undefined ? 'per_replica' : 'shared';
  const fields: Record<string, string> =
    store === undefined
      ? { rate_limits: limits }
      : { rate_limits: limits, store: store.available ? 'available' : 'unavailable' };
  const status =
    health.status !== 'ok'
      ? health.status
      : store !== undefined && !store.available && store.onUnavailable === 'refuse'
        ? 'store_unavailable'
        : 'ok';
  return { status, fields };
}

/** How long a start waits for the limit store before listening without it (calls fall back meanwhile). */
const STORE_CONNECT_WAIT_MS = 2_000;

interface SessionKeyInfo {
  readonly key: Buffer;
  readonly source: SessionKey['source'];
}

/** The session key: `session_key_file`, else the environment variable, else the store, else random; one line if bad. */
function sessionKey(config: GatewayConfig, env: Readonly<Record<string, string | undefined>>): SessionKeyInfo {
  try {
    return loadSessionKey({
      file: config.gateway.session_key_file,
      env: env[SESSION_KEY_ENV],
      store: config.gateway.session_key_store,
    });
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}

/** What `audit_log` says, with its default, as text to compare. */
function auditTarget(config: GatewayConfig): string {
  return JSON.stringify(config.gateway.audit_log ?? true);
}

function openAudit(config: GatewayConfig, override: string | undefined, log: Logger): AuditSink {
  if (override !== undefined) return openAuditLog(override, log);
  const setting = config.gateway.audit_log ?? true;
  if (setting === false) return noAudit;
  if (setting === 'store') return new StoreAuditLog(log);
  return openAuditLog(setting === true ? DEFAULT_AUDIT_LOG_PATH : setting.path, log);
}

function listen(server: Server, port: number, host: string, reusePort: boolean): Promise<void> {
  if (reusePort) {
    const support = reusePortSupport();
    if (!support.supported) return Promise.reject(new ConfigError(`cannot share the port: ${support.reason}`));
  }
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // `reusePort` is in Node >= 22.12's ListenOptions, not yet in @types/node 20's
    server.listen({ port, host, ...(reusePort ? { reusePort } : {}) } as ListenOptions, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function drain(inFlight: HttpContext['inFlight'], timeoutMs: number): Promise<void> {
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

function warnUnchangeable(current: GatewayConfig, next: GatewayConfig, log: Logger): void {
  const restartOnly = [
    'host',
    'port',
    'session_key_file',
    'session_key_store',
    'metrics',
    'max_revoked_sessions_per_principal',
    'header_timeout_ms',
    'request_timeout_ms',
  ] as const;
  for (const key of restartOnly) {
    if (JSON.stringify(current.gateway[key]) !== JSON.stringify(next.gateway[key])) {
      log('warn', `gateway.${key} changes only on restart`, { field: `gateway.${key}` });
    }
  }
}

/** The metrics module, loaded only by a gateway that serves metrics: prom-client costs memory and start-up time. */
function loadMetrics(): typeof import('./metrics') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand, see above
  return require('./metrics') as typeof import('./metrics');
}
