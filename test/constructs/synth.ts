/** Helpers for construct tests: build a stack, synthesize it, and read the resources back. */
import { Testing, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { DockerProvider } from '@cdktf/provider-docker/lib/provider';
import {
  DOCKER_HANDOFF_KEY,
  dockerHandoffsOf,
  GatewayConfig,
  handoffFileText,
  K8S_HANDOFF_KEY,
  type DockerHandoff,
} from '../../src/config';

// Synthesized JSON is loosely typed by nature; tests read it by key.

export type Json = any;

/** A fresh app and stack with a Docker provider, as an app has (the stack id prefixes Docker names). */
export function newStack(id = 'test'): TerraformStack {
  const stack = new TerraformStack(Testing.app(), id);
  new DockerProvider(stack, 'docker', {});
  return stack;
}

/** Synthesize with validations on, parsed. */
export function synth(stack: TerraformStack): Json {
  const json = JSON.parse(Testing.synth(stack, true));
  // Testing.synth drops every `//` comment; the config hand-overs live under one, so they are put back
  const full = JSON.parse(JSON.stringify(stack.toTerraform()));
  for (const [id, resource] of Object.entries(full.resource?.terraform_data ?? {})) {
    for (const key of [DOCKER_HANDOFF_KEY, K8S_HANDOFF_KEY]) {
      const handoff = (resource as Json)['//']?.[key];
      if (handoff !== undefined) json.resource.terraform_data[id]['//'] = { [key]: handoff };
    }
  }
  return json;
}

/** The resources of one Terraform type, as a list of their bodies, in synthesis order. */
export function resourcesOf(json: Json, type: string): Json[] {
  return Object.values(json.resource?.[type] ?? {});
}

/** The gateway container labelled with `name`. */
export function gatewayContainer(json: Json, name: string): Json {
  const found = resourcesOf(json, 'docker_container').find((c: Json) =>
    (c.labels ?? []).some((l: Json) => l.label === 'cdktf-mcp-gateway.gateway' && l.value === name),
  );
  if (found === undefined) throw new Error(`no gateway container labelled ${name}`);
  return found;
}

/** The `terraform_data` that hands gateway `name` its config (`apply-config --docker`), and its hand-over. */
export function configApply(json: Json, name: string): { resource: Json; handoff: DockerHandoff } {
  for (const resource of resourcesOf(json, 'terraform_data')) {
    const handoff = dockerHandoffsOf({ resource: { terraform_data: { r: resource } } })[0];
    if (handoff?.gateway === name) return { resource, handoff };
  }
  throw new Error(`no config hand-over of gateway ${name}`);
}

/**
 * A secret file gateway `name`'s hand-over copies in: its mode and owner, and its content as the deploy passes it
 * (the provisioner's environment: a reference to a sensitive value).
 */
export function handoffSecret(
  json: Json,
  name: string,
  path: string,
): { path: string; mode: string; uid: number; gid: number; content: string } | undefined {
  const { resource, handoff } = configApply(json, name);
  const file = handoff.files.find((f) => f.path === path);
  if (file?.env === undefined) return undefined;
  const content = resource.provisioner[0]['local-exec'].environment[file.env] as string;
  return { path, mode: file.mode, uid: file.uid, gid: file.gid, content };
}

/** The config text a gateway serves, as its hand-over copies it (decoded). */
export function configText(json: Json, name: string): string {
  const text = handoffFileText(configApply(json, name).handoff, '/etc/cdktf-mcp-gateway/gateway.json');
  if (text === undefined) throw new Error(`the hand-over of ${name} copies no config`);
  return text;
}

/** The config uploaded into a gateway container, parsed. */
export function configOf(json: Json, name: string): GatewayConfig {
  return JSON.parse(configText(json, name)) as GatewayConfig;
}

/** The warnings annotated on a construct. */
export function warningsOf(scope: Construct): string[] {
  return scope.node.metadata.filter((m) => m.type === '@cdktf/warn').map((m) => String(m.data));
}

/** The error a function throws (fails the test when it does not throw). */
export function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error, none was thrown');
}

/** A token hash for tests: the SHA-256 of `test-token-N`. */
export function hashOf(token: string): string {
  return require('node:crypto').createHash('sha256').update(token).digest('hex') as string;
}
