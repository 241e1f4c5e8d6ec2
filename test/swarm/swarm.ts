/**
 * A single-node Swarm for the deploy tests of replicated gateways (test/deploy): `docker swarm init --advertise-addr 127.0.0.1` on the daemon the
 * tests use (loopback only), left again — with the `docker_gwbridge` network it creates — by `leave()`, only
 * when this process initialized it.
 */
import { command, docker } from '../image/docker';

export interface SwarmHandle {
  /** Whether this process initialized the swarm (and so leaves it). */
  readonly initialized: boolean;
  /** Leaves the swarm and removes docker_gwbridge when this process initialized it; never throws. */
  leave(): Promise<string[]>;
}

/** Joins the daemon to a single-node swarm unless it is a manager already. */
export async function ensureSwarm(log: (line: string) => void): Promise<SwarmHandle> {
  const state = await docker(['info', '--format', '{{.Swarm.LocalNodeState}}/{{.Swarm.ControlAvailable}}']);
  if (state === 'active/true') {
    log('using the swarm this daemon already manages');
    return { initialized: false, leave: async () => [] };
  }
  if (state.startsWith('active'))
    throw new Error('this daemon is a swarm worker, not a manager: the test needs a manager');
  await docker(['swarm', 'init', '--advertise-addr', '127.0.0.1', '--listen-addr', '127.0.0.1:2377'], 60_000);
  log('initialized a single-node swarm on 127.0.0.1');
  return {
    initialized: true,
    async leave() {
      const problems: string[] = [];
      const left = await command('docker', ['swarm', 'leave', '--force'], { timeoutMs: 60_000 });
      if (left.code !== 0) problems.push(`docker swarm leave --force: ${left.stderr.trim()}`);
      const gw = await command('docker', ['network', 'ls', '--quiet', '--filter', 'name=^docker_gwbridge$'], {
        timeoutMs: 20_000,
      });
      if (gw.stdout.trim() !== '') {
        const rm = await command('docker', ['network', 'rm', 'docker_gwbridge'], { timeoutMs: 30_000 });
        if (rm.code !== 0) problems.push(`docker network rm docker_gwbridge: ${rm.stderr.trim()}`);
      }
      return problems;
    },
  };
}

/** A running container of a service's task. */
export interface RunningTask {
  readonly container: string;
  /** The task's slot (`1`, `2`, …). */
  readonly slot: string;
  readonly taskId: string;
}

/** Ids of the service's containers running on this node, with their task slot and task id. */
export async function runningTasks(service: string): Promise<RunningTask[]> {
  const out = await docker([
    'ps',
    '--filter',
    `label=com.docker.swarm.service.name=${service}`,
    '--format',
    '{{.ID}} {{.Label "com.docker.swarm.task.name"}} {{.Label "com.docker.swarm.task.id"}}',
  ]);
  return out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line) => {
      const [container, task, taskId] = line.split(' ');
      return { container, slot: task.split('.')[1], taskId };
    });
}

/**
 * The running containers of `service`, split by what Swarm wants of their task: `serving` (desired state running,
 * the replicas the service has) and `draining` (desired state shutdown: a task a rolling update replaced, still
 * finishing its calls after SIGTERM).
 */
export async function tasksByDesiredState(
  service: string,
): Promise<{ serving: RunningTask[]; draining: RunningTask[] }> {
  const desired = new Set(
    (await docker(['service', 'ps', service, '--filter', 'desired-state=running', '--no-trunc', '--format', '{{.ID}}']))
      .split('\n')
      .filter((l) => l.trim() !== ''),
  );
  const tasks = await runningTasks(service);
  return { serving: tasks.filter((t) => desired.has(t.taskId)), draining: tasks.filter((t) => !desired.has(t.taskId)) };
}

/** How many of the service's tasks are running and healthy. */
export async function healthyTasks(service: string): Promise<number> {
  const out = await docker([
    'ps',
    '--filter',
    `label=com.docker.swarm.service.name=${service}`,
    '--filter',
    'health=healthy',
    '--quiet',
  ]);
  return out.split('\n').filter((l) => l.trim() !== '').length;
}
