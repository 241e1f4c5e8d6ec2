/**
 * One `dev` run: synthesize the app, start its backends, serve its gateways on loopback, and stop it all.
 *
 * @example
 * const session = await startDevSession(parseDevArgs(['examples/support-desk', '--port', '0']) as DevOptions);
 * for (const g of session.gateways) console.log(g.name, g.url, g.token);
 * await session.close();
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseGatewayConfig, startGateway, type GatewayConfig, type Logger, type RunningGateway } from '../gateway';
import { RunningBackend, startBackend } from './backend-process';
import { describeConfigChanges } from './config-changes';
import { readDevFile, type DevFile } from './dev-file';
import { DevOptions, DevUsageError, otherPortFlags, resolveGatewayPort } from './dev-options';
import { checkDevSecrets, devSecretSource } from './dev-secrets';
import { openDevState, type DevState } from './dev-state';
import { backendAuthority, localGatewayConfig } from './local-gateway-config';
import { SESSION_KEY_ENV } from '../gateway/mcp';
import type { SecretSource } from '../gateway/upstream/secrets';
import { DEFAULT_FLAG_RULE } from '../dashboard/flag-rule';
import { DEFAULT_RETENTION_MS } from '../dashboard/audit-store';
import { startDashboard, type RunningDashboard } from '../dashboard/start-dashboard';
import {
  findSynthesizedDashboards,
  findSynthesizedGateways,
  SynthesizedDashboard,
  SynthesizedGateway,
  SynthOutputError,
} from './synthesized-gateways';
import { readCdktfJson, synthesizeApp, SynthStoppedError } from './synthesize-app';
import { readSynthWarnings } from './synth-warnings';

/** A gateway `dev` serves. */
export interface DevGateway {
  readonly name: string;
  readonly stack: string;
  /** `http://127.0.0.1:PORT/mcp` */
  readonly url: string;
  readonly port: number;
  /** The bearer token of this run, or `undefined` when the gateway declares `auth: 'none'`. */
  readonly token?: string;
  readonly auditLogPath: string;
  readonly toolNames: readonly string[];
  /** Backend `HOST:PORT`s of its tools that nothing maps to a local backend. */
  readonly unmappedHosts: readonly string[];
  /** Its synthesized config declares a `store`, which `dev` leaves out (one local process counts its own limits). */
  readonly deployedStore: boolean;
  readonly gateway: RunningGateway;
}

/** An audit dashboard `dev` serves (on loopback, so without a token). */
export interface DevDashboard {
  readonly name: string;
  readonly stack: string;
  /** `http://127.0.0.1:PORT/` */
  readonly url: string;
  readonly dashboard: RunningDashboard;
}

/** What `dev` started; {@link DevSession.close} stops all of it. */
export interface DevSession {
  readonly gateways: readonly DevGateway[];
  readonly backends: readonly RunningBackend[];
  /** The app's audit dashboards, each reading every audit log this session writes. */
  readonly dashboards: readonly DevDashboard[];
  readonly synthDurationMs: number;
  /** The folder the tokens and session keys are kept in between runs (`DIR/.dev`). */
  readonly stateDir: string;
  /**
   * Synthesizes the app again and reloads each gateway it still declares whose local config changed, in place
   * (`RunningGateway.reload`: in-flight calls finish, sessions and streams stay, `notifications/tools/list_changed`
   * goes out). A gateway added to or removed from the app is named in the result, not started or stopped.
   *
   * A reload asked while another runs starts once that one has settled.
   *
   * @returns one line per gateway, for the user: what changed ({@link describeConfigChanges}), or that nothing did
   * @throws when synthesis or a config fails: every gateway keeps serving what it served; a `SynthStoppedError`
   * when the session closes meanwhile (its synthesis is stopped) or has closed
   */
  reload(): Promise<string[]>;
  /**
   * Stops a reload's synthesis and waits for that reload, closes every gateway (draining in-flight calls) and
   * dashboard, then stops every backend. Idempotent.
   */
  close(): Promise<void>;
}

/** Progress reporting of a dev session. */
export interface DevSessionHooks {
  /** A line for the user (progress, backend output). @default - ignored */
  readonly log?: (line: string) => void;
  /** Receives the gateways' own log records. @default - JSON lines on stdout, like `serve` */
  readonly gatewayLogger?: Logger;
  /** The environment secrets and `CDKTF_MCP_GATEWAY_SESSION_KEY` are read from. @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** What every gateway of one `dev` run shares: its kept tokens and keys, its secrets. */
interface LocalServing {
  readonly state: DevState;
  readonly secrets: SecretSource;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Runs a whole `dev` start-up; on any failure it stops what it already started and rethrows. */
export async function startDevSession(options: DevOptions, hooks: DevSessionHooks = {}): Promise<DevSession> {
  const log = hooks.log ?? ((): void => undefined);
  const backends: RunningBackend[] = [];
  const gateways: DevGateway[] = [];
  const dashboards: DevDashboard[] = [];
  let closing: Promise<void> | undefined;
  const reloads = new Reloads();
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await reloads.stop();
      await Promise.allSettled([
        ...gateways.map((g) => g.gateway.close()),
        ...dashboards.map((d) => d.dashboard.close()),
      ]);
      await Promise.allSettled(backends.map((b) => b.child.stop()));
    })();
    return closing;
  };

  try {
    const devFile = readDevFile(options.dir);
    const { found, foundDashboards, synthDurationMs } = await synthesizeGateways(options, log);
    const ports = found.map((g) => resolveGatewayPort(options, g.name, g.hostPort, found.length));
    const env = hooks.env ?? process.env;
    const secrets = devSecretSource(options.stateDir, env);
    // every secret of every gateway is checked before any backend starts
    for (const g of found) checkDevSecrets(g.name, g.parsed, secrets);
    const state = openDevState(options.stateDir, { fresh: options.fresh });
    const local: LocalServing = { state, secrets, env };
    const maps: Record<string, string> = Object.create(null) as Record<string, string>;
    if (options.startBackends) Object.assign(maps, await startBackends(devFile.backends, options.dir, log, backends));
    Object.assign(maps, options.maps);
    fs.mkdirSync(options.auditDir, { recursive: true });
    // the local config each gateway serves now: a reload compares the new one with it
    const applied = new Map<DevGateway, GatewayConfig>();
    for (const [i, g] of found.entries()) {
      const { served, config } = await serveGateway(g, ports[i], maps, options, hooks, local);
      gateways.push(served);
      applied.set(served, config);
    }
    for (const d of foundDashboards) dashboards.push(await serveDashboard(d, options, hooks));
    const reload = (): Promise<string[]> =>
      reloads.run(async (signal) => {
        const again = (await synthesizeGateways(options, log, signal)).found;
        for (const g of again) checkDevSecrets(g.name, g.parsed, secrets);
        // every config is built before any gateway takes its own, so a bad one changes nothing
        const planned = again.map((g) => {
          const served = gateways.find((d) => d.stack === g.stack && d.name === g.name);
          return { g, served, config: served && localConfig(g, maps, options, local).config };
        });
        const lines: string[] = [];
        for (const { g, served, config } of planned) {
          if (served === undefined || config === undefined) {
            lines.push(`Gateway ${g.name} (stack ${g.stack}) is new in the app: restart dev to serve it`);
            continue;
          }
          // an unchanged config is not reloaded: a reload tells every connected client its tools changed
          const changes = describeConfigChanges(applied.get(served)!, config);
          if (changes.length === 0) {
            lines.push(`Gateway ${g.name} unchanged`);
            continue;
          }
          await served.gateway.reload(config);
          const updated = { ...served, ...servedTools(config) };
          gateways[gateways.indexOf(served)] = updated;
          applied.delete(served);
          applied.set(updated, config);
          lines.push(`Reloaded gateway ${g.name}: ${changes.join('; ')}`);
          // a tool added with a backend nothing maps fails its calls: said now, as at the start
          const newlyUnmapped = updated.unmappedHosts.filter((h) => !served.unmappedHosts.includes(h));
          if (newlyUnmapped.length > 0) lines.push(noLocalBackendWarning(newlyUnmapped));
        }
        for (const d of gateways.filter((x) => !again.some((g) => g.stack === x.stack && g.name === x.name)))
          lines.push(`Gateway ${d.name} (stack ${d.stack}) is no longer in the app: restart dev to stop serving it`);
        return lines;
      });
    return { gateways, backends, dashboards, synthDurationMs, stateDir: options.stateDir, reload, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * A session's reloads, one at a time: a reload asked while another runs starts when that one has settled (two would
 * apply their configs to the same gateways at once). Stopping stops the synthesis under way, starts none of those
 * waiting, and waits for all of them to settle.
 */
class Reloads {
  private readonly stopping = new AbortController();
  /** The last reload asked for; it settles after every one asked before it. */
  private last: Promise<unknown> = Promise.resolve();

  run(reload: (signal: AbortSignal) => Promise<string[]>): Promise<string[]> {
    const signal = this.stopping.signal;
    const run = this.last.then(() => {
      if (signal.aborted) throw new SynthStoppedError('dev is stopping');
      return reload(signal);
    });
    this.last = run.catch(() => undefined);
    return run;
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.last;
  }
}

type FoundGateway = SynthesizedGateway & { readonly parsed: GatewayConfig };

/**
 * Synthesizes the app and reads its gateways (of `--stack` only, when given), their configs checked; logs the
 * warnings of those stacks.
 */
async function synthesizeGateways(options: DevOptions, log: (line: string) => void, signal?: AbortSignal) {
  const cdktf = readCdktfJson(options.dir);
  log(`Synthesizing ${options.dir} (${cdktf.app}) ...`);
  const synth = await synthesizeApp({ dir: options.dir, cdktf, timeoutMs: options.synthTimeoutMs, signal });
  let synthesized: SynthesizedGateway[];
  let foundDashboards: SynthesizedDashboard[];
  let warnings: string[];
  try {
    synthesized = findSynthesizedGateways(synth.outdir, options.stacks);
    foundDashboards = findSynthesizedDashboards(synth.outdir, options.stacks);
    warnings = readSynthWarnings(synth.outdir, options.stacks);
  } finally {
    fs.rmSync(synth.outdir, { recursive: true, force: true });
  }
  // as `cdktf synth` shows them, on every synthesis: an edit may add or settle one
  for (const message of warnings) log(`Warning: ${message}`);
  if (synthesized.length === 0) {
    const where = options.stacks.length === 0 ? '' : ` (stacks ${options.stacks.join(', ')})`;
    throw new SynthOutputError(
      `the app in ${options.dir}${where} synthesizes no gateway (no docker_container labelled cdktf-mcp-gateway.gateway)`,
    );
  }
  const found: FoundGateway[] = synthesized.map((g) => ({
    ...g,
    parsed: parseGatewayConfig(g.config, `stack ${g.stack}, ${g.resource}`),
  }));
  log(`Synthesized ${found.length} gateway${found.length === 1 ? '' : 's'} in ${synth.durationMs} ms`);
  return { found, foundDashboards, synthDurationMs: synth.durationMs };
}

/**
 * Serves one audit dashboard on loopback (no token needed there) over the session's audit directory: under `dev`
 * it reads the logs of every gateway `dev` serves, whichever gateways the construct names.
 */
async function serveDashboard(
  d: SynthesizedDashboard,
  options: DevOptions,
  hooks: DevSessionHooks,
): Promise<DevDashboard> {
  // its own --port NAME=PORT, any free port with --port 0, else the stack's port plus the offset
  const port = options.ports[d.name] ?? (options.defaultPort === 0 ? 0 : d.hostPort + options.portOffset);
  const dashboard = await startDashboard(
    {
      auditDirs: [options.auditDir],
      port,
      host: '127.0.0.1',
      auth: undefined,
      retentionMs: d.config.retention_ms ?? DEFAULT_RETENTION_MS,
      flag: {
        minRefusals: d.config.flag?.min_refusals ?? DEFAULT_FLAG_RULE.minRefusals,
        minRate: d.config.flag?.min_rate ?? DEFAULT_FLAG_RULE.minRate,
      },
    },
    hooks.gatewayLogger !== undefined ? { logger: hooks.gatewayLogger } : {},
  ).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EADDRINUSE') throw err;
    throw new DevUsageError(
      `dashboard ${d.name}: port ${port} on 127.0.0.1 is in use; choose another with ` +
        otherPortFlags([`--port ${d.name}=PORT`, '--port-offset N']),
    );
  });
  return { name: d.name, stack: d.stack, url: dashboard.url, dashboard };
}

/** Starts the backends of `dev.json`; returns the backend host → local address map. */
async function startBackends(
  specs: DevFile['backends'],
  dir: string,
  log: (line: string) => void,
  started: RunningBackend[],
): Promise<Record<string, string>> {
  const maps: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const spec of specs) {
    const label = spec.name ?? spec.hosts[0];
    log(`Starting backend ${label}: ${spec.command}`);
    const backend = await startBackend(spec, dir, (line) => log(`[${label}] ${line}`));
    started.push(backend);
    for (const host of spec.hosts) maps[host] = backend.address;
  }
  return maps;
}

/** The config a gateway is served with locally: its kept token and session key, its backends mapped. */
function localConfig(
  g: FoundGateway,
  maps: Readonly<Record<string, string>>,
  options: DevOptions,
  local: LocalServing,
): { token?: string; auditLogPath: string; config: GatewayConfig } {
  const token = g.parsed.gateway.auth === 'none' ? undefined : local.state.token(g.stack, g.name);
  const auditLogPath = path.join(options.auditDir, `audit-${g.name.replace(/[^A-Za-z0-9_.-]/g, '_')}.jsonl`);
  const sessionKeyFromEnv = (local.env[SESSION_KEY_ENV] ?? '') !== '';
  const config = localGatewayConfig(g.parsed, {
    ...(token !== undefined ? { token } : {}),
    auditLogPath,
    maps,
    sessionKeyFile: sessionKeyFromEnv ? undefined : local.state.sessionKeyFile(g.stack, g.name),
  });
  return { ...(token !== undefined ? { token } : {}), auditLogPath, config };
}

/**
 * Serves one gateway on loopback with its kept token and session key (unless the environment gives the key), its
 * backends mapped to local addresses.
 */
async function serveGateway(
  g: FoundGateway,
  port: number,
  maps: Readonly<Record<string, string>>,
  options: DevOptions,
  hooks: DevSessionHooks,
  local: LocalServing,
): Promise<{ served: DevGateway; config: GatewayConfig }> {
  const { token, auditLogPath, config } = localConfig(g, maps, options, local);
  const logger = hooks.gatewayLogger !== undefined ? { logger: hooks.gatewayLogger } : {};
  const served = { config, port, host: '127.0.0.1', auditLogPath, env: local.env, secrets: local.secrets, ...logger };
  const gateway = await startGateway(served).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EADDRINUSE') throw err;
    throw new DevUsageError(
      `gateway ${g.name}: port ${port} on 127.0.0.1 is in use; choose another with ` +
        otherPortFlags([`--port ${g.name}=PORT`, '--port-offset N', '--port 0']),
    );
  });
  const dev: DevGateway = {
    name: g.name,
    stack: g.stack,
    url: gateway.url,
    port: gateway.port,
    ...(token !== undefined ? { token } : {}),
    auditLogPath,
    ...servedTools(config),
    deployedStore: g.parsed.gateway.store !== undefined,
    gateway,
  };
  return { served: dev, config };
}

/**
 * The tools of a local config, and the backend `HOST:PORT`s among them that are not on loopback: nothing maps them
 * to a local backend.
 */
function servedTools(config: GatewayConfig): Pick<DevGateway, 'toolNames' | 'unmappedHosts'> {
  const authorities = config.tools.map((t) => backendAuthority(t.backend.url));
  const unmappedHosts = [
    ...new Set(
      authorities.filter((a): a is string => a !== undefined && !/^(127\.0\.0\.1|localhost|\[::1\]):/.test(a)),
    ),
  ];
  return { toolNames: config.tools.map((t) => t.name), unmappedHosts };
}

/** The line that tells a user some tools' backends run nowhere locally, and how to map them. */
export function noLocalBackendWarning(hosts: readonly string[]): string {
  return (
    `Warning: no local backend for ${hosts.join(', ')}; calls to those tools will fail ` +
    '(use --map HOST:PORT=127.0.0.1:PORT or dev.json)'
  );
}
