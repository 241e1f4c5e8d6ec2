import { spawn } from 'node:child_process';
import { HANDOFF_FILE_ENV_PREFIX, HANDOFF_IMAGE_ENV } from '../config';
import { HandoffError } from './synthesized-stack';

/** A command's exit code, its output (stdout and stderr in the order they came) and its stdout alone. */
export interface ToolRun {
  readonly code: number;
  readonly output: string;
  readonly stdout: string;
}

/** How long one command may run before it is killed and reported: a deploy never hangs on a tool. */
const DEFAULT_TIMEOUT_MS = 120_000;

/** The most output of a command kept for the deploy's message: its end, where the reason is. */
const MAX_OUTPUT_BYTES = 4096;

/** The deploy's environment without the hand-over's variables: the secrets stay in this process. */
function withoutHandoff(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([k]) => k !== HANDOFF_IMAGE_ENV && !k.startsWith(HANDOFF_FILE_ENV_PREFIX)),
  );
}

/**
 * Runs the docker CLI with `input` on its standard input, on the engine the Docker provider defaults to when
 * neither the stack nor the deploy names one (a CLI context would otherwise pick another engine than the provider's).
 * @throws HandoffError when there is no docker CLI to run
 */
export function docker(args: readonly string[], input?: Buffer, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<ToolRun> {
  const env = withoutHandoff();
  if (env.DOCKER_HOST === undefined && process.platform !== 'win32') {
    env.DOCKER_HOST = 'unix:///var/run/docker.sock';
    delete env.DOCKER_CONTEXT;
  }
  return run(
    'docker',
    args,
    env,
    'a gateway takes its config through the docker CLI, which is not on this PATH: install the Docker CLI (DOCKER_HOST selects a remote engine)',
    input,
    timeoutMs,
  );
}

/**
 * Runs kubectl with `input` on its standard input.
 * @throws HandoffError when there is no kubectl to run
 */
export function kubectl(args: readonly string[], input?: Buffer): Promise<ToolRun> {
  return run(
    'kubectl',
    args,
    withoutHandoff(),
    'a Kubernetes gateway takes its config through kubectl, which is not on this PATH: install kubectl',
    input,
    DEFAULT_TIMEOUT_MS,
  );
}

function run(
  tool: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  missing: string,
  input: Buffer | undefined,
  timeoutMs: number,
): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const chunks: Buffer[] = [];
    const stdout: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        new HandoffError(
          err.code === 'ENOENT'
            ? `cdktf-mcp-gateway: ${missing}`
            : `cdktf-mcp-gateway: cannot run ${tool}: ${err.message}`,
        ),
      );
    });
    // the tool may exit before reading its input (a refused create): its exit code says why, not EPIPE
    child.stdin.on('error', () => undefined);
    child.on('close', (code) => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks);
      const end =
        all.length > MAX_OUTPUT_BYTES ? `…${all.subarray(-MAX_OUTPUT_BYTES).toString('utf8')}` : all.toString('utf8');
      const output = timedOut ? `${end}${end === '' ? '' : '\n'}no answer within ${timeoutMs / 1000} s` : end;
      resolve({ code: timedOut ? 1 : (code ?? 1), output, stdout: Buffer.concat(stdout).toString('utf8') });
    });
    child.stdin.end(input);
  });
}
