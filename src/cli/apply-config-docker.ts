import { parseArgs } from 'node:util';
import { dockerHandoffsOf, HANDOFF_IMAGE_ENV, type DockerHandoff, type HandoffFile } from '../config';
import { isObject } from '../validation/json-object';
import { UsageError } from '../config/package-error';
import { usageFailure } from './usage-failure';
import { docker, type ToolRun } from './external-tools';
import { HandoffError, readSynthesizedStack } from './synthesized-stack';
import { tarArchive, type TarEntry } from './tar-archive';

export const DOCKER_USAGE = `Usage: cdktf-mcp-gateway apply-config --docker CONTAINER [--stack-file FILE]

Run by a single-container gateway's deploy, on the deploying machine: starts the one-shot apply-config container
CONTAINER as synthesis described it in FILE (default: cdk.tf.json in the current directory), with the docker
CLI, on the gateway's files and state volume. The engine is DOCKER_HOST's, else unix:///var/run/docker.sock as
for the Docker provider (a CLI context does not apply). Prints nothing when the gateway
serves or stored the config; prints "Gateway 'NAME' cannot start: REASON" and exits 1 when it refuses it.

Options:
  --docker CONTAINER   the one-shot container's name (required)
  --stack-file FILE    the synthesized stack, default cdk.tf.json`;

/** `apply-config --docker`: what a single-container gateway's `terraform_data` runs (see createOneShotRun). */
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
    return usageFailure('apply-config', err);
  }
  try {
    const handoff = readHandoff(values['stack-file'] ?? 'cdk.tf.json', values.docker);
    const run = await applyWithDocker(handoff);
    if (run.code === 0) return 0;
    const output = run.output.trim() || '(no output)';
    process.stderr.write(
      run.step === 'start'
        ? `Gateway '${handoff.gateway}' cannot start: ${output}\n`
        : `Gateway '${handoff.gateway}': its config hand-over failed at docker ${run.step}: ${output}\n`,
    );
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
  const handoff = dockerHandoffsOf(readSynthesizedStack(stackFile)).find(
    (h) => isObject(h) && h.container === container,
  );
  if (handoff === undefined) {
    throw new HandoffError(`cdktf-mcp-gateway: ${stackFile} describes no config hand-over named ${container}`);
  }
  const problem = shapeProblem(handoff);
  if (problem !== undefined) {
    throw new HandoffError(
      `cdktf-mcp-gateway: the hand-over ${container} in ${stackFile} is malformed: ${problem} (synthesize again)`,
    );
  }
  return handoff;
}

/** What is wrong with a hand-over read from a file, if anything: synthesis writes it, but anyone may edit the file. */
function shapeProblem(h: DockerHandoff): string | undefined {
  const strings = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === 'string');
  if (typeof h.gateway !== 'string' || typeof h.user !== 'string') return 'gateway and user must be strings';
  if (!isObject(h.labels) || !Object.values(h.labels).every((v) => typeof v === 'string'))
    return 'labels must map to strings';
  if (!strings(h.env) || !strings(h.volumes) || !strings(h.command))
    return 'env, volumes and command must list strings';
  if (!Array.isArray(h.files)) return 'files must be a list';
  for (const f of h.files as unknown[]) {
    const file = f as Partial<HandoffFile>;
    if (!isObject(f) || typeof file.path !== 'string') return 'each file needs a path';
    if ((file.content_base64 === undefined) === (file.env === undefined))
      return `${file.path}: needs exactly one of content_base64 and env`;
    if (file.content_base64 !== undefined && !/^[A-Za-z0-9+/]*={0,2}$/.test(file.content_base64))
      return `${file.path}: content_base64 is not base64`;
    if (typeof file.mode !== 'string' || !/^0?[0-7]{3,4}$/.test(file.mode))
      return `${file.path}: mode must be octal, such as 0444`;
    if (![file.uid, file.gid].every((n) => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 0o7777777))
      return `${file.path}: uid and gid must be integers 0 to 2097151`;
  }
  return undefined;
}

/** How a run ended: the container's exit (`start`), or the docker step that failed before it ran. */
interface HandoffRun extends ToolRun {
  readonly step: 'create' | 'cp' | 'start';
}

/**
 * Removes the one-shot container with the anonymous volumes the image declares where the hand-over mounts nothing
 * (named volumes stay): without `--volumes`, every deploy would leave one behind on the Docker host.
 */
const REMOVE: readonly string[] = ['rm', '--force', '--volumes'];

/**
 * Creates the one-shot container, copies the files in (the archive's modes and owners kept), runs it to its end
 * and removes it.
 */
async function applyWithDocker(h: DockerHandoff): Promise<HandoffRun> {
  const image = process.env[HANDOFF_IMAGE_ENV];
  if (image === undefined || image === '') {
    throw new HandoffError(`cdktf-mcp-gateway: ${HANDOFF_IMAGE_ENV} is not set (the deploy passes the image's id)`);
  }
  const archive = tarArchive(h.files.map(tarEntry));
  // a container left by an interrupted deploy would hold the name
  await docker(REMOVE.concat(h.container));
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
  if (create.code !== 0) return { ...create, step: 'create' };
  try {
    // without --archive: the daemon would give every file the container's user, where the archive says whose it is
    const copy = await docker(['cp', '-', `${h.container}:/`], archive);
    if (copy.code !== 0) return { ...copy, step: 'cp' };
    return { ...(await docker(['start', '--attach', h.container])), step: 'start' };
  } finally {
    await docker(REMOVE.concat(h.container));
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
