/**
 * Reads what synthesis produced for one gateway: the build context of its `docker_image` (the TerraformAsset
 * copy under the stack's output folder) and the gateway config its `docker_container` uploads.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GATEWAY_CONFIG_FILE, GATEWAY_LABEL, type GatewayConfig } from '../../src/contract';

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

function list(value: unknown): Block[] {
  if (Array.isArray(value)) return value as Block[];
  return value !== null && typeof value === 'object' ? [value as Block] : [];
}

/** Finds gateway `name` in the synthesized stacks under `outdir`; throws naming what is missing. */
export function readSynthesizedGateway(outdir: string, name: string): SynthesizedGateway {
  const stacksDir = path.join(outdir, 'stacks');
  const stacks = fs.existsSync(stacksDir) ? fs.readdirSync(stacksDir).sort() : [];
  for (const stack of stacks) {
    const stackDir = path.join(stacksDir, stack);
    const file = path.join(stackDir, 'cdk.tf.json');
    if (!fs.existsSync(file)) continue;
    const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as Block;
    const containers = (doc.resource?.docker_container ?? {}) as Record<string, Block>;
    for (const container of Object.values(containers)) {
      const labelled = list(container.labels).some((l) => l.label === GATEWAY_LABEL && l.value === name);
      if (!labelled) continue;
      const upload = list(container.upload).find((u) => u.file === GATEWAY_CONFIG_FILE);
      if (upload === undefined || typeof upload.content !== 'string') {
        throw new Error(`the container of gateway '${name}' in stack ${stack} uploads no literal ${GATEWAY_CONFIG_FILE}`);
      }
      const images = (doc.resource?.docker_image ?? {}) as Record<string, Block>;
      const ref = /\$\{docker_image\.([^.}]+)\./.exec(String(container.image))?.[1];
      const image = ref !== undefined ? images[ref] : undefined;
      if (image === undefined) {
        throw new Error(`the container of gateway '${name}' does not run a docker_image of its stack (image: ${container.image})`);
      }
      const build = first(image.build);
      const context = String(build?.context ?? '').replace(/^\$\{path\.module\}\//, '');
      if (context === '') throw new Error(`docker_image.${ref} has no build context`);
      return {
        stackDir,
        contextDir: path.resolve(stackDir, context),
        buildArgs: { ...(first(build?.build_args) ?? first(build?.build_arg) ?? {}) },
        config: JSON.parse(upload.content) as GatewayConfig,
      };
    }
  }
  throw new Error(`no docker_container labelled ${GATEWAY_LABEL}=${name} in ${stacksDir} (stacks: ${stacks.join(', ') || 'none'})`);
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
