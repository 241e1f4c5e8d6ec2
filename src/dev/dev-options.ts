/**
 * The options of `cdktf-mcp-gateway dev [DIR]` and their parsing.
 */
import * as path from 'node:path';
import { isPort, LISTEN_PORT_RULE, MAX_PORT } from '../config/rules';
import { parseArgs } from 'node:util';
import { UsageError } from '../config/package-error';
import { DEFAULT_SYNTH_TIMEOUT_MS } from './synthesize-app';

/**
 * An npm script that ends by running `dev` (`cdktf-mcp-gateway dev`, or the CLI's own `main.js dev`): flags after
 * `--` reach it only when nothing follows it in the script (no pipe, `&&` or `;`).
 */
const DEV_SCRIPT = /(?:cdktf-mcp-gateway|main\.js)\s+dev\b[^|&;]*$/;

/**
 * `dev` with `flags` as its user passes them: through the npm script that started it, after `--` (npm takes the
 * flags before it as its own: `npm start --fresh` warns and drops the flag), else `dev FLAGS`.
 * @example devCommand('--fresh') // 'npm start -- --fresh' under `npm start`
 */
export function devCommand(flags: string, env: NodeJS.ProcessEnv = process.env): string {
  const script = env.npm_lifecycle_event;
  // yarn and pnpm pass flags on otherwise, and their scripts set the same variables: only npm's get the `--` form
  const npm = (env.npm_config_user_agent ?? '').startsWith('npm/');
  if (script === undefined || !npm || !DEV_SCRIPT.test(env.npm_lifecycle_script ?? '')) return `dev ${flags}`;
  return `${script === 'start' ? 'npm start' : `npm run ${script}`} -- ${flags}`;
}

/**
 * The flags that choose another port, each worded as {@link devCommand} words it (a bare flag when `dev` runs by
 * itself), joined as a sentence: `--port agents=PORT, --port-offset N or --port 0`.
 */
export function otherPortFlags(flags: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  const worded = flags.map((flag) => devCommand(flag, env).replace(/^dev /, ''));
  return `${worded.slice(0, -1).join(', ')} or ${worded[worded.length - 1]}`;
}

/** Where `dev` serves one gateway. */
export type PortChoice =
  /** the host port the stack publishes (`Gateway.port`), plus `--port-offset` */
  { readonly kind: 'stack' } | { readonly kind: 'fixed'; readonly port: number };

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
  /** Only the gateways of these stacks (`--stack NAME`, repeatable). @default - every stack */
  readonly stacks: readonly string[];
  /** Whether to start the backends listed in `DIR/dev.json` (`--no-backends` turns it off). @default true */
  readonly startBackends: boolean;
  /** Directory of the audit logs (`--audit-dir`). @default - `DIR/.dev` */
  readonly auditDir: string;
  /** Longest wait for synthesis, in milliseconds (`--synth-timeout-ms`). @default 120000 */
  readonly synthTimeoutMs: number;
  /** Where the tokens, session keys and secret files of `dev` are kept between runs. @default - `DIR/.dev` */
  readonly stateDir: string;
  /** Make new tokens and session keys instead of the kept ones (`--fresh`). @default false */
  readonly fresh: boolean;
}

/** A bad `dev` command line; the message is the one line `dev` prints. */
export class DevUsageError extends UsageError {}

/** The `dev --help` text. */
export const DEV_USAGE = `Usage: cdktf-mcp-gateway dev [DIR] [options]

Synthesizes the cdktf app in DIR (default: .), starts the backends listed in DIR/dev.json
and serves every gateway of the app on 127.0.0.1 with a bearer token. The tokens and session keys
are kept in DIR/.dev (mode 0600, git-ignored), so a restart keeps clients connected; secrets come
from DIR/.dev/secrets/NAME or the environment. Ctrl-C stops everything.

Options:
  --port NAME=PORT      serve gateway NAME on PORT (repeatable; 0 = any free port)
  --port PORT           serve every other gateway on PORT (only 0, or a single gateway)
  --port-offset N       add N to every port the stack publishes (default 0)
  --map HOST:PORT=HOST:PORT
                        send calls for a backend host to another address (repeatable),
                        e.g. --map support-desk-api:8080=127.0.0.1:3000
  --stack NAME          serve only the gateways of stack NAME (repeatable; default: every stack)
  --no-backends         do not start the backends of DIR/dev.json
  --audit-dir DIR       where the audit logs go (default: DIR/.dev)
  --synth-timeout-ms N  longest wait for synthesis (default 120000)
  --fresh               new tokens and session keys instead of those kept in DIR/.dev
  -h, --help            show this text`;

const HOST_PORT = /^[A-Za-z0-9._-]+:\d{1,5}$|^\[[0-9A-Fa-f:.]+\]:\d{1,5}$/;

const FLAGS = {
  help: { type: 'boolean', short: 'h' },
  port: { type: 'string', multiple: true },
  'port-offset': { type: 'string' },
  map: { type: 'string', multiple: true },
  stack: { type: 'string', multiple: true },
  'no-backends': { type: 'boolean' },
  'audit-dir': { type: 'string' },
  'synth-timeout-ms': { type: 'string' },
  fresh: { type: 'boolean' },
} as const;

/**
 * Parses the arguments after `dev`. Returns `'help'` for `-h`/`--help`.
 * @param cwd resolves a relative DIR and audit dir @default process.cwd()
 */
export function parseDevArgs(argv: readonly string[], cwd: string = process.cwd()): DevOptions | 'help' {
  const { values, positionals } = readFlags(argv);
  if (values.help === true) return 'help';
  if (positionals.length > 1) {
    throw new DevUsageError(`unexpected argument '${positionals[1]}' (DIR is already '${positionals[0]}')`);
  }
  const dir = path.resolve(cwd, positionals[0] ?? '.');
  const { ports, defaultPort } = parsePorts(values.port ?? []);
  return {
    dir,
    ports,
    ...(defaultPort !== undefined ? { defaultPort } : {}),
    portOffset: parseInteger(values['port-offset'], '--port-offset', /^-?\d+$/, 'an integer') ?? 0,
    maps: parseMaps(values.map ?? []),
    stacks: values.stack ?? [],
    startBackends: values['no-backends'] !== true,
    auditDir: values['audit-dir'] === undefined ? path.join(dir, '.dev') : path.resolve(cwd, values['audit-dir']),
    synthTimeoutMs:
      parseInteger(values['synth-timeout-ms'], '--synth-timeout-ms', /^[1-9]\d*$/, 'a positive integer') ??
      DEFAULT_SYNTH_TIMEOUT_MS,
    stateDir: path.join(dir, '.dev'),
    fresh: values.fresh === true,
  };
}

/** `node:util` parseArgs, its errors turned into the one line `dev` prints. */
function readFlags(argv: readonly string[]) {
  // A flag's value is never another flag: `--port --map x` misses the port's value.
  argv.forEach((arg, i) => {
    const flag = FLAGS[arg.slice(2) as keyof typeof FLAGS] as { type: string } | undefined;
    if (
      arg.startsWith('--') &&
      flag?.type === 'string' &&
      (argv[i + 1] === undefined || argv[i + 1].startsWith('--'))
    ) {
      throw new DevUsageError(`${arg}: missing value`);
    }
  });
  // parseArgs reads `--port-offset -100` as a flag without its value: join a negative number to its flag
  const args: string[] = [];
  for (const arg of argv) {
    const flag = args.at(-1);
    if (/^-\d+$/.test(arg) && flag?.startsWith('--') === true && !flag.includes('='))
      args[args.length - 1] = `${flag}=${arg}`;
    else args.push(arg);
  }
  try {
    return parseArgs({ args, options: FLAGS, allowPositionals: true, strict: true });
  } catch (err) {
    const unknown = /Unknown option '([^']+)'/.exec((err as Error).message);
    throw new DevUsageError(unknown ? `unknown option '${unknown[1]}'` : (err as Error).message.split('\n')[0]);
  }
}

function parsePort(raw: string, flag: string): number {
  if (!/^\d+$/.test(raw) || !isPort(Number(raw), true))
    throw new DevUsageError(`${flag}: must be ${LISTEN_PORT_RULE}, got '${raw}'`);
  return Number(raw);
}

/** `--port NAME=PORT` (per gateway) and `--port PORT` (every other gateway). */
function parsePorts(values: readonly string[]): { ports: Record<string, number>; defaultPort?: number } {
  // Null-prototype maps: a gateway or host named like an inherited property (`constructor`) is looked up as itself.
  const ports: Record<string, number> = Object.create(null) as Record<string, number>;
  let defaultPort: number | undefined;
  for (const v of values) {
    const sep = v.lastIndexOf('=');
    if (sep < 0) {
      defaultPort = parsePort(v, '--port');
      continue;
    }
    const gateway = v.slice(0, sep);
    if (gateway === '') throw new DevUsageError(`--port: expected NAME=PORT, got '${v}'`);
    ports[gateway] = parsePort(v.slice(sep + 1), `--port ${gateway}`);
  }
  return { ports, defaultPort };
}

function parseMaps(values: readonly string[]): Record<string, string> {
  const maps: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const v of values) {
    const [from, to, extra] = v.split('=');
    if (extra !== undefined || !HOST_PORT.test(from ?? '') || !HOST_PORT.test(to ?? '')) {
      throw new DevUsageError(`--map: expected HOST:PORT=HOST:PORT, got '${v}'`);
    }
    maps[from] = to;
  }
  return maps;
}

function parseInteger(raw: string | undefined, flag: string, shape: RegExp, what: string): number | undefined {
  if (raw === undefined) return undefined;
  if (!shape.test(raw)) throw new DevUsageError(`${flag}: must be ${what}, got '${raw}'`);
  return Number(raw);
}

/** The port `dev` listens on for a gateway, or a usage error (e.g. `--port 9000` with two gateways). */
export function resolveGatewayPort(
  options: DevOptions,
  gateway: string,
  stackPort: number,
  gatewayCount: number,
): number {
  const named = options.ports[gateway];
  if (named !== undefined) return named;
  if (options.defaultPort !== undefined) {
    if (options.defaultPort !== 0 && gatewayCount > 1) {
      throw new DevUsageError(
        `--port ${options.defaultPort}: the app has ${gatewayCount} gateways; use --port NAME=PORT or --port 0`,
      );
    }
    return options.defaultPort;
  }
  const port = stackPort + options.portOffset;
  if (!isPort(port, true)) {
    throw new DevUsageError(
      `--port-offset ${options.portOffset}: gateway '${gateway}' would listen on ${port}, outside 0-${MAX_PORT}`,
    );
  }
  return port;
}
