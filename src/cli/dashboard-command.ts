import { parseArgs } from 'node:util';
import { isPort, LISTEN_PORT_RULE } from '../config/rules';
import { UsageError } from '../config/package-error';
import { ConfigError } from '../dashboard';
import {
  checkTokenHash,
  DEFAULT_DASHBOARD_HOST,
  DEFAULT_DASHBOARD_PORT,
  DEFAULT_FLAG_RULE,
  loadDashboardConfig,
  startDashboard,
  type DashboardSettings,
  type RunningDashboard,
} from '../dashboard';

const USAGE = `Usage: cdktf-mcp-gateway dashboard --audit-dir DIR [--audit-dir DIR ...] [--port N] [--host H]
                                   [--token-sha256 HEX ...] [--retention-days N]
       cdktf-mcp-gateway dashboard --config FILE

Serves the audit dashboard: reads every *.jsonl audit file in each DIR (all gateways, all replicas), follows
them as they grow, and shows which agents fail systematically, on which tool, with which message.

Options:
  --audit-dir DIR       a directory of audit files (repeatable; at least one, unless --config names stores)
  --port N              listen on port N (0 = any free port; default ${DEFAULT_DASHBOARD_PORT})
  --host H              listen on address H (default ${DEFAULT_DASHBOARD_HOST}); any address other than loopback
                        needs a token
  --token-sha256 HEX    the SHA-256 (64 lowercase hex) of a token that may read the dashboard (repeatable);
                        send it as Authorization: Bearer TOKEN, or open /?token=TOKEN once in a browser
  --retention-days N    keep N days of minute buckets (default 7)
  --config FILE         read all of the above from a JSON file instead:
                        { "audit_dirs": [...],
                          "audit_stores": [{ "gateway": "support", "url": "redis://store:6379",
                                             "password_file": "/run/secrets/store" }],
                          "port": 8090, "host": "0.0.0.0",
                          "auth": { "tokens": [{ "id": "ops", "sha256": "<hex>" }] } | "none",
                          "retention_ms": 604800000, "flag": { "min_refusals": 10, "min_rate": 0.5 } }
  -h, --help            show this help`;

export { UsageError };

/**
 * Parses `dashboard` arguments into settings (reading `--config FILE` when given).
 *
 * @returns the settings, or `'help'` for `--help`
 * @throws UsageError naming the bad flag; ConfigError for a bad config file
 */
export function parseDashboardArgs(argv: readonly string[]): DashboardSettings | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        'audit-dir': { type: 'string', multiple: true },
        port: { type: 'string' },
        host: { type: 'string' },
        'token-sha256': { type: 'string', multiple: true },
        'retention-days': { type: 'string' },
        config: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message.split('\n')[0]);
  }
  if (values.help === true) return 'help';
  if (values.config !== undefined) {
    const others = Object.keys(values).filter((k) => k !== 'config');
    if (others.length > 0)
      throw new UsageError(`--config FILE cannot be combined with --${others[0]} (put it in the file)`);
    if (values.config === '') throw new UsageError('--config: must not be empty');
    return loadDashboardConfig(values.config);
  }
  const dirs = values['audit-dir'] ?? [];
  if (dirs.length === 0) {
    throw new UsageError(
      '--audit-dir DIR is required (or --config FILE, whose audit_stores read gateways from a store)',
    );
  }
  if (dirs.includes('')) throw new UsageError('--audit-dir: must not be empty');
  let port = DEFAULT_DASHBOARD_PORT;
  if (values.port !== undefined) {
    port = /^\d{1,5}$/.test(values.port) ? Number(values.port) : NaN;
    if (!isPort(port, true))
      throw new UsageError(`--port: must be ${LISTEN_PORT_RULE}, got ${JSON.stringify(values.port)}`);
  }
  if (values.host === '') throw new UsageError('--host: must not be empty');
  let retentionDays = 7;
  if (values['retention-days'] !== undefined) {
    const text = values['retention-days'];
    retentionDays = /^\d{1,2}$/.test(text) ? Number(text) : NaN;
    if (!(retentionDays >= 1 && retentionDays <= 90)) {
      throw new UsageError(`--retention-days: must be an integer 1-90, got ${JSON.stringify(text)}`);
    }
  }
  const hashes = (values['token-sha256'] ?? []).map((hash) => {
    try {
      return checkTokenHash(hash, '--token-sha256');
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  });
  return {
    auditDirs: dirs,
    port,
    host: values.host ?? DEFAULT_DASHBOARD_HOST,
    auth: hashes.length === 0 ? undefined : { tokens: hashes.map((sha256, i) => ({ id: `token-${i + 1}`, sha256 })) },
    retentionMs: retentionDays * 86_400_000,
    flag: DEFAULT_FLAG_RULE,
  };
}

/**
 * `cdktf-mcp-gateway dashboard`: starts the dashboard, prints `Dashboard: URL` on its own line, and stops on
 * SIGTERM/SIGINT (exit 0). A bad flag exits 2, a bad config or an unusable address 1, each with one line on stderr.
 */
export async function run(argv: string[]): Promise<number> {
  let settings: DashboardSettings | 'help';
  try {
    settings = parseDashboardArgs(argv);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`cdktf-mcp-gateway: ${err.message}\n`);
      return 1;
    }
    process.stderr.write(`cdktf-mcp-gateway: ${(err as Error).message} (see: cdktf-mcp-gateway dashboard --help)\n`);
    return 2;
  }
  if (settings === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let requestStop!: () => void;
  const stopRequested = new Promise<void>((resolve) => {
    requestStop = resolve;
  });
  const onSignal = (): void => requestStop();
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    let dashboard: RunningDashboard;
    try {
      dashboard = await startDashboard(settings);
    } catch (err) {
      process.stderr.write(`cdktf-mcp-gateway: ${startFailure(err, settings)}\n`);
      return 1;
    }
    process.stdout.write(`Dashboard: ${dashboard.url}\n`);
    await stopRequested;
    await dashboard.close();
    return 0;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}

function startFailure(err: unknown, settings: DashboardSettings): string {
  if (err instanceof ConfigError) return err.message;
  const e = err as NodeJS.ErrnoException;
  const where = `${settings.host}:${settings.port}`;
  if (e.code === 'EADDRINUSE') return `dashboard: cannot listen on ${where}: address already in use`;
  if (e.code === 'EACCES') return `dashboard: cannot listen on ${where}: permission denied`;
  if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND')
    return `dashboard: cannot listen on ${where}: address not available`;
  return e instanceof Error ? e.message.split('\n')[0] : String(err);
}
