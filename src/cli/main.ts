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
    case 'serve': {
      // SIGHUP's default action ends the process. `serve` reads its file after loading, so a SIGHUP sent while it
      // loads (a config written just before the start) needs no reload, only not to be a kill.
      const ignore = (): void => undefined;
      process.on('SIGHUP', ignore);
      try {
        return await loadCommand('./serve-command').run(rest);
      } finally {
        process.off('SIGHUP', ignore);
      }
    }
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

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`cdktf-mcp-gateway: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
