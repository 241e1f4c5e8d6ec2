import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { dockerHandoffsOf, HANDOFF_IMAGE_ENV, type DockerHandoff, type HandoffFile } from '../config';
import { UsageError } from '../config/package-error';
import { tarArchive, type TarEntry } from './tar-archive';

export const DOCKER_USAGE = `Usage: cdktf-mcp-gateway apply-config --docker CONTAINER [--stack-file FILE]

Run by a single-container gateway's deploy, on the deploying machine: starts the one-shot apply-config container
CONTAINER as synthesis described it in FILE (default: cdk.tf.json in the current directory), with the docker
CLI (DOCKER_HOST and contexts apply), on the gateway's files and state volume. Prints nothing when the gateway
serves or stored the config; prints "Gateway 'NAME' cannot start: REASON" and exits 1 when it refuses it.

Options:
  --docker CONTAINER   the one-shot container's name (required)
  --stack-file FILE    the synthesized stack, default cdk.tf.json`;

/** A `docker` command's exit code and output (stdout and stderr in the order they came). */
interface DockerRun {
  readonly code: number;
  readonly output: string;
}

/** Thrown when the hand-over cannot run at all: the message is the line the deploy prints. */
class HandoffError extends Error {}

/** `apply-config --docker`: what a single-container gateway's `terraform_data` runs (see createConfigApply). */
export async function runDocker(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        docker: { type: 'string' },
        'stack-file': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
    if (values.help === true) {
      process.stdout.write(`${DOCKER_USAGE}\n`);
      return 0;
    }
    if (values.docker === undefined || values.docker === '') throw new UsageError('--docker CONTAINER is required');
  } catch (err) {
    process.stderr.write(
      `cdktf-mcp-gateway: ${(err as Error).message.split('\n')[0]} (see: cdktf-mcp-gateway apply-config --help)\n`,
    );
    return 2;
  }
  try {
    const handoff = readHandoff(values['stack-file'] ?? 'cdk.tf.json', values.docker);
    const run = await applyWithDocker(handoff);
    if (run.code === 0) return 0;
    process.stderr.write(`Gateway '${handoff.gateway}' cannot start: ${run.output.trim() || '(no output)'}\n`);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
  }
  return 1;
}

/**
 * The hand-over synthesis left for `container` under the `//` comment of a `terraform_data` of the stack file.
 * @throws HandoffError when the file or the hand-over is missing
 */
export function readHandoff(stackFile: string, container: string): DockerHandoff {
  let doc: unknown;
  try {
    doc = JSON.parse(fs.readFileSync(stackFile, 'utf8'));
  } catch (err) {
    throw new HandoffError(
      `cdktf-mcp-gateway: cannot read the synthesized stack ${stackFile}: ${(err as Error).message}`,
    );
  }
  const handoff = dockerHandoffsOf(doc).find((h) => h.container === container);
  if (handoff === undefined) {
    throw new HandoffError(`cdktf-mcp-gateway: ${stackFile} describes no config hand-over named ${container}`);
  }
  return handoff;
}

/**
 * Creates the one-shot container, copies the files in (their modes and owners kept), runs it to its end and
 * removes it. Returns the container's exit code and output.
 */
async function applyWithDocker(h: DockerHandoff): Promise<DockerRun> {
  const image = process.env[HANDOFF_IMAGE_ENV];
  if (image === undefined || image === '') {
    throw new HandoffError(`cdktf-mcp-gateway: ${HANDOFF_IMAGE_ENV} is not set (the deploy passes the image's id)`);
  }
  const archive = tarArchive(h.files.map(tarEntry));
  // a container left by an interrupted deploy would hold the name
  await docker(['rm', '--force', h.container]);
  const create = await docker([
    'create',
    '--name',
    h.container,
    '--network',
    'none',
    '--user',
    h.user,
    ...Object.entries(h.labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]),
    ...h.env.flatMap((e) => ['--env', e]),
    ...h.volumes.flatMap((v) => ['--volume', v]),
    image,
    ...h.command,
  ]);
  if (create.code !== 0) return { code: create.code, output: `docker create: ${create.output.trim()}` };
  try {
    const copy = await docker(['cp', '--archive', '-', `${h.container}:/`], archive);
    if (copy.code !== 0) return { code: copy.code, output: `docker cp: ${copy.output.trim()}` };
    return await docker(['start', '--attach', h.container]);
  } finally {
    await docker(['rm', '--force', h.container]);
  }
}

function tarEntry(f: HandoffFile): TarEntry {
  let content: Buffer;
  if (f.content_base64 !== undefined) content = Buffer.from(f.content_base64, 'base64');
  else {
    const value = f.env === undefined ? undefined : process.env[f.env];
    if (value === undefined) {
      throw new HandoffError(`cdktf-mcp-gateway: ${f.env ?? 'a variable'} is not set (the deploy passes ${f.path})`);
    }
    content = Buffer.from(value, 'utf8');
  }
  return { path: f.path.replace(/^\/+/, ''), content, mode: parseInt(f.mode, 8), uid: f.uid, gid: f.gid };
}

/** Runs the docker CLI with `input` on its standard input. */
function docker(args: readonly string[], input?: Buffer): Promise<DockerRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('docker', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    const take = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', (err: NodeJS.ErrnoException) =>
      reject(
        new HandoffError(
          err.code === 'ENOENT'
            ? 'cdktf-mcp-gateway: a gateway takes its config through the docker CLI, which is not on this PATH: install the Docker CLI (DOCKER_HOST selects a remote engine)'
            : `cdktf-mcp-gateway: cannot run docker: ${err.message}`,
        ),
      ),
    );
    // docker may exit before reading its input (a refused create): its exit code says why, not EPIPE
    child.stdin.on('error', () => undefined);
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
    child.stdin.end(input);
  });
}
