/**
 * The toolchain of the deploy tests: OpenTofu and the kreuzwerker/docker provider built from Go modules by
 * `npm run toolchain` (scripts/toolchain.sh) into a per-user cache, and the environment that makes `cdktf deploy`
 * use them offline.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '../..');
const SCRIPT = path.join(REPO, 'scripts', 'toolchain.sh');

/** Where `npm run toolchain` builds (the script's own rule). */
export function toolchainDir(env: NodeJS.ProcessEnv = process.env): string {
  return (
    env.CDKTF_MCP_GATEWAY_TOOLCHAIN ??
    path.join(env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'cdktf-mcp-gateway', 'toolchain')
  );
}

/** When the deploy tests must run: CI=true, or `npm run test:deploy`; undefined = they may stay pending. */
export function deployTestRequirement(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const ci = env.CI;
  if (ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0') return `CI=${ci}`;
  if (env.CDKTF_MCP_GATEWAY_DEPLOY_TEST === 'required') return 'npm run test:deploy';
  return undefined;
}

/** Whether `npm run toolchain` has run on this machine (its CLI config is its last step). */
export function toolchainBuilt(env: NodeJS.ProcessEnv = process.env): boolean {
  return (
    fs.existsSync(path.join(toolchainDir(env), 'tofurc')) && fs.existsSync(path.join(toolchainDir(env), 'bin', 'tofu'))
  );
}

/**
 * Runs `scripts/toolchain.sh` (a no-op past a check when everything is built; a build of several minutes
 * otherwise) and returns the environment it prints: PATH, TERRAFORM_BINARY_NAME, TF_CLI_CONFIG_FILE and
 * TF_CLI_ARGS_providers_lock.
 */
export function toolchainEnv(log: (line: string) => void): Record<string, string> {
  const result = spawnSync('bash', [SCRIPT], { encoding: 'utf8', timeout: 60 * 60_000, maxBuffer: 16 << 20 });
  for (const line of (result.stderr ?? '').split('\n').filter((l) => l.trim() !== '')) log(line);
  if (result.status !== 0) {
    throw new Error(`npm run toolchain failed (exit ${result.status}): ${(result.stderr ?? '').trim().slice(-2000)}`);
  }
  const env: Record<string, string> = {};
  for (const line of result.stdout.split('\n')) {
    const match = /^export ([A-Za-z_]+)="?(.*?)"?$/.exec(line.trim());
    if (match === null) continue;
    env[match[1]] = match[2].replace('$PATH', process.env.PATH ?? '');
  }
  for (const key of ['PATH', 'TERRAFORM_BINARY_NAME', 'TF_CLI_CONFIG_FILE', 'TF_CLI_ARGS_providers_lock']) {
    if (env[key] === undefined) throw new Error(`npm run toolchain printed no ${key}: ${result.stdout.trim()}`);
  }
  return env;
}
