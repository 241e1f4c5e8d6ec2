/**
 * docs/clients.md for LangChain's MCP adapters, the Vercel AI SDK and mcp-remote, run against a served gateway.
 * The clients live in a per-user cache outside the clone (`node scripts/install-clients.js`), so `npm ci` does not
 * grow: without it these tests are pending, naming that command; under CI=true they are required.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { serveExampleGateway, type ExampleGateway } from '../helpers/example-gateway';
import { runSnippet, SNIPPET_URL } from '../helpers/snippets';
import { clientsNodeModules, INSTALL_COMMAND } from './clients-cache';
import { describeRecipes } from './recipes';

/** mcp-remote with a token the gateway refuses: prints what the bridge said about it. */
const WRONG_TOKEN = `
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
const transport = new StdioClientTransport({
  command: 'mcp-remote',
  args: ['${SNIPPET_URL}', '--header', 'Authorization:Bearer not-the-token'],
  env: { ...process.env }, // MCP_REMOTE_CONFIG_DIR included: the SDK passes only HOME, PATH, … by default
  stderr: 'pipe',
});
let said = '';
transport.stderr.on('data', (d) => (said += d));
await new Client({ name: 'desktop', version: '1.0.0' }).connect(transport).then(
  () => console.log('connected'),
  (err) => console.log('refused:', err.message),
);
console.log(said.split('\\n').find((l) => l.includes('Dynamic Client Registration')) ?? said);
process.exit(0);
`;

describe('docs/clients.md: LangChain, the Vercel AI SDK and mcp-remote against a served gateway', function () {
  this.timeout(120_000);
  const nodeModules = clientsNodeModules();
  if (nodeModules === undefined) {
    it(`NOT RUN: needs the MCP clients installed outside the clone: run ${INSTALL_COMMAND} (required under CI=true)`);
    return;
  }
  describeRecipes(['LangChain', 'Vercel AI SDK', 'mcp-remote'], nodeModules);

  describe('mcp-remote with a refused token', () => {
    let gateway: ExampleGateway;
    let configDir = '';
    before(async () => {
      configDir = mkdtempSync(path.join(tmpdir(), 'mcp-remote-config-'));
      gateway = await serveExampleGateway();
    });
    after(async () => {
      await gateway?.close();
      if (configDir !== '') rmSync(configDir, { recursive: true, force: true });
    });

    it('tries OAuth on the 401 and reports the registration the gateway does not offer, as docs/clients.md says', async () => {
      const run = await runSnippet(WRONG_TOKEN, {
        nodeModules,
        url: gateway.url,
        env: { MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: 'none' },
      });
      const [outcome, said] = run.stdout.trimEnd().split('\n');
      assert.equal(outcome, 'refused: MCP error -32000: Connection closed', run.stdout);
      assert.match(said, /Dynamic Client Registration rejected \(HTTP 404\)/);
    });
  });
});
