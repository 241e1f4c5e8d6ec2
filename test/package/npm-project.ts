/**
 * Shared steps of the tests that use the package as a user gets it: `npm pack` this build, and install the
 * tarball with its peers into another project from the npm cache (`npm install --prefer-offline`: after `npm ci`
 * every package is in the cache, so only a few registry metadata requests may go out).
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The repository root. */
export const ROOT = path.resolve(__dirname, '../..');

/** What a consumer project installs next to the tarball, at the versions installed here. */
export const CONSUMER_DEPS = ['cdktf', 'constructs', '@cdktf/provider-docker', 'typescript', '@types/node'];

/** What `npm pack --json` says about the tarball. */
export interface PackResult {
  readonly filename: string;
  readonly size: number;
  readonly entryCount: number;
  readonly files: readonly { readonly path: string }[];
}

/**
 * The environment for child npm and node processes: without the `npm_*` variables that `npm test` sets for its
 * own package (a child npm would read e.g. `npm_config_local_prefix` and act on this repository).
 */
export function cleanEnv(): NodeJS.ProcessEnv {
  const keep = /^npm_config_(cache|registry|userconfig|globalconfig|proxy|https_proxy|noproxy|strict_ssl|cafile)$/;
  return Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || keep.test(k.toLowerCase())),
  );
}

/** The version of a dependency installed in this repository. */
export function installedVersion(name: string): string {
  return (
    JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }
  ).version;
}

/** Runs a command with {@link cleanEnv} plus `extraEnv`; rejects with its output on a non-zero exit. */
export async function exec(cmd: string, args: readonly string[], cwd: string, extraEnv: NodeJS.ProcessEnv = {}) {
  return run(cmd, args, { cwd, env: { ...cleanEnv(), ...extraEnv }, maxBuffer: 16 * 1024 * 1024 });
}

/** The stderr/stdout of a failed child process, for assertion messages. */
export function output(err: unknown): string {
  const e = err as { stdout?: string; stderr?: string; message?: string };
  return `${e.stderr ?? ''}${e.stdout ?? ''}`.trim() || String(e.message);
}

/**
 * `npm pack` of this build into `dest` (build first: `npm run build`; `npm test` does).
 * `--ignore-scripts`: prepack would clean and rebuild dist/ under the other tests' feet.
 */
export async function packPackage(dest: string): Promise<PackResult> {
  for (const built of ['dist/index.js', 'dist/src/cli/main.js', 'dist/image-context/Dockerfile']) {
    if (!fs.existsSync(path.join(ROOT, built))) throw new Error(`${built} is missing: run npm run build first`);
  }
  const { stdout } = await exec('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dest], ROOT);
  return (JSON.parse(stdout) as PackResult[])[0];
}

/** Installs `specs` (a tarball path, `name@version`s) into `project` from the npm cache. */
export async function installFromCache(project: string, specs: readonly string[]): Promise<void> {
  try {
    await exec(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...specs],
      project,
    );
  } catch (err) {
    throw new Error(
      `could not install ${specs.join(' ')} into ${project} ` +
        `(npm install --prefer-offline needs the npm cache filled by npm ci, or the registry):\n${output(err)}`,
    );
  }
}
