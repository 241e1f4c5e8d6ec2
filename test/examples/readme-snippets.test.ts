/**
 * Every client snippet of the README, run as written (saved as an ES module, run with `node`, only the gateway URL
 * replaced by the served one) against the example's `agents` gateway as `npm start` serves it: each must exit on
 * its own and print exactly what its comments show. The `'protocol'` snippet runs against the same gateway with
 * `validationErrors: 'protocol'`.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { serveExampleGateway, type ExampleGateway } from '../helpers/example-gateway';
import { codeBlocks, expectedOutput, runSnippet } from '../helpers/snippets';

const ROOT = path.resolve(__dirname, '../..');
const NODE_MODULES = path.join(ROOT, 'node_modules');
const snippets = codeBlocks(path.join(ROOT, 'README.md')).filter(
  (b) => b.lang === 'ts' && b.code.includes('new Client('),
);

describe('the README client snippets, run as written', function () {
  this.timeout(60_000);
  let agents: ExampleGateway;
  let protocol: ExampleGateway;

  before(async () => {
    agents = await serveExampleGateway();
    protocol = await serveExampleGateway({ validationErrors: 'protocol' });
  });
  after(async () => {
    await agents?.close();
    await protocol?.close();
  });

  it('finds the three: the 1.x SDK, the 2.x client, and the protocol refusal', () => {
    assert.deepEqual(
      snippets.map((s) => /from '(@modelcontextprotocol\/[a-z]+)/.exec(s.code)?.[1]),
      ['@modelcontextprotocol/sdk', '@modelcontextprotocol/client', '@modelcontextprotocol/sdk'],
    );
  });

  snippets.forEach((snippet, i) => {
    it(`README.md:${snippet.line} (snippet ${i + 1}) exits 0 and prints what its comments show`, async () => {
      const gateway = snippet.code.includes('instanceof McpError') ? protocol : agents;
      const expected = expectedOutput(snippet.code);
      assert.ok(expected.length > 0, `README.md:${snippet.line}: the snippet shows its output`);
      const run = await runSnippet(snippet.code, {
        nodeModules: NODE_MODULES,
        url: gateway.url,
        env: { MCP_TOKEN: gateway.token },
      });
      assert.equal(run.code, 0, `README.md:${snippet.line} exited ${run.code}\n${run.stderr}`);
      assert.deepEqual(run.stdout.trimEnd().split('\n'), expected, run.stderr);
    });
  });
});
