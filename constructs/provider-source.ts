import * as path from 'node:path';

/**
 * The `source` to write for a provider given by its short name (`kreuzwerker/docker`), for the engine cdktf runs
 * (`TERRAFORM_BINARY_NAME`, as cdktf reads it).
 *
 * OpenTofu reads a short source as `registry.opentofu.org/…` and records that name in its lock file and state,
 * while cdktf looks the short source up as `registry.terraform.io/…` in the lock file. Finding nothing, cdktf runs
 * `providers lock` before every diff, deploy and destroy, which asks the registry again and prints its output into
 * the plan. Under OpenTofu the host is therefore spelled out: the same provider to OpenTofu, found by cdktf.
 */
export function providerSource(shortSource: string, env: NodeJS.ProcessEnv = process.env): string {
  const engine = path.basename(env.TERRAFORM_BINARY_NAME || 'terraform');
  return /^tofu(?:$|[-_.])/.test(engine) ? `registry.opentofu.org/${shortSource}` : shortSource;
}
