/**
 * The options of `cdktf-mcp-gateway dev [DIR]` and their parsing.
 */
import * as path from 'node:path';
import { DEFAULT_SYNTH_TIMEOUT_MS } from './synthesize-app';

/** Where `dev` serves one gateway. */
export type PortChoice =
  /** the host port the stack publishes (`Gateway.port`), plus `--port-offset` */
  | { readonly kind: 'stack' }
  | { readonly kind: 'fixed'; readonly port: number };

/** Parsed options of the `dev` command. */
export interface DevOptions {
  /** The cdktf app directory (holds `cdktf.json`). */
  readonly dir: string;
  /** Port per gateway name (`--port NAME=PORT`). */
  readonly ports: Readonly<Record<string, number>>;
  /** Port for every gateway not named in `ports` (`--port PORT`, usually 0). @default - the stack's port */
  readonly defaultPort?: number;
  /** Added to the stack's port of every gateway (`--port-offset N`). @default 0 */
  readonly portOffset: number;
  /** Backend `HOST:PORT` → local `HOST:PORT` rewrites (`--map`), applied over those of `dev.json`. */
  readonly maps: Readonly<Record<string, string>>;
  /** Whether to start the backends listed in `DIR/dev.json` (`--no-backends` turns it off). @default true */
  readonly startBackends: boolean;
  /** Directory of the audit logs (`--audit-dir`). @default - `DIR/.dev` */
  readonly auditDir: string;
  /** Longest wait for synthesis, in milliseconds (`--synth-timeout-ms`). @default 120000 */
  readonly synthTimeoutMs: number;
}

/** A bad command line; the message is the one line `dev` prints. */
export class DevUsageError extends Error {}

/** The `dev --help` text. */
export const DEV_USAGE = `Usage: cdktf-mcp-gateway dev [DIR] [options]

Synthesizes the cdktf app in DIR (default: .), starts the backends listed in DIR/dev.json
and serves every gateway of the app on 127.0.0.1 with a fresh bearer token. Ctrl-C stops everything.

Options:
  --port NAME=PORT      serve gateway NAME on PORT (repeatable; 0 = any free port)
  --port PORT           serve every other gateway on PORT (only 0, or a single gateway)
  --port-offset N       add N to every port the stack publishes (default 0)
  --map HOST:PORT=HOST:PORT
                        send calls for a backend host to another address (repeatable),
                        e.g. --map support-desk-api:8080=127.0.0.1:3000
  --no-backends         do not start the backends of DIR/dev.json
  --audit-dir DIR       where the audit logs go (default: DIR/.dev)
  --synth-timeout-ms N  longest wait for synthesis (default 120000)
  -h, --help            show this text`;

const HOST_PORT = /^[A-Za-z0-9._-]+:\d{1,5}$|^\[[0-9A-Fa-f:.]+\]:\d{1,5}$/;

function parsePort(raw: string, flag: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) > 65535) throw new DevUsageError(`${flag}: must be an integer 0-65535, got '${raw}'`);
  return Number(raw);
}

/**
 * Parses the arguments after `dev`. Returns `'help'` for `-h`/`--help`.
 * @param cwd resolves a relative DIR and audit dir @default process.cwd()
 */
export function parseDevArgs(argv: readonly string[], cwd: string = process.cwd()): DevOptions | 'help' {
  let dir: string | undefined;
  let defaultPort: number | undefined;
  let portOffset = 0;
  let startBackends = true;
  let auditDir: string | undefined;
  let synthTimeoutMs = DEFAULT_SYNTH_TIMEOUT_MS;
  const ports: Record<string, number> = {};
  const maps: Record<string, string> = {};

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const takeValue = (): string => {
      if (eq > 0) return arg.slice(eq + 1);
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new DevUsageError(`${name}: missing value`);
      return v;
    };
    switch (name) {
      case '-h':
      case '--help':
        return 'help';
      case '--port': {
        const v = takeValue();
        const sep = v.lastIndexOf('=');
        if (sep < 0) {
          defaultPort = parsePort(v, '--port');
        } else {
          const gateway = v.slice(0, sep);
          if (gateway === '') throw new DevUsageError(`--port: expected NAME=PORT, got '${v}'`);
          ports[gateway] = parsePort(v.slice(sep + 1), `--port ${gateway}`);
        }
        break;
      }
      case '--port-offset': {
        const v = takeValue();
        if (!/^-?\d+$/.test(v)) throw new DevUsageError(`--port-offset: must be an integer, got '${v}'`);
        portOffset = Number(v);
        break;
      }
      case '--map': {
        const v = takeValue();
        const [from, to, extra] = v.split('=');
        if (extra !== undefined || !HOST_PORT.test(from ?? '') || !HOST_PORT.test(to ?? '')) {
          throw new DevUsageError(`--map: expected HOST:PORT=HOST:PORT, got '${v}'`);
        }
        maps[from] = to;
        break;
      }
      case '--no-backends':
        startBackends = false;
        break;
      case '--audit-dir':
        auditDir = path.resolve(cwd, takeValue());
        break;
      case '--synth-timeout-ms': {
        const v = takeValue();
        if (!/^\d+$/.test(v) || Number(v) < 1) throw new DevUsageError(`--synth-timeout-ms: must be a positive integer, got '${v}'`);
        synthTimeoutMs = Number(v);
        break;
      }
      default:
        if (arg.startsWith('-')) throw new DevUsageError(`unknown option '${arg}'`);
        if (dir !== undefined) throw new DevUsageError(`unexpected argument '${arg}' (DIR is already '${dir}')`);
        dir = arg;
    }
  }
  const resolvedDir = path.resolve(cwd, dir ?? '.');
  return {
    dir: resolvedDir,
    ports,
    ...(defaultPort !== undefined ? { defaultPort } : {}),
    portOffset,
    maps,
    startBackends,
    auditDir: auditDir ?? path.join(resolvedDir, '.dev'),
    synthTimeoutMs,
  };
}

/** The port `dev` listens on for a gateway, or a usage error (e.g. `--port 9000` with two gateways). */
export function resolveGatewayPort(options: DevOptions, gateway: string, stackPort: number, gatewayCount: number): number {
  const named = options.ports[gateway];
  if (named !== undefined) return named;
  if (options.defaultPort !== undefined) {
    if (options.defaultPort !== 0 && gatewayCount > 1) {
      throw new DevUsageError(`--port ${options.defaultPort}: the app has ${gatewayCount} gateways; use --port NAME=PORT or --port 0`);
    }
    return options.defaultPort;
  }
  const port = stackPort + options.portOffset;
  if (port < 0 || port > 65535) {
    throw new DevUsageError(`--port-offset ${options.portOffset}: gateway '${gateway}' would listen on ${port}, outside 0-65535`);
  }
  return port;
}
