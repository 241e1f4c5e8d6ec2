#!/usr/bin/env node
/**
 * Installs the Python MCP clients that test/clients/python-clients.test.ts runs the Python recipes of
 * docs/clients.md with (the official `mcp` SDK, FastMCP's client, pydantic-ai's MCP toolset, openai-agents' MCP
 * servers) into a virtual environment in a per-user cache outside the clone:
 * `$CDKTF_MCP_GATEWAY_PYTHON_CLIENTS_DIR`, else `$XDG_CACHE_HOME/cdktf-mcp-gateway/python-clients-<versions hash>`,
 * else `~/.cache/…`. Needs `python3` (3.10 or later, with `venv`) and PyPI. The versions are pinned here; a change
 * of them installs into a new folder. Does nothing when that folder is complete. Prints its path.
 *
 *   node scripts/install-python-clients.js
 */
const { execFileSync } = require('node:child_process');
const { existsSync, rmSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const { clientCacheDir } = require('./client-cache');

/** The clients and the versions the recipes are tested with. */
const PACKAGES = {
  mcp: '2.3.0',
  fastmcp: '4.2.3',
  'pydantic-ai-slim[mcp]': '2.62.0',
  'openai-agents': '0.24.0',
};

/** The folder of the virtual environment. */
function pythonClientsDir(env = process.env) {
  return clientCacheDir(env, 'CDKTF_MCP_GATEWAY_PYTHON_CLIENTS_DIR', 'python-clients', PACKAGES);
}

/** The environment's interpreter. */
function pythonOf(dir) {
  return path.join(dir, 'bin', 'python');
}

/** The marker written last: a folder without it is an interrupted install, made again. */
const COMPLETE = '.complete';

function install() {
  const dir = pythonClientsDir();
  if (existsSync(path.join(dir, COMPLETE))) return dir;
  // a virtual environment names its own path inside: it is made where it stays
  rmSync(dir, { recursive: true, force: true });
  execFileSync('python3', ['-m', 'venv', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
  const specs = Object.entries(PACKAGES).map(([name, version]) => `${name}==${version}`);
  execFileSync(
    pythonOf(dir),
    ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-input', ...specs],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  writeFileSync(path.join(dir, COMPLETE), `${specs.join('\n')}\n`);
  return dir;
}

module.exports = { pythonClientsDir, pythonOf, COMPLETE, PACKAGES };

if (require.main === module) {
  try {
    process.stdout.write(`${install()}\n`);
  } catch (err) {
    process.stderr.write(`install-python-clients: ${err.message}\n`);
    process.exit(1);
  }
}
