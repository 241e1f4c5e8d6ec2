/**
 * A cdktf app in a temporary directory, deployed with the real `cdktf` CLI (the repository's cdktf-cli) driving
 * OpenTofu and the kreuzwerker/docker provider from `npm run toolchain`. The app is plain JavaScript that loads the
 * built package (`dist/`), as a user's app loads the installed one; what varies between deploys is a JSON file of
 * parameters it reads.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '../..');
const CDKTF = path.join(REPO, 'node_modules', '.bin', 'cdktf');

/** What one `cdktf` command did. */
export interface CdktfRun {
  readonly code: number | null;
  /** stdout and stderr, interleaved as they came. */
  readonly output: string;
  readonly seconds: number;
}

/** One app directory: `main.js` (the stack), `params.json` (what a deploy changes), `cdktf.json`. */
export class CdktfApp {
  /**
   * @param dir an empty directory
   * @param stackSource the body of `main.js` after the prelude, which defines `params`, `cdktf`, `docker`
   *   (`@cdktf/provider-docker`'s provider module) and `mcp` (this package)
   * @param env the toolchain's environment (and TF_VAR_… values)
   */
  public constructor(
    public readonly dir: string,
    stackSource: string,
    private readonly env: Record<string, string>,
  ) {
    fs.mkdirSync(dir, { recursive: true });
    const req = (m: string): string => JSON.stringify(path.join(REPO, 'node_modules', m));
    fs.writeFileSync(
      path.join(dir, 'main.js'),
      [
        "'use strict';",
        "const params = JSON.parse(require('fs').readFileSync(require('path').join(__dirname, 'params.json'), 'utf8'));",
        `const cdktf = require(${req('cdktf')});`,
        `const docker = require(${req('@cdktf/provider-docker/lib/provider')});`,
        `const mcp = require(${JSON.stringify(path.join(REPO, 'dist'))});`,
        stackSource,
      ].join('\n'),
    );
    fs.writeFileSync(
      path.join(dir, 'cdktf.json'),
      JSON.stringify({ language: 'typescript', app: 'node main.js', output: 'cdktf.out', terraformProviders: [] }),
    );
  }

  /** Writes the parameters the next command's synthesis reads. */
  public params(values: Record<string, unknown>): void {
    fs.writeFileSync(path.join(this.dir, 'params.json'), JSON.stringify(values, null, 2));
  }

  /**
   * `cdktf deploy --auto-approve`, as docs/deploy.md prints it: offline too, since the toolchain's environment
   * points the `providers lock` cdktf runs first at the mirror (`TF_CLI_ARGS_providers_lock`).
   */
  public deploy(extraEnv: Record<string, string> = {}): Promise<CdktfRun> {
    return this.run(['deploy', '--auto-approve'], extraEnv);
  }

  /** `cdktf diff`. */
  public diff(extraEnv: Record<string, string> = {}): Promise<CdktfRun> {
    return this.run(['diff'], extraEnv);
  }

  /** `cdktf destroy --auto-approve`. */
  public destroy(extraEnv: Record<string, string> = {}): Promise<CdktfRun> {
    return this.run(['destroy', '--auto-approve'], extraEnv);
  }

  /**
   * `cdktf ARGS`, prefixed by `wrapper` when given (e.g. `['nsenter', '--net=/var/run/netns/mn-1']` to deploy
   * from inside a network namespace).
   */
  public run(args: string[], extraEnv: Record<string, string>, wrapper: readonly string[] = []): Promise<CdktfRun> {
    return runCdktf(this.dir, args, { ...this.env, ...extraEnv }, wrapper);
  }
}

/**
 * `cdktf ARGS` in `dir` (an app folder with its cdktf.json), with `env` over this process's environment and the
 * settings every test run needs (no color, no checkpoint, CI), prefixed by `wrapper` when given.
 */
export function runCdktf(
  dir: string,
  args: string[],
  env: Record<string, string>,
  wrapper: readonly string[] = [],
): Promise<CdktfRun> {
  const started = Date.now();
  const [file, ...prefix] = wrapper.length === 0 ? [CDKTF] : [...wrapper, CDKTF];
  return new Promise((resolve, reject) => {
    const child = spawn(file, [...prefix, ...args], {
      cwd: dir,
      env: {
        ...process.env,
        ...env,
        CHECKPOINT_DISABLE: '1',
        CI: 'true',
        FORCE_COLOR: '0',
        NO_COLOR: '1',
        TF_IN_AUTOMATION: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    const timer = setTimeout(() => child.kill('SIGTERM'), 20 * 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, seconds: (Date.now() - started) / 1000 });
    });
  });
}
