/**
 * Reads what synthesis produced for one gateway: the build context of its `docker_image` (the TerraformAsset
 * copy under the stack's output folder) and the gateway config its `docker_container` uploads.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GATEWAY_LABEL, type GatewayConfig } from '../../src/config';
import { gatewaysInStack, readSynthesizedStacks } from '../../src/dev/synthesized-gateways';

export interface SynthesizedGateway {
  readonly stackDir: string;
  /** Absolute path of the image's build context. */
  readonly contextDir: string;
  /** The `docker_image` resource's build args (`BASE_IMAGE` among them). */
  readonly buildArgs: Record<string, string>;
  /** The uploaded config, parsed. */
  readonly config: GatewayConfig;
}

type Block = Record<string, any>;

function first(value: unknown): Block | undefined {
  if (Array.isArray(value)) return value[0] as Block | undefined;
  return value !== null && typeof value === 'object' ? (value as Block) : undefined;
}

/** Finds gateway `name` in the synthesized stacks under `outdir` (as `dev` does); throws naming what is missing. */
export function readSynthesizedGateway(outdir: string, name: string): SynthesizedGateway {
  const stacks = readSynthesizedStacks(outdir);
  for (const { stack, doc } of stacks) {
    const gateway = gatewaysInStack(stack, doc).find((g) => g.name === name);
    if (gateway === undefined) continue;
    const stackDir = path.join(outdir, 'stacks', stack);
    const resources = (doc.resource ?? {}) as Block;
    const container = resources.docker_container[gateway.resource.slice('docker_container.'.length)] as Block;
    const ref = /\$\{docker_image\.([^.}]+)\./.exec(String(container.image))?.[1];
    const image = ref !== undefined ? (resources.docker_image?.[ref] as Block | undefined) : undefined;
    if (image === undefined) {
      throw new Error(
        `the container of gateway '${name}' does not run a docker_image of its stack (image: ${container.image})`,
      );
    }
    const build = first(image.build);
    const context = String(build?.context ?? '').replace(/^\$\{path\.module\}\//, '');
    if (context === '') throw new Error(`docker_image.${ref} has no build context`);
    return {
      stackDir,
      contextDir: path.resolve(stackDir, context),
      buildArgs: { ...(first(build?.build_args) ?? first(build?.build_arg) ?? {}) },
      config: gateway.config as GatewayConfig,
    };
  }
  const names = stacks.map((s) => s.stack).join(', ') || 'none';
  throw new Error(`no docker_container labelled ${GATEWAY_LABEL}=${name} in ${outdir}/stacks (stacks: ${names})`);
}

/** Every file under `dir`, relative, with `/` separators, sorted. */
export function listFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...listFiles(path.join(dir, entry.name), rel));
    else out.push(rel);
  }
  return out.sort();
}
