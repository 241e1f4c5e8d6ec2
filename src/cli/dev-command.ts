/**
 * `cdktf-mcp-gateway dev [DIR]`: synthesizes the cdktf app in DIR and serves its gateways locally,
 * each with a bearer token kept in DIR/.dev, next to the backends of `DIR/dev.json`. Ctrl-C (SIGINT) or SIGTERM
 * stops every gateway and every process it started, then exits 0.
 *
 * @example
 * cdktf-mcp-gateway dev examples/support-desk --port agents=9000
 */
import { watchApp } from '../dev/app-watcher';
import { ConfigError } from '../gateway';
import {
  BackendStartError,
  DEV_USAGE,
  devCommand,
  DevFileError,
  DevSession,
  DevStateError,
  DevUsageError,
  killAllChildrenSync,
  noLocalBackendWarning,
  parseDevArgs,
  startDevSession,
  SynthError,
  SynthOutputError,
  SynthStoppedError,
} from '../dev';

/** Errors with a message meant for the user as-is (no stack trace). */
const USER_ERRORS = [
  DevUsageError,
  DevStateError,
  DevFileError,
  SynthError,
  SynthOutputError,
  BackendStartError,
  ConfigError,
];

/**
 * What a failed synthesis printed that its user needs: the app's own error when it ended with one (a manifest's
 * `FILE:LINE:COL`, a construct's message), else the tail of its output.
 */
function synthDetails(err: SynthError): string {
  if (err.appError !== undefined) return `--- the app's error ---\n${err.appError}\n`;
  return err.output === '' ? '' : `--- synthesis output (tail) ---\n${err.output}`;
}

/** Prints the lines a user (or a test) needs to connect to each gateway. */
export function describeSession(session: DevSession): string {
  const blocks = session.gateways.map((g) =>
    [
      `Gateway ${g.name} (stack ${g.stack}; tools: ${g.toolNames.join(', ')})`,
      `MCP URL: ${g.url}`,
      g.token !== undefined ? `Token: ${g.token}` : 'Token: (none: this gateway declares auth none)',
      `Audit log: ${g.auditLogPath}`,
      ...(g.unmappedHosts.length > 0 ? [noLocalBackendWarning(g.unmappedHosts)] : []),
      ...(g.deployedStore
        ? ['Note: the deployed store is not used here: rate limits and ended sessions live in this process']
        : []),
    ].join('\n'),
  );
  const dashboards = session.dashboards.map((d) => `Audit dashboard ${d.name} (stack ${d.stack})\nDashboard: ${d.url}`);
  const kept = `Tokens and session keys: ${session.stateDir} (kept across restarts; ${devCommand('--fresh')} makes new ones)`;
  return `\n${[...blocks, ...dashboards].join('\n\n')}\n\n${kept}\nEdits to the app reload its gateways in place. Press Ctrl-C to stop.\n`;
}

/** Runs `dev` and resolves with the exit code once it was stopped (or failed to start). */
export async function run(argv: string[]): Promise<number> {
  let options;
  try {
    options = parseDevArgs(argv);
  } catch (err) {
    process.stderr.write(`cdktf-mcp-gateway dev: ${(err as Error).message}\n${DEV_USAGE}\n`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(`${DEV_USAGE}\n`);
    return 0;
  }

  // A signal may arrive at any moment; before the session is up there is nothing to drain, only children to kill.
  let session: DevSession | undefined;
  let stopRequested: (() => void) | undefined;
  const stopped = new Promise<void>((resolve) => {
    stopRequested = resolve;
  });
  let signals = 0;
  const onSignal = (): void => {
    signals++;
    if (session === undefined) {
      killAllChildrenSync();
      process.stdout.write('Stopped.\n');
      process.exit(0);
    }
    if (signals > 1) {
      // A second Ctrl-C while draining: stop waiting for in-flight calls.
      process.stderr.write('cdktf-mcp-gateway dev: stopping immediately\n');
      killAllChildrenSync();
      process.exit(1);
    }
    stopRequested!();
  };
  const onExit = (): void => killAllChildrenSync();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('exit', onExit);

  try {
    session = await startDevSession(options, { log: (line) => process.stdout.write(`${line}\n`) });
  } catch (err) {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('exit', onExit);
    const known = USER_ERRORS.some((E) => err instanceof E);
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`cdktf-mcp-gateway dev: ${message}\n`);
    if (err instanceof SynthError) process.stderr.write(synthDetails(err));
    if (!known && err instanceof Error && err.stack !== undefined) process.stderr.write(`${err.stack}\n`);
    return 1;
  }

  process.stdout.write(describeSession(session));
  const running = session;
  // an edited stack reaches the gateways in place, as a deploy's config change does
  const stopWatching = watchApp(options.dir, async () => {
    process.stdout.write('App changed: synthesizing ...\n');
    try {
      for (const line of await running.reload()) process.stdout.write(`${line}\n`);
    } catch (err) {
      if (err instanceof SynthStoppedError) return; // dev is stopping: the synthesis was stopped, not failed
      process.stdout.write(
        `Reload failed, the gateways keep serving what they served: ${(err as Error).message.split('\n')[0]}\n`,
      );
      if (err instanceof SynthError) process.stdout.write(synthDetails(err));
    }
  });
  await stopped;
  stopWatching();
  process.stdout.write('Stopping ...\n');
  await session.close();
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  process.off('exit', onExit);
  process.stdout.write('Stopped.\n');
  return 0;
}
