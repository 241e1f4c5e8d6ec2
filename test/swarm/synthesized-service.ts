/**
 * Reads what synthesis produced for a replicated gateway: its `docker_service`, the `docker_config`,
 * `docker_secret` and `docker_volume` it refers to, and the build context of its `docker_image`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GATEWAY_LABEL } from '../../src/contract';

// Synthesized JSON is loosely typed by nature; the reader checks the references it follows.
type Json = any;

export interface SynthesizedService {
  readonly service: Json;
  readonly config: Json;
  readonly secret: Json | undefined;
  readonly volume: Json | undefined;
  /** Absolute path of the image's build context. */
  readonly contextDir: string;
  /** The `docker_image`'s build args. */
  readonly buildArgs: Record<string, string>;
}

/** The resource a `${TYPE.ID.attr}` reference names, or undefined for anything else. */
function referenced(resources: Json, type: string, reference: unknown): Json | undefined {
  const id = new RegExp(`^\\$\\{${type}\\.([^.}]+)\\.[a-z_]+\\}$`).exec(String(reference))?.[1];
  return id === undefined ? undefined : resources[type]?.[id];
}

/** Finds the service labelled with gateway `name` in stack `stack` under `outdir`; throws naming what is missing. */
export function readSynthesizedService(outdir: string, stack: string, name: string): SynthesizedService {
  const stackDir = path.join(outdir, 'stacks', stack);
  const doc = JSON.parse(fs.readFileSync(path.join(stackDir, 'cdk.tf.json'), 'utf8')) as Json;
  const resources = doc.resource ?? {};
  const service = Object.values(resources.docker_service ?? {}).find((s: Json) =>
    (s.labels ?? []).some((l: Json) => l.label === GATEWAY_LABEL && l.value === name),
  );
  if (service === undefined) throw new Error(`no docker_service labelled ${GATEWAY_LABEL}=${name} in ${stackDir}`);
  const spec = (service as Json).task_spec.container_spec;
  const config = referenced(resources, 'docker_config', spec.configs?.[0]?.config_id);
  if (config === undefined) throw new Error(`the service of gateway '${name}' mounts no docker_config of its stack`);
  const image = referenced(resources, 'docker_image', spec.image);
  if (image === undefined)
    throw new Error(`the service of gateway '${name}' runs no docker_image of its stack (${spec.image})`);
  const context = String(image.build?.context ?? '').replace(/^\$\{path\.module\}\//, '');
  return {
    service,
    config,
    secret: referenced(resources, 'docker_secret', spec.secrets?.[0]?.secret_id),
    volume: referenced(resources, 'docker_volume', spec.mounts?.[0]?.source),
    contextDir: path.resolve(stackDir, context),
    buildArgs: { ...(image.build?.build_args ?? {}) },
  };
}
