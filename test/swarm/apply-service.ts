/**
 * Applies a synthesized replicated gateway to a Swarm with the docker CLI, field by field, since no Terraform
 * provider can be downloaded here. Every field the constructs emit is mapped below; a field this helper does not
 * know fails the test (so a new field is not silently left out). Two deliberate differences, both for the test
 * machine: names get a suffix (tests may run side by side), and `--host 127.0.0.1` is appended to the args
 * (loopback only). The healthcheck runs through the CLI's `--health-cmd`, i.e. as CMD-SHELL.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { docker } from '../image/docker';
import type { SynthesizedService } from './synthesized-service';

type Json = any;

/** Names of what was created (for updates and clean-up). */
export interface AppliedService {
  readonly name: string;
  readonly configName: string;
  readonly secretName: string | undefined;
  readonly volumeName: string | undefined;
}

export interface ApplyOptions {
  /** Appended to every Docker object name. */
  readonly suffix: string;
  /** Terraform variables (`var.NAME`) by name. */
  readonly variables: Record<string, string>;
  /** Replaces the synthesized image reference (the image id the test built). */
  readonly image: string;
}

const KNOWN_SPEC_FIELDS = new Set([
  'image',
  'args',
  'env',
  'labels',
  'configs',
  'secrets',
  'mounts',
  'healthcheck',
  'stop_signal',
  'stop_grace_period',
]);

/**
 * The value of the only Terraform expressions the constructs put in these resources: `${base64encode(var.X)}`,
 * and a literal prefix followed by `${substr(sha256(var.X), 0, N)}`. Anything else throws.
 */
export function evaluate(text: string, variables: Record<string, string>): string {
  const variable = (name: string): string => {
    const value = variables[name];
    if (value === undefined) throw new Error(`no value for var.${name}`);
    return value;
  };
  return text.replace(/\$\{([^}]*)\}/g, (_all, expression: string) => {
    let m = /^base64encode\(var\.([A-Za-z0-9_-]+)\)$/.exec(expression);
    if (m !== null) return Buffer.from(variable(m[1]), 'utf8').toString('base64');
    m = /^substr\(sha256\(var\.([A-Za-z0-9_-]+)\), 0, (\d+)\)$/.exec(expression);
    if (m !== null) return createHash('sha256').update(variable(m[1]), 'utf8').digest('hex').slice(0, Number(m[2]));
    throw new Error(`this helper cannot evaluate \${${expression}}`);
  });
}

/** `docker config create` / `docker secret create` from base64 `data`, through a file (never on the command line). */
async function createFromData(
  kind: 'config' | 'secret',
  name: string,
  base64: string,
  labels: Json[] = [],
): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'swarm-apply-'));
  const file = path.join(dir, 'data');
  try {
    fs.writeFileSync(file, Buffer.from(base64, 'base64'), { mode: 0o600 });
    await docker([kind, 'create', ...labels.flatMap((l: Json) => ['--label', `${l.label}=${l.value}`]), name, file]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** `docker config create` for a synthesized `docker_config` (name suffixed); returns the name. */
export async function createConfig(config: Json, suffix: string): Promise<string> {
  const name = `${config.name}-${suffix}`;
  await createFromData('config', name, config.data);
  return name;
}

/** The `--config-add` / `--config` value for a mount of config `name`. */
export function configMount(mount: Json, name: string): string {
  return `source=${name},target=${mount.file_name},mode=${(mount.file_mode ?? 0o444).toString(8).padStart(4, '0')}`;
}

/** Creates the volume, config, secret and service (detached); resolves the names. */
export async function applyService(synth: SynthesizedService, options: ApplyOptions): Promise<AppliedService> {
  const { service, config, secret, volume } = synth;
  const spec = service.task_spec.container_spec;
  for (const key of Object.keys(spec))
    if (!KNOWN_SPEC_FIELDS.has(key)) throw new Error(`container_spec.${key}: not applied by this helper`);
  const volumeName = volume === undefined ? undefined : `${volume.name}-${options.suffix}`;
  if (volumeName !== undefined) await docker(['volume', 'create', volumeName]);
  const configName = await createConfig(config, options.suffix);
  let secretName: string | undefined;
  if (secret !== undefined) {
    secretName = `${evaluate(secret.name, options.variables)}-${options.suffix}`;
    await createFromData('secret', secretName, evaluate(secret.data, options.variables));
  }
  const name = `${service.name}-${options.suffix}`;
  const args: string[] = ['service', 'create', '--detach', '--name', name];
  for (const l of service.labels ?? []) args.push('--label', `${l.label}=${l.value}`);
  for (const l of spec.labels ?? []) args.push('--container-label', `${l.label}=${l.value}`);
  args.push('--replicas', String(service.mode.replicated.replicas));
  for (const [k, v] of Object.entries(spec.env ?? {})) args.push('--env', `${k}=${v as string}`);
  for (const mount of spec.configs ?? []) args.push('--config', configMount(mount, configName));
  for (const s of spec.secrets ?? []) {
    args.push(
      '--secret',
      `source=${secretName},target=${s.file_name},uid=${s.file_uid},gid=${s.file_gid},mode=${s.file_mode.toString(8).padStart(4, '0')}`,
    );
  }
  for (const m of spec.mounts ?? []) args.push('--mount', `type=${m.type},source=${volumeName},target=${m.target}`);
  const health = spec.healthcheck;
  if (health !== undefined) {
    if (health.test[0] !== 'CMD')
      throw new Error(`healthcheck test ${JSON.stringify(health.test)}: only CMD is applied`);
    args.push(
      '--health-cmd',
      health.test.slice(1).join(' '),
      '--health-interval',
      health.interval,
      '--health-timeout',
      health.timeout,
      '--health-start-period',
      health.start_period,
      '--health-retries',
      String(health.retries),
    );
  }
  args.push('--stop-signal', spec.stop_signal, '--stop-grace-period', spec.stop_grace_period);
  const restart = service.task_spec.restart_policy;
  args.push(
    '--restart-condition',
    restart.condition,
    '--restart-delay',
    restart.delay,
    '--restart-window',
    restart.window,
  );
  for (const [flag, c] of [
    ['update', service.update_config],
    ['rollback', service.rollback_config],
  ] as const) {
    args.push(
      `--${flag}-parallelism`,
      String(c.parallelism),
      `--${flag}-order`,
      c.order,
      `--${flag}-failure-action`,
      c.failure_action,
      `--${flag}-monitor`,
      c.monitor,
      `--${flag}-delay`,
      c.delay,
    );
    if (c.max_failure_ratio !== undefined) args.push(`--${flag}-max-failure-ratio`, c.max_failure_ratio);
  }
  for (const network of service.task_spec.networks_advanced ?? []) args.push('--network', network.name);
  for (const port of service.endpoint_spec?.ports ?? []) {
    args.push(
      '--publish',
      `published=${port.published_port},target=${port.target_port},mode=${port.publish_mode},protocol=${port.protocol}`,
    );
  }
  if (spec.args === undefined) throw new Error('container_spec.args: this helper applies the host-network form only');
  args.push(options.image, ...spec.args, '--host', '127.0.0.1');
  await docker(args, 120_000);
  return { name, configName, secretName, volumeName };
}
