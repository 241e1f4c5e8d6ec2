#!/usr/bin/env node
/**
 * Installs the MCP clients that test/clients/ runs the recipes of docs/clients.md with (LangChain's MCP adapters and LangGraph's ToolNode,
 * the Vercel AI SDK's MCP client, the `mcp-remote` stdio bridge, the official SDK 1.x they are built on) into a
 * per-user cache outside the clone, so `npm ci` does not grow: `$CDKTF_MCP_GATEWAY_CLIENTS_DIR`, else
 * `$XDG_CACHE_HOME/cdktf-mcp-gateway/clients-<versions hash>`, else `~/.cache/…`. The versions are pinned here;
 * a change of them installs into a new folder. Does nothing when that folder is complete. Prints its path.
 *
 *   node scripts/install-clients.js
 */
const { execFileSync } = require('node:child_process');
const { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const { clientCacheDir } = require('./client-cache');

/** The clients and the versions the recipes are tested with. */
const CLIENTS = {
  '@langchain/mcp-adapters': '1.1.4',
  '@langchain/core': '1.4.0',
  '@langchain/langgraph': '1.7.3',
  '@ai-sdk/mcp': '2.0.99',
  'mcp-remote': '0.15.1',
  '@modelcontextprotocol/sdk': '1.32.2',
};

/** The folder the clients are installed in (its `node_modules/` holds them). */
function clientsDir(env = process.env) {
  return clientCacheDir(env, 'CDKTF_MCP_GATEWAY_CLIENTS_DIR', 'clients', CLIENTS);
}

/** The marker written last: a folder without it is an interrupted install. */
const COMPLETE = '.complete';

function install() {
  const dir = clientsDir();
  if (existsSync(path.join(dir, COMPLETE))) return dir;
  const staging = `${dir}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(
    path.join(staging, 'package.json'),
    `${JSON.stringify({ name: 'cdktf-mcp-gateway-test-clients', private: true, type: 'module' }, null, 2)}\n`,
  );
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const specs = Object.entries(CLIENTS).map(([name, version]) => `${name}@${version}`);
  execFileSync(npm, ['install', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error', ...specs], {
    cwd: staging,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (const name of Object.keys(CLIENTS)) {
    if (!existsSync(path.join(staging, 'node_modules', name, 'package.json')))
      throw new Error(`npm installed the clients but ${name} is missing in ${staging}`);
  }
  writeFileSync(path.join(staging, COMPLETE), `${specs.join('\n')}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  return dir;
}

module.exports = { CLIENTS, clientsDir, COMPLETE };

if (require.main === module) {
  try {
    process.stdout.write(`${install()}\n`);
  } catch (err) {
    process.stderr.write(`install-clients: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
