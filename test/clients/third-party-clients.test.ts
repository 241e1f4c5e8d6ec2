/**
 * docs/clients.md for LangChain's MCP adapters, the Vercel AI SDK and mcp-remote, run against a served gateway.
 * The clients live in a per-user cache outside the clone (`node scripts/install-clients.js`), so `npm ci` does not
 * grow: without it these tests are pending, naming that command; under CI=true they are required.
 */
import { clientsNodeModules, INSTALL_COMMAND } from './clients-cache';
import { describeRecipes } from './recipes';

describe('docs/clients.md: LangChain, the Vercel AI SDK and mcp-remote against a served gateway', function () {
  this.timeout(120_000);
  const nodeModules = clientsNodeModules();
  if (nodeModules === undefined) {
    it(`NOT RUN: needs the MCP clients installed outside the clone: run ${INSTALL_COMMAND} (required under CI=true)`);
    return;
  }
  describeRecipes(['LangChain', 'Vercel AI SDK', 'mcp-remote'], nodeModules);
});
