#!/usr/bin/env node
/**
 * The `cdktf-mcp-gateway` command: dispatches to a subcommand module, each exporting
 * `run(argv: string[]): Promise<number>` (the process exit code).
 */
import { PACKAGE_VERSION } from '../package-info';

const USAGE = `Usage:
  cdktf-mcp-gateway serve --config FILE [--port N] [--host H] [--audit-log FILE] [--watch]
  cdktf-mcp-gateway apply-config --config FILE --state-dir DIR   (see: cdktf-mcp-gateway apply-config --help)
  cdktf-mcp-gateway dev [DIR] [options]   (see: cdktf-mcp-gateway dev --help)
  cdktf-mcp-gateway dashboard --audit-dir DIR... [options]   (see: cdktf-mcp-gateway dashboard --help)
  cdktf-mcp-gateway --version             (or -v)`;

interface Command {
  run(argv: string[]): Promise<number>;
}

/** Loads a subcommand only when it runs, so `serve` never pays for `dev`'s imports (and the reverse). */
function loadCommand(path: string): Command {
  // require, not import(): under "module": "node16" a dynamic import stays an ESM import and needs extensions.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy loading, see above
  return require(path) as Command;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      // SIGHUP's default action ends the process. `serve` reads its file after loading, so a SIGHUP sent while it
      // loads (a config written just before the start) needs no reload, only not to be a kill; nor one sent after
      // it stopped, while the process waits for its stdout (exit 0, not 129). The handler keeps nothing alive.
      process.on('SIGHUP', () => undefined);
      return loadCommand('./serve-command').run(rest);
    case 'apply-config':
      return loadCommand('./apply-config-command').run(rest);
    case 'dev':
      return loadCommand('./dev-command').run(rest);
    case 'dashboard':
      return loadCommand('./dashboard-command').run(rest);
    case '-v':
    case '--version':
      process.stdout.write(`${PACKAGE_VERSION}\n`);
      return 0;
    case undefined:
    case '-h':
    case '--help':
      process.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    default:
      // One line, like every other refusal of the CLI: scripts read it.
      process.stderr.write(
        `cdktf-mcp-gateway: unknown command '${command}' (expected serve, apply-config, dev or dashboard; see --help)\n`,
      );
      return 2;
  }
}

/**
 * How long the process may go on, once `serve` has returned, while its stdout and stderr take no bytes. Short: an
 * audit log on the same pipe (`/dev/stdout`) has waited 5 s for it already, and both stay under Docker's 10 s.
 */
const STALLED_OUTPUT_MS = 2_000;

/**
 * Ends the process with `code` once what waits for stdout and stderr has not moved for {@link STALLED_OUTPUT_MS}.
 * A pipe whose reader stopped (a log collector that hangs on a container's stdout) never takes the last log
 * lines, and a write waiting for it keeps Node running for good; an exit that finds nothing waiting is not held.
 */
function exitWhenOutputStalls(code: number): void {
  const waiting = (): number => process.stdout.writableLength + process.stderr.writableLength;
  let last = waiting();
  let since = Date.now();
  setInterval(() => {
    const now = waiting();
    if (now === 0 || now < last) since = Date.now();
    else if (Date.now() - since >= STALLED_OUTPUT_MS) process.exit(code);
    last = now;
  }, 250).unref();
}

const args = process.argv.slice(2);
main(args).then(
  (code) => {
    process.exitCode = code;
    if (args[0] === 'serve') exitWhenOutputStalls(code);
  },
  (err: unknown) => {
    process.stderr.write(`cdktf-mcp-gateway: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
