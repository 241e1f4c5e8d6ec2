import { parseArgs } from 'node:util';
import { isPort, LISTEN_PORT_RULE } from '../config/rules';
import { UsageError } from '../config/package-error';
import { readGatewayConfigFile, type GatewayConfig } from '../config';
import { ConfigError, loadGatewayConfig, reusePortSupport, startGateway, type RunningGateway } from '../gateway';
import { startValidatedGateway } from '../gateway/start-gateway';
import { TOOL_OUTPUT_SCHEMA_UNCOMPILED, TOOL_SCHEMA_UNCOMPILED } from '../gateway/tools/tool-set';
import { AUDIT_LOG_ENV, MAX_WORKERS, runWorkers, WORKER_ENV } from './workers';

/** `serve --help`. */
export const SERVE_USAGE = `Usage: cdktf-mcp-gateway serve --config FILE [--port N] [--host H] [--audit-log FILE] [--watch] [--status-file FILE] [--workers N] [--check]

Serves the gateway described by FILE (JSON or YAML) over MCP Streamable HTTP at /mcp.

Options:
  --config FILE      the gateway config (required)
  --port N           listen on port N (0 = any free port), overriding gateway.port
  --host H           listen on address H, overriding gateway.host
  --audit-log FILE   write the audit log to FILE (turns it on), overriding gateway.audit_log
                     and the ${AUDIT_LOG_ENV} environment variable
  --watch            reload when FILE changes (SIGHUP always reloads)
  --status-file F    keep the gateway's status in F: the digest of the config it serves, the last
                     refused reload, whether it stopped (what \`apply-config\` waits on)
  --workers N        run N processes sharing the port (SO_REUSEPORT; Node >= 22.12 on Linux), default 1
  --check            load the config and the secrets it names and compile every schema, then exit: 0 with
                     "config ok", or 1 with the one-line reason the gateway would not start for (binds no port,
                     writes no audit record, serves no metrics; a deploy runs it before it replaces a
                     running gateway); a tool whose schema does not compile is named in a warning on stderr
                     (exit 0: the gateway starts and refuses that tool's calls)
  -h, --help         show this help

Where Node supports it (>= 22.12 on Linux) the port is bound with SO_REUSEPORT, so other gateway processes
(replicas on one node) can share it; the start-up line says so (reuse_port).`;

/** The parsed `serve` flags. */
export interface ServeOptions {
  readonly configPath: string;
  readonly port?: number;
  readonly host?: string;
  readonly auditLogPath?: string;
  readonly watch: boolean;
  /** `--status-file FILE`: where the gateway keeps its status. */
  readonly statusFile?: string;
  /** `--workers N`: processes sharing the port (absent = 1). */
  readonly workers?: number;
  /** `--check`: check that the gateway would start, then exit. */
  readonly check?: boolean;
}

export { UsageError };

/**
 * Parses `serve` arguments.
 *
 * @returns the options, or `'help'` for `--help`
 * @throws UsageError naming the bad flag
 */
export function parseServeArgs(argv: readonly string[]): ServeOptions | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        config: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        'audit-log': { type: 'string' },
        watch: { type: 'boolean' },
        'status-file': { type: 'string' },
        workers: { type: 'string' },
        check: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message.split('\n')[0]);
  }
  if (values.help === true) return 'help';
  if (values.config === undefined || values.config === '') throw new UsageError('--config FILE is required');
  let port: number | undefined;
  if (values.port !== undefined) {
    port = /^\d+$/.test(values.port) ? Number(values.port) : NaN;
    if (!isPort(port, true))
      throw new UsageError(`--port: must be ${LISTEN_PORT_RULE}, got ${JSON.stringify(values.port)}`);
  }
  if (values.host === '') throw new UsageError('--host: must not be empty');
  if (values['audit-log'] === '') throw new UsageError('--audit-log: must not be empty');
  if (values['status-file'] === '') throw new UsageError('--status-file: must not be empty');
  let workers: number | undefined;
  if (values.workers !== undefined) {
    workers = /^\d+$/.test(values.workers) ? Number(values.workers) : NaN;
    if (!(workers >= 1 && workers <= MAX_WORKERS)) {
      throw new UsageError(`--workers: must be an integer 1-${MAX_WORKERS}, got ${JSON.stringify(values.workers)}`);
    }
  }
  if (values['status-file'] !== undefined && (workers ?? 1) > 1)
    throw new UsageError('--status-file: one gateway process writes it; drop --workers or --status-file');
  return {
    configPath: values.config,
    port,
    host: values.host,
    auditLogPath: values['audit-log'],
    watch: values.watch === true,
    ...(values['status-file'] !== undefined ? { statusFile: values['status-file'] } : {}),
    ...(workers !== undefined ? { workers } : {}),
    ...(values.check === true ? { check: true } : {}),
  };
}

/**
 * `cdktf-mcp-gateway serve`: loads the config, starts the gateway, reloads on SIGHUP, drains and exits 0 on
 * SIGTERM/SIGINT. A bad flag or config exits non-zero with one line on stderr.
 */
export async function run(argv: string[]): Promise<number> {
  let options: ServeOptions | 'help';
  try {
    options = parseServeArgs(argv);
  } catch (err) {
    process.stderr.write(`cdktf-mcp-gateway: ${(err as Error).message} (see: cdktf-mcp-gateway serve --help)\n`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(`${SERVE_USAGE}\n`);
    return 0;
  }
  if (options.check === true) return check(options);
  if ((options.workers ?? 1) > 1) return runWorkers(options.workers!, argv, options);
  return serve(options);
}

/** One gateway process (a worker of `--workers N`, or the only one). */
async function serve(options: ServeOptions): Promise<number> {
  // the listening line says whether the port is shared (reuse_port)
  const reusePort = reusePortSupport().supported;
  // Signal handlers go in before the gateway starts: a SIGTERM right after the listening line must drain, not kill.
  let requestStop!: () => void;
  const stopRequested = new Promise<void>((resolve) => {
    requestStop = resolve;
  });
  const onSignal = (): void => requestStop();
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // SIGHUP's default action ends the process, and the gateway listens for it only from its start to its shutdown:
  // one held here for the process's whole life keeps a SIGHUP while it starts (reloaded once it serves) or while it
  // drains (ignored) from killing it mid-call.
  let hangUpBeforeStart = false;
  const onHangUp = (): void => {
    hangUpBeforeStart = true;
  };
  process.on('SIGHUP', onHangUp);
  try {
    let gateway: RunningGateway;
    try {
      const { config, digest } = readGatewayConfigFile(options.configPath);
      gateway = await startValidatedGateway({
        config,
        configDigest: digest,
        configPath: options.configPath,
        statusFile: options.statusFile,
        port: options.port,
        host: options.host,
        // the environment lets a Swarm template name the file per replica (audit-{{.Task.Slot}}.jsonl)
        auditLogPath: options.auditLogPath ?? nonEmpty(process.env[AUDIT_LOG_ENV]),
        watch: options.watch,
        reusePort,
      });
    } catch (err) {
      process.stderr.write(`cdktf-mcp-gateway: ${startFailure(err, options.configPath)}\n`);
      return 1;
    }
    // the file may have changed after it was read: the SIGHUP that said so is honoured now
    if (hangUpBeforeStart) gateway.reload().catch(() => undefined);
    // under `--workers`, the primary waits for every worker's listening message
    if (process.env[WORKER_ENV] !== undefined) process.send?.({ type: 'listening', url: gateway.url });
    await stopRequested;
    try {
      await gateway.close();
      return 0;
    } catch (err) {
      process.stderr.write(`cdktf-mcp-gateway: shutdown failed: ${(err as Error).message}\n`);
      return 1;
    }
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    process.off('SIGHUP', onHangUp);
  }
}

/**
 * `serve --check`: everything a start does short of serving (the config, its secrets, every schema, the session
 * key's source), on a loopback port of the system's choosing that is closed at once, with the audit log and the
 * generated-key store left alone. Prints one line either way.
 */
async function check(options: ServeOptions): Promise<number> {
  const problem = await checkConfig(options.configPath, loadGatewayConfig, (warning) =>
    process.stderr.write(`cdktf-mcp-gateway: warning: ${warning}\n`),
  );
  if (problem !== undefined) {
    process.stderr.write(`cdktf-mcp-gateway: ${problem}\n`);
    return 1;
  }
  process.stdout.write(`cdktf-mcp-gateway: config ok (${options.configPath})\n`);
  return 0;
}

/**
 * Everything a start of the gateway on `configPath` does short of serving (see `serve --check`).
 *
 * @param warn told of each tool the gateway would start without (its schema does not compile: its calls are refused)
 * @returns the one-line reason the gateway would not start for, or `undefined` when it would
 */
export async function checkConfig(
  configPath: string,
  load: (file: string) => GatewayConfig = loadGatewayConfig,
  warn: (line: string) => void = () => undefined,
): Promise<string | undefined> {
  let gateway: RunningGateway;
  try {
    const config = load(configPath);
    // the store and a metrics port of its own are the running gateway's: a check must not take them
    const { session_key_store: _store, metrics: _metrics, ...settings } = config.gateway;
    gateway = await startGateway({
      config: { ...config, gateway: { ...settings, audit_log: false } },
      port: 0,
      host: '127.0.0.1',
      logger: (_level, msg, fields) => {
        if ((msg === TOOL_SCHEMA_UNCOMPILED || msg === TOOL_OUTPUT_SCHEMA_UNCOMPILED) && fields !== undefined)
          warn(
            `tool \`${String(fields.tool)}\` will be unavailable (its calls refused with -32603 \`Tool unavailable\`): ${String(fields.error)}`,
          );
      },
    });
  } catch (err) {
    return startFailure(err, configPath);
  }
  await gateway.close();
  return undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === '' ? undefined : value;
}

function startFailure(err: unknown, configPath: string): string {
  if (err instanceof ConfigError) return err.message;
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'EADDRINUSE') return `cannot listen: address already in use (${configPath})`;
  if (e.code === 'EACCES') return `cannot listen: permission denied (${configPath})`;
  if (e.code === 'EADDRNOTAVAIL') return `cannot listen: address not available (${configPath})`;
  return e instanceof Error ? e.message.split('\n')[0] : String(err);
}
