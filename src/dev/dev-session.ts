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
import { parseGatewayConfig, startGateway, type Logger, type RunningGateway } from '../gateway';
import { RunningBackend, startBackend } from './backend-process';
import { readDevFile } from './dev-file';
import { DevOptions, DevUsageError, resolveGatewayPort } from './dev-options';
import { backendAuthority, generateDevToken, localGatewayConfig } from './local-gateway-config';
import { findSynthesizedGateways, SynthesizedGateway, SynthOutputError } from './synthesized-gateways';
import { readCdktfJson, synthesizeApp } from './synthesize-app';

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
  readonly gateway: RunningGateway;
}

/** What `dev` started; {@link DevSession.close} stops all of it. */
export interface DevSession {
  readonly gateways: readonly DevGateway[];
  readonly backends: readonly RunningBackend[];
  readonly synthDurationMs: number;
  /** Closes every gateway (draining in-flight calls), then stops every backend. Idempotent. */
  close(): Promise<void>;
}

/** Progress reporting of a dev session. */
export interface DevSessionHooks {
  /** A line for the user (progress, backend output). @default - ignored */
  readonly log?: (line: string) => void;
  /** Receives the gateways' own log records. @default - JSON lines on stdout, like `serve` */
  readonly gatewayLogger?: Logger;
}

/** Runs a whole `dev` start-up; on any failure it stops what it already started and rethrows. */
export async function startDevSession(options: DevOptions, hooks: DevSessionHooks = {}): Promise<DevSession> {
  const log = hooks.log ?? ((): void => undefined);
  const backends: RunningBackend[] = [];
  const gateways: DevGateway[] = [];
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await Promise.allSettled(gateways.map((g) => g.gateway.close()));
      await Promise.allSettled(backends.map((b) => b.child.stop()));
    })();
    return closing;
  };

  try {
    const cdktf = readCdktfJson(options.dir);
    const devFile = readDevFile(options.dir);
    log(`Synthesizing ${options.dir} (${cdktf.app}) ...`);
    const synth = await synthesizeApp({ dir: options.dir, cdktf, timeoutMs: options.synthTimeoutMs });
    let found: SynthesizedGateway[];
    try {
      found = findSynthesizedGateways(synth.outdir);
    } finally {
      fs.rmSync(synth.outdir, { recursive: true, force: true });
    }
    if (found.length === 0) throw new SynthOutputError(`the app in ${options.dir} synthesizes no gateway (no docker_container labelled cdktf-mcp-gateway.gateway)`);
    const configs = found.map((g) => ({ ...g, parsed: parseGatewayConfig(g.config, `stack ${g.stack}, ${g.resource}`) }));
    const ports = configs.map((g) => resolveGatewayPort(options, g.name, g.hostPort, configs.length));
    log(`Synthesized ${configs.length} gateway${configs.length === 1 ? '' : 's'} in ${synth.durationMs} ms`);

    const maps: Record<string, string> = {};
    if (options.startBackends) {
      for (const spec of devFile.backends) {
        log(`Starting backend ${spec.name ?? spec.hosts[0]}: ${spec.command}`);
        const backend = await startBackend(spec, options.dir, (line) => log(`[${spec.name ?? spec.hosts[0]}] ${line}`));
        backends.push(backend);
        for (const host of spec.hosts) maps[host] = backend.address;
      }
    }
    Object.assign(maps, options.maps);

    fs.mkdirSync(options.auditDir, { recursive: true });
    for (const [i, g] of configs.entries()) {
      const token = g.parsed.gateway.auth === 'none' ? undefined : generateDevToken();
      const auditLogPath = path.join(options.auditDir, `audit-${g.name.replace(/[^A-Za-z0-9_.-]/g, '_')}.jsonl`);
      const config = localGatewayConfig(g.parsed, { ...(token !== undefined ? { token } : {}), auditLogPath, maps });
      const gateway = await startGateway({
        config, port: ports[i], host: '127.0.0.1', auditLogPath, ...(hooks.gatewayLogger !== undefined ? { logger: hooks.gatewayLogger } : {}),
      }).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EADDRINUSE') throw err;
        throw new DevUsageError(`gateway ${g.name}: port ${ports[i]} on 127.0.0.1 is in use; choose another with --port ${g.name}=PORT, --port-offset N or --port 0`);
      });
      const unmappedHosts = [...new Set(config.tools.map((t) => backendAuthority(t.backend.url)).filter(
        (a): a is string => a !== undefined && !/^(127\.0\.0\.1|localhost|\[::1\]):/.test(a),
      ))];
      gateways.push({
        name: g.name, stack: g.stack, url: gateway.url, port: gateway.port, ...(token !== undefined ? { token } : {}),
        auditLogPath, toolNames: config.tools.map((t) => t.name), unmappedHosts, gateway,
      });
    }
    return { gateways, backends, synthDurationMs: synth.durationMs, close };
  } catch (err) {
    await close();
    throw err;
  }
}

