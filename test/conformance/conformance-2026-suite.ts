/**
 * Runs the 0.2.0-alpha MCP conformance suite (the `conformance-2026` dev dependency, an npm alias of
 * `@modelcontextprotocol/conformance@0.2.0-alpha.12`, beside the 0.1.16 one) scenario by scenario at
 * `--spec-version 2026-07-28`, on the same Node >= 22 binary as the 0.1.16 run (`findSuiteNode`).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { readResults, type ConformanceResults } from './conformance-suite';

const PROJECT_ROOT = path.resolve(__dirname, '../..');
const ALIAS = 'conformance-2026';

/** The suite's CLI script and version; throws a message that says how to install it. */
export function findSuite2026(): { cli: string; version: string } {
  let pkgJson: string;
  try {
    pkgJson = require.resolve(`${ALIAS}/package.json`, { paths: [PROJECT_ROOT] });
  } catch {
    throw new Error(
      `${ALIAS} is not installed: run \`npm install\` (a dev dependency aliasing @modelcontextprotocol/conformance@0.2.0-alpha.12).`,
    );
  }
  const pkg = JSON.parse(readFileSync(pkgJson, 'utf8')) as { version: string; bin?: Record<string, string> };
  const bin = pkg.bin?.conformance;
  if (!bin) throw new Error(`${pkgJson} declares no \`conformance\` bin`);
  return { cli: path.join(path.dirname(pkgJson), bin), version: pkg.version };
}

export interface Run2026Options {
  readonly node: string;
  readonly cli: string;
  /** The MCP endpoint, e.g. `http://127.0.0.1:PORT/mcp` (dns-rebinding needs a localhost URL). */
  readonly url: string;
  readonly scenarios: readonly string[];
  /** Where the suite writes `server-<scenario>-<timestamp>/checks.json`. */
  readonly outputDir: string;
  /** Per scenario; the process is killed after it. @default 45000 */
  readonly timeoutMs?: number;
}

export interface Run2026 {
  /** Exit code per scenario (non-zero when any check failed; not-applicable checks fail by design). */
  readonly codes: ReadonlyMap<string, number | null>;
  readonly output: string;
  readonly results: ConformanceResults;
}

/** Runs each scenario in its own suite process, one after the other; failing scenarios do not reject. */
export async function runSuite2026(options: Run2026Options): Promise<Run2026> {
  const codes = new Map<string, number | null>();
  let output = '';
  for (const scenario of options.scenarios) {
    const args = [
      options.cli,
      'server',
      '--url',
      options.url,
      '--scenario',
      scenario,
      '--spec-version',
      '2026-07-28',
      '--output-dir',
      options.outputDir,
    ];
    const { code, text } = await runOnce(options.node, args, options.outputDir, options.timeoutMs ?? 45_000);
    codes.set(scenario, code);
    output += `\n=== ${scenario} (exit ${code}) ===\n${text}`;
  }
  return { codes, output, results: readResults(options.outputDir) };
}

function runOnce(
  node: string,
  args: string[],
  cwd: string,
  timeoutMs: number,
): Promise<{ code: number | null; text: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd });
    let text = '';
    child.stdout.on('data', (c: Buffer) => {
      text += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      text += c.toString('utf8');
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the conformance suite did not finish within ${timeoutMs} ms; output:\n${text}`));
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, text });
    });
  });
}
