import { parseArgs } from 'node:util';
import { UsageError } from '../config/package-error';
import { docker } from './external-tools';
import { usageFailure } from './usage-failure';

export const SWARM_USAGE = `Usage: cdktf-mcp-gateway apply-config --swarm SERVICE --config-name NAME --target FILE

Run by a replicated gateway's deploy, on the deploying machine, once its new config passed the gateway's check
and exists as the Docker config NAME: moves the Swarm service SERVICE from the config it mounts at FILE to NAME
with the docker CLI (a rolling update, as the service's update settings say) and waits until it converged.
Does nothing when SERVICE does not exist yet (it is created with NAME) or already mounts NAME. The engine is
DOCKER_HOST's, else unix:///var/run/docker.sock as for the Docker provider. Prints nothing when the replicas
serve NAME; prints "Gateway service SERVICE did not move to config NAME: REASON" and exits 1 otherwise.

Options:
  --swarm SERVICE      the gateway's Swarm service (required)
  --config-name NAME   the Docker config to move to (required)
  --target FILE        where the replicas read their config (required)`;

/** A Docker object's name (a service's, a config's). */
const DOCKER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
/** An absolute path inside the container, with nothing `--config-add` would read as another option. */
const TARGET_PATH = /^\/[^,=\s]+$/;

/** One entry of `.Spec.TaskTemplate.ContainerSpec.Configs` as `docker service inspect` prints it. */
interface ConfigReference {
  readonly File?: { readonly Name?: string };
  readonly ConfigName?: string;
}

/** `apply-config --swarm`: what a replicated gateway's config roll runs (see createGatewayService). */
export async function runSwarm(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        swarm: { type: 'string' },
        'config-name': { type: 'string' },
        target: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
    if (values.help === true) {
      process.stdout.write(`${SWARM_USAGE}\n`);
      return 0;
    }
    for (const [option, value, pattern, expected] of [
      ['--swarm SERVICE', values.swarm, DOCKER_NAME, 'a Docker object name'],
      ['--config-name NAME', values['config-name'], DOCKER_NAME, 'a Docker object name'],
      ['--target FILE', values.target, TARGET_PATH, "an absolute path without ',', '=' or spaces"],
    ] as const) {
      if (value === undefined || value === '') throw new UsageError(`${option} is required`);
      // the names and path go into `--config-add source=NAME,target=FILE`, where a comma would add options
      if (!pattern.test(value))
        throw new UsageError(`${option.split(' ')[0]}: must be ${expected}, got ${JSON.stringify(value)}`);
    }
  } catch (err) {
    return usageFailure('apply-config', err);
  }
  const service = values.swarm!;
  const name = values['config-name']!;
  try {
    const reason = await moveToConfig(service, name, values.target!);
    if (reason === undefined) return 0;
    process.stderr.write(`Gateway service ${service} did not move to config ${name}: ${reason}\n`);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
  }
  return 1;
}

/** How long a roll may take: the service's own updates get as long (see createGatewayService). */
const ROLL_TIMEOUT_MS = 5 * 60_000;
/** How often a service's update status is read while Swarm still updates it. */
const POLL_MS = 1_000;

/** Why the service did not end up on config `name` at `target`, or undefined once it has. */
async function moveToConfig(service: string, name: string, target: string): Promise<string | undefined> {
  const deadline = performance.now() + ROLL_TIMEOUT_MS;
  // `ls` rather than `inspect`: a service that does not exist yet is the first deploy, not a failure
  const listed = await docker(['service', 'ls', '--filter', `name=${service}`, '--format', '{{.Name}}']);
  if (listed.code !== 0) return listed.output.trim() || 'docker service ls failed';
  if (!listed.stdout.split('\n').includes(service)) return undefined;
  const inspected = await docker([
    'service',
    'inspect',
    '--format',
    '{{json .Spec.TaskTemplate.ContainerSpec.Configs}}',
    service,
  ]);
  if (inspected.code !== 0) return inspected.output.trim() || 'docker service inspect failed';
  let mounted: ConfigReference[];
  try {
    mounted = (JSON.parse(inspected.stdout) as ConfigReference[] | null) ?? [];
  } catch {
    return `docker service inspect printed no list of configs: ${inspected.output.trim().slice(0, 200)}`;
  }
  const current = mounted.filter((c) => c.File?.Name === target).map((c) => c.ConfigName ?? '');
  if (current.length !== 1 || current[0] !== name) {
    const update = await docker(
      [
        'service',
        'update',
        '--quiet',
        '--detach=false',
        ...current.flatMap((c) => ['--config-rm', c]),
        '--config-add',
        `source=${name},target=${target},mode=0444`,
        service,
      ],
      undefined,
      ROLL_TIMEOUT_MS,
    );
    if (update.code !== 0) return update.output.trim() || `docker service update exited ${update.code}`;
  }
  // the update's own outcome, also when a deploy run again finds the service already on NAME: Swarm may still be
  // rolling it, or have rolled it back
  return settled(service, deadline);
}

/** Waits while Swarm updates the service; why the update did not complete, or undefined once it did. */
async function settled(service: string, deadline: number): Promise<string | undefined> {
  for (;;) {
    const run = await docker(['service', 'inspect', '--format', '{{json .UpdateStatus}}', service]);
    if (run.code !== 0) return run.output.trim() || 'docker service inspect failed';
    let status: { State?: string; Message?: string } | null;
    try {
      status = JSON.parse(run.stdout) as { State?: string; Message?: string } | null;
    } catch {
      return `docker service inspect printed no update status: ${run.output.trim().slice(0, 200)}`;
    }
    const state = status?.State;
    if (state === undefined || state === 'completed') return undefined;
    const why = status?.Message === undefined || status.Message === '' ? '' : ` (${status.Message})`;
    if (state !== 'updating' && state !== 'rollback_started') return `its update ended ${state}${why}`;
    if (performance.now() > deadline) return `its update is still ${state} after ${ROLL_TIMEOUT_MS / 1000} s${why}`;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
