/**
 * Docker plumbing for the image test: run commands with timeouts, make sure a Docker daemon answers (installing
 * docker.io and starting dockerd when needed, remembering what was started so it can be stopped), and decide
 * whether the image test runs at all.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { eventually, GiveUp } from '../helpers/eventually';

/** What a finished command left behind. */
export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CommandOptions {
  /** Killed (SIGKILL) after this long; the result then says so. @default 60000 */
  readonly timeoutMs?: number;
  /** @default - the test process's cwd */
  readonly cwd?: string;
  /** @default - the test process's environment */
  readonly env?: NodeJS.ProcessEnv;
}

/** Runs a command to completion (never through a shell) and collects its output. Never rejects. */
export function command(file: string, args: readonly string[], options: CommandOptions = {}): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    const timeoutMs = options.timeoutMs ?? 60_000;
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${timeoutMs} ms]`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: `${stderr}${err.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `docker ARGS`; resolves stdout (trimmed), rejects with the command and its stderr on a non-zero exit. */
export async function docker(args: readonly string[], timeoutMs = 60_000): Promise<string> {
  const result = await command('docker', args, { timeoutMs });
  if (result.code !== 0) {
    throw new Error(
      `docker ${args.join(' ')} exited ${result.code}: ${(result.stderr || result.stdout).trim().slice(-2000)}`,
    );
  }
  return result.stdout.trim();
}

/** True when a Docker client is installed and its daemon answers (a synchronous probe, for test registration). */
export function dockerDaemonAnswers(): boolean {
  const probe = spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], {
    timeout: 10_000,
    stdio: 'ignore',
  });
  return probe.status === 0;
}

function onPath(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore', timeout: 5_000 }).status === 0;
}

/** Why the image test must run, or undefined when it may be skipped. */
export function imageTestRequirement(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const ci = env.CI;
  if (ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0') return `CI=${ci}`;
  if (env.CDKTF_MCP_GATEWAY_IMAGE_TEST === 'required') return 'npm run test:image';
  return undefined;
}

/** A daemon this process started; `stop()` ends it (SIGTERM, then SIGKILL after 20 s). */
export interface StartedDaemon {
  readonly pid: number;
  readonly logFile: string;
  stop(): Promise<void>;
}

/**
 * Makes sure `docker` works: installs docker.io when dockerd is missing (apt-get, as root), then starts
 * `dockerd --bridge=none --iptables=false --ip-forward=false` when no daemon answers. Resolves the daemon it
 * started (to stop later), or undefined when one was already running. Rejects with a message saying what is
 * missing.
 */
export async function ensureDockerDaemon(log: (line: string) => void): Promise<StartedDaemon | undefined> {
  if (dockerDaemonAnswers()) return undefined;
  if (!onPath('dockerd') || !onPath('docker')) {
    if (process.getuid?.() !== 0) {
      throw new Error('Docker is not installed and this is not root: install docker.io (apt-get install -y docker.io)');
    }
    log('installing docker.io (apt-get)');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const update = await command('apt-get', ['update'], { timeoutMs: 300_000, env });
    const install = await command('apt-get', ['install', '-y', 'docker.io'], { timeoutMs: 600_000, env });
    if (install.code !== 0 || !onPath('dockerd')) {
      throw new Error(
        `apt-get install -y docker.io failed (exit ${install.code}): ${(install.stderr || update.stderr).trim().slice(-1000)}`,
      );
    }
  }
  const logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'image-test-dockerd-')), 'dockerd.log');
  const out = fs.openSync(logFile, 'a');
  log(`starting dockerd (log: ${logFile})`);
  const child: ChildProcess = spawn('dockerd', ['--bridge=none', '--iptables=false', '--ip-forward=false'], {
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  let exited = false;
  const exitedPromise = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  child.once('error', () => {
    exited = true;
  });
  const started: StartedDaemon = {
    pid: child.pid ?? -1,
    logFile,
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exitedPromise;
      clearTimeout(timer);
      fs.rmSync(path.dirname(logFile), { recursive: true, force: true });
    },
  };
  try {
    await eventually(
      () => {
        if (exited) throw new GiveUp('dockerd exited');
        return dockerDaemonAnswers();
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'dockerd to answer' },
    );
  } catch {
    const tail = fs.existsSync(logFile)
      ? fs.readFileSync(logFile, 'utf8').trim().split('\n').slice(-5).join(' | ')
      : '';
    await started.stop();
    throw new Error(`dockerd did not come up within 60 s: ${tail}`);
  }
  return started;
}

/** A TCP port free on 127.0.0.1 right now (the gateway in the container binds it next). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
