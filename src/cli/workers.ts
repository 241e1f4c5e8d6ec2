/**
 * `serve --workers N`: N gateway processes on one port, for one container on several cores. Each worker is a
 * full `serve` process binding the port with SO_REUSEPORT (the kernel spreads connections over them); this
 * primary only starts them, forwards signals and restarts one that dies. Workers share nothing but the port, the
 * audit file (appended to with O_APPEND, one write per batch of whole lines) and the session key: the configured
 * one, or one the primary makes for them (so that a session opened through one worker is valid on the others).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { jsonLogger, loadGatewayConfig, reusePortSupport, type GatewayConfig, type Logger } from '../gateway';
import { SESSION_KEY_ENV } from '../gateway/mcp';

/** Set in a worker's environment to its number (1..N). */
export const WORKER_ENV = 'CDKTF_MCP_GATEWAY_WORKER';
/** The audit log file, where `--audit-log` is not given (a Swarm service sets it per task slot). */
export const AUDIT_LOG_ENV = 'CDKTF_MCP_GATEWAY_AUDIT_LOG';
/** The most workers `--workers` accepts. */
export const MAX_WORKERS = 64;
/** A worker that dies after it listened is started again after this long. */
const RESTART_DELAY_MS = 1_000;

/** What the primary needs from the parsed `serve` flags. */
export interface WorkerSettings {
  readonly configPath: string;
  readonly port?: number;
}

/**
 * Runs `count` workers with `argv` (the `serve` arguments, `--workers` among them) until SIGTERM/SIGINT, then
 * stops them (each drains) and resolves the exit code: 0 when every worker stopped cleanly, 1 when one could not
 * start (its own one-line error is on stderr), 2 when this platform cannot share a port.
 */
export async function runWorkers(count: number, argv: readonly string[], settings: WorkerSettings): Promise<number> {
  const config = tryLoad(settings.configPath);
  const refusal = workersRefusal(settings, config);
  if (refusal !== undefined) {
    process.stderr.write(`cdktf-mcp-gateway: ${refusal}\n`);
    return 2;
  }
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (config?.gateway.session_key_file === undefined && (env[SESSION_KEY_ENV] ?? '') === '') {
    env[SESSION_KEY_ENV] = randomBytes(32).toString('base64');
  }
  const pool = new WorkerPool(withoutWorkersFlag(argv), env, jsonLogger());
  const stop = (): void => pool.stop();
  const reload = (): void => pool.reload();
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', reload);
  try {
    return await pool.run(count);
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    process.off('SIGHUP', reload);
  }
}

/** The config, or undefined when it is bad: each worker then reports it itself, in the usual words. */
function tryLoad(configPath: string): GatewayConfig | undefined {
  try {
    return loadGatewayConfig(configPath);
  } catch {
    return undefined;
  }
}

/** Why `--workers` cannot run here, or undefined. */
function workersRefusal(settings: WorkerSettings, config: GatewayConfig | undefined): string | undefined {
  const support = reusePortSupport();
  if (!support.supported) return `--workers needs SO_REUSEPORT to share the port: ${support.reason}`;
  const port = settings.port ?? config?.gateway.port;
  if (port === 0) return '--workers needs a fixed port: with port 0 each worker would listen on a port of its own';
  return undefined;
}

/** `argv` without `--workers N` / `--workers=N`. */
function withoutWorkersFlag(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--workers') i++;
    else if (!argv[i].startsWith('--workers=')) out.push(argv[i]);
  }
  return out;
}

/** The running workers, by number. */
class WorkerPool {
  private readonly workers = new Map<number, ChildProcess>();
  /** Workers that said they listen: only these have their SIGHUP handler in for sure. */
  private readonly listening = new Set<number>();
  /** Workers not yet listening when a SIGHUP came: each gets it once it listens. */
  private readonly hangUpOnListening = new Set<number>();
  private stopping = false;
  private settle!: (code: number) => void;
  private readonly done = new Promise<number>((resolve) => {
    this.settle = resolve;
  });
  private failed = false;

  constructor(
    private readonly serveArgs: readonly string[],
    private readonly env: NodeJS.ProcessEnv,
    private readonly log: Logger,
  ) {}

  async run(count: number): Promise<number> {
    const started = await Promise.all(Array.from({ length: count }, (_, i) => this.start(i + 1)));
    if (started.includes(false)) {
      this.failed = true;
      this.stop();
    } else {
      this.log('info', 'workers listening', { workers: count, pid: process.pid });
    }
    return this.done;
  }

  stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    this.signalAll('SIGTERM');
    this.settleIfAllExited();
  }

  signalAll(signal: NodeJS.Signals): void {
    for (const worker of this.workers.values()) worker.kill(signal);
  }

  /**
   * Forwards a SIGHUP to each worker that listens. One still starting may not have run a line of the CLI yet, and
   * a SIGHUP then ends it (and the start with it): it gets the SIGHUP once it says it listens (a reload that may
   * find the file it just read, at worst).
   */
  reload(): void {
    for (const [n, worker] of this.workers) {
      if (this.listening.has(n)) worker.kill('SIGHUP');
      else this.hangUpOnListening.add(n);
    }
  }

  /** Starts worker `n`; resolves true once it listens, false when it exits first. */
  private start(n: number): Promise<boolean> {
    const worker = fork(path.join(__dirname, 'main.js'), ['serve', ...this.serveArgs], {
      env: { ...this.env, [WORKER_ENV]: String(n) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.workers.set(n, worker);
    return new Promise((resolve) => {
      let listening = false;
      worker.on('message', (message: { type?: unknown }) => {
        if (message?.type !== 'listening' || listening) return;
        listening = true;
        this.listening.add(n);
        if (this.hangUpOnListening.delete(n) && !this.stopping) worker.kill('SIGHUP');
        resolve(true);
      });
      worker.once('exit', (code, signal) => {
        this.workers.delete(n);
        this.listening.delete(n);
        this.hangUpOnListening.delete(n);
        if (!listening) {
          resolve(false);
        } else if (!this.stopping) {
          this.log('warn', 'worker exited; starting it again', { worker: n, code, signal });
          setTimeout(() => void this.restart(n), RESTART_DELAY_MS).unref();
        } else if (code !== 0) {
          this.failed = true;
        }
        this.settleIfAllExited();
      });
    });
  }

  private async restart(n: number): Promise<void> {
    if (this.stopping) return;
    if (!(await this.start(n)) && !this.stopping) {
      this.log('error', 'worker could not start again; stopping', { worker: n });
      this.failed = true;
      this.stop();
    }
  }

  private settleIfAllExited(): void {
    if (this.stopping && this.workers.size === 0) this.settle(this.failed ? 1 : 0);
  }
}
