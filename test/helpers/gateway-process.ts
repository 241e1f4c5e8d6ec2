/**
 * Runs the built CLI (`node dist/src/cli/main.js serve …`) as a real process for end-to-end tests.
 * Build first (`npm run build`). Every process started here is registered and killed by
 * {@link killAllGatewayProcesses} (call it in an `after` hook) and, as a last resort, when the test process exits.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { GatewayConfig } from '../../src/config';

/** The built CLI entry point. */
export const CLI_PATH = path.resolve(__dirname, '../../dist/src/cli/main.js');

/** The node arguments that run `cdktf-mcp-gateway <args>` from the build. */
export function cliNodeArgs(args: readonly string[]): string[] {
  return [CLI_PATH, ...args];
}

const running = new Set<ChildProcess>();
const tempDirs = new Set<string>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** How a process ended. */
export interface ExitStatus {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface GatewayProcessOptions {
  /** Written as JSON to `<dir>/gateway.json`; a string is written as is (to test bad documents). */
  readonly config: GatewayConfig | string;
  /** `--port`. @default 0 (ephemeral) */
  readonly port?: number;
  /** `--audit-log <dir>/audit.jsonl` when true. @default true */
  readonly auditLog?: boolean;
  /** Extra CLI arguments after the generated ones (e.g. `['--watch']`). @default [] */
  readonly extraArgs?: readonly string[];
  /** How long to wait for the `"msg":"listening"` line. @default 10000 */
  readonly startTimeoutMs?: number;
  /** The Node binary that runs the CLI (e.g. a Node 22 for SO_REUSEPORT). @default - this test's node */
  readonly nodePath?: string;
  /** Variables added to this process's environment (e.g. a secret the config names). @default {} */
  readonly env?: Readonly<Record<string, string>>;
}

/** A running gateway process. */
export interface GatewayProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The MCP endpoint from the listening line, e.g. `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
  /** `http://HOST:PORT` (for `/healthz`, `/readyz`). */
  readonly origin: string;
  readonly port: number;
  /** The temp directory holding the config and audit log (removed by {@link killAllGatewayProcesses}). */
  readonly dir: string;
  readonly configPath: string;
  /** `<dir>/audit.jsonl` (whether or not `--audit-log` was passed). */
  readonly auditLogPath: string;
  /** Everything written to stdout / stderr so far. */
  stdout(): string;
  stderr(): string;
  /** Stdout split into lines, each parsed as JSON when it is JSON. */
  logLines(): unknown[];
  /** Waits until stdout+stderr (from `fromOffset` of the combined output) match `pattern`. */
  waitForOutput(pattern: RegExp, timeoutMs?: number, fromOffset?: number): Promise<string>;
  /** Current length of the combined output, for `waitForOutput(…, fromOffset)`. */
  outputOffset(): number;
  /** Rewrites the config file atomically (write + rename), so a reload never reads half a file. */
  writeConfig(config: GatewayConfig | string): void;
  /** Sends a signal without waiting. */
  signal(sig: NodeJS.Signals): void;
  /** Resolves when the process exits. */
  readonly exited: Promise<ExitStatus>;
  /** Sends `sig` (default SIGTERM), waits for the exit (SIGKILL after `timeoutMs`), returns the exit status. */
  stop(sig?: NodeJS.Signals, timeoutMs?: number): Promise<ExitStatus>;
  /**
   * Waits for the exit without sending anything (after a `signal()`), SIGKILL after `timeoutMs`. Sending a second
   * SIGTERM instead would test the "second signal forces the exit" path, not the graceful one.
   */
  waitForExit(timeoutMs?: number): Promise<ExitStatus>;
}

function writeAtomic(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

function serialize(config: GatewayConfig | string): string {
  return typeof config === 'string' ? config : `${JSON.stringify(config, null, 2)}\n`;
}

/** Result of a CLI run that is expected to end by itself. */
export interface CliResult extends ExitStatus {
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the CLI with `args` and waits for it to exit (killed after `timeoutMs`).
 * @example
 * const r = await runCli(['serve', '--config', file, '--bogus']);
 * assert.notEqual(r.code, 0);
 */
export function runCli(args: readonly string[], timeoutMs = 10_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cliNodeArgs(args), { stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`CLI ${args.join(' ')} did not exit within ${timeoutMs} ms; stdout: ${stdout} stderr: ${stderr}`),
      );
    }, timeoutMs);
    child.on('error', reject);
    child.on('exit', () => undefined);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Makes a temp dir and writes `config` to `<dir>/gateway.json`; returns both paths. */
export function writeTempConfig(
  config: GatewayConfig | string,
  fileName = 'gateway.json',
): { dir: string; configPath: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-gw-e2e-'));
  tempDirs.add(dir);
  const configPath = path.join(dir, fileName);
  writeFileSync(configPath, serialize(config));
  return { dir, configPath };
}

/**
 * Writes the config to a temp dir, spawns `serve --config FILE --port 0 --audit-log FILE` and waits for the
 * listening line. Rejects with the process's stderr if it exits first or does not listen in time.
 * @example
 * const gw = await startGatewayProcess({ config });
 * after(() => killAllGatewayProcesses());
 */
export async function startGatewayProcess(options: GatewayProcessOptions): Promise<GatewayProcess> {
  const { dir, configPath } = writeTempConfig(options.config);
  const auditLogPath = path.join(dir, 'audit.jsonl');
  const args = ['serve', '--config', configPath, '--port', String(options.port ?? 0)];
  if (options.auditLog ?? true) args.push('--audit-log', auditLogPath);
  args.push(...(options.extraArgs ?? []));
  const child = spawn(options.nodePath ?? process.execPath, cliNodeArgs(args), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  running.add(child);

  let stdout = '';
  let stderr = '';
  let combined = '';
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  child.stdout!.on('data', (c: Buffer) => {
    const s = c.toString('utf8');
    stdout += s;
    combined += s;
    notify();
  });
  child.stderr!.on('data', (c: Buffer) => {
    const s = c.toString('utf8');
    stderr += s;
    combined += s;
    notify();
  });
  let hasExited = false;
  const exited = new Promise<ExitStatus>((resolve) => {
    child.on('close', (code, signal) => {
      running.delete(child);
      hasExited = true;
      resolve({ code, signal });
      notify();
    });
  });

  const waitForOutput = (pattern: RegExp, timeoutMs = 5_000, fromOffset = 0): Promise<string> =>
    new Promise((resolve, reject) => {
      const check = (): boolean => {
        const m = pattern.exec(combined.slice(fromOffset));
        if (m) {
          done();
          resolve(m[0]);
          return true;
        }
        if (hasExited) {
          done();
          reject(new Error(`gateway exited before printing ${pattern}; stdout: ${stdout} stderr: ${stderr}`));
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new Error(`gateway did not print ${pattern} within ${timeoutMs} ms; stdout: ${stdout} stderr: ${stderr}`),
        );
      }, timeoutMs);
      const waiter = () => {
        check();
      };
      const done = () => {
        clearTimeout(timer);
        waiters.delete(waiter);
      };
      if (!check()) waiters.add(waiter);
    });

  let url: string;
  try {
    const line = await waitForOutput(/^.*"msg":"listening".*$/m, options.startTimeoutMs ?? 10_000);
    const parsed = JSON.parse(line) as { url?: unknown };
    if (typeof parsed.url !== 'string') throw new Error(`listening line has no url: ${line}`);
    url = parsed.url;
  } catch (err) {
    child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const parsedUrl = new URL(url);

  const waitForExit = async (timeoutMs = 10_000): Promise<ExitStatus> => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const status = await exited;
    clearTimeout(timer);
    return status;
  };
  const stop = (sig: NodeJS.Signals = 'SIGTERM', timeoutMs = 10_000): Promise<ExitStatus> => {
    if (!hasExited) child.kill(sig);
    return waitForExit(timeoutMs);
  };

  return {
    child,
    pid: child.pid!,
    url,
    origin: parsedUrl.origin,
    port: Number(parsedUrl.port),
    dir,
    configPath,
    auditLogPath,
    stdout: () => stdout,
    stderr: () => stderr,
    logLines: () =>
      stdout
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => {
          try {
            return JSON.parse(l) as unknown;
          } catch {
            return l;
          }
        }),
    waitForOutput,
    outputOffset: () => combined.length,
    writeConfig: (config) => writeAtomic(configPath, serialize(config)),
    signal: (sig) => {
      if (!hasExited) child.kill(sig);
    },
    exited,
    stop,
    waitForExit,
  };
}

/**
 * Kills (SIGKILL) every CLI process these helpers started that is still running and removes their temp
 * directories. For `after` hooks.
 */
export async function killAllGatewayProcesses(): Promise<void> {
  const waits: Promise<void>[] = [];
  for (const child of running) {
    waits.push(
      new Promise((resolve) => {
        child.once('close', () => resolve());
      }),
    );
    child.kill('SIGKILL');
  }
  await Promise.all(waits);
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}
