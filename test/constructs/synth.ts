/** Helpers for construct tests: build a stack, synthesize it, and read the resources back. */
import { Testing, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { DockerProvider } from '@cdktf/provider-docker/lib/provider';
import { GatewayConfig, uploadedText } from '../../src/config';

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
  return JSON.parse(Testing.synth(stack, true));
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

/** The container that hands gateway `name` its config (`apply-config`, labelled `cdktf-mcp-gateway.config`). */
export function configContainer(json: Json, name: string): Json {
  const found = resourcesOf(json, 'docker_container').find((c: Json) =>
    (c.labels ?? []).some((l: Json) => l.label === 'cdktf-mcp-gateway.config' && l.value === name),
  );
  if (found === undefined) throw new Error(`no config container labelled ${name}`);
  return found;
}

/** The config text a gateway container serves, as uploaded to its config container (decoded). */
export function configText(json: Json, name: string): string {
  const upload = configContainer(json, name).upload.find((u: Json) => u.file === '/etc/cdktf-mcp-gateway/gateway.json');
  const text = uploadedText(upload as Json);
  if (text === undefined) throw new Error(`the config of ${name} is not an upload synthesis wrote`);
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
