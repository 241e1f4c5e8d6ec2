/**
 * Where test/clients/ finds the MCP clients `node scripts/install-clients.js` installs (a per-user cache outside
 * the clone), and the recipes of docs/clients.md by their section.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { ciRequired } from '../helpers/reuse-port-node';
import { codeBlocks, type CodeBlock } from '../helpers/snippets';

const ROOT = path.resolve(__dirname, '../..');
const install = require('../../scripts/install-clients.js') as {
  clientsDir(env?: NodeJS.ProcessEnv): string;
  COMPLETE: string;
};

/** The command that installs the clients, as the pending titles name it. */
export const INSTALL_COMMAND = 'node scripts/install-clients.js';

/**
 * The `node_modules` folder holding the clients, or `undefined` outside CI when they are not installed.
 * @throws Error under `CI=true` when they are not installed (`.ci/run` installs them)
 */
export function clientsNodeModules(): string | undefined {
  const dir = install.clientsDir();
  if (existsSync(path.join(dir, install.COMPLETE))) return path.join(dir, 'node_modules');
  if (ciRequired())
    throw new Error(`the MCP clients are required under CI=true but ${dir} is missing: run ${INSTALL_COMMAND}`);
  return undefined;
}

/** This repository's `node_modules` (the official SDKs are dev dependencies). */
export const REPO_NODE_MODULES = path.join(ROOT, 'node_modules');

/** The first `lang` block under the section of docs/clients.md whose heading starts with `heading`. */
export function recipe(heading: string, lang: 'js' | 'python' = 'js'): CodeBlock {
  const found = codeBlocks(path.join(ROOT, 'docs', 'clients.md')).find(
    (b) => b.lang === lang && b.section.replace(/`/g, '').startsWith(heading),
  );
  if (found === undefined) throw new Error(`docs/clients.md has no ${lang} block under a heading "${heading}…"`);
  return found;
}

const installPython = require('../../scripts/install-python-clients.js') as {
  pythonClientsDir(env?: NodeJS.ProcessEnv): string;
  pythonOf(dir: string): string;
  COMPLETE: string;
};

/** The command that installs the Python clients, as the pending titles name it. */
export const INSTALL_PYTHON_COMMAND = 'node scripts/install-python-clients.js';

/**
 * The interpreter of the virtual environment holding the Python clients, or `undefined` outside CI when they are
 * not installed.
 * @throws Error under `CI=true` when they are not installed (`.ci/run` installs them)
 */
export function pythonClients(): string | undefined {
  const dir = installPython.pythonClientsDir();
  if (existsSync(path.join(dir, installPython.COMPLETE))) return installPython.pythonOf(dir);
  if (ciRequired())
    throw new Error(
      `the Python MCP clients are required under CI=true but ${dir} is missing: run ${INSTALL_PYTHON_COMMAND}`,
    );
  return undefined;
}
