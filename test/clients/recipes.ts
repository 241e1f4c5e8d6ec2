/**
 * The two tests every client of docs/clients.md gets: its recipe run as written against the example's `agents`
 * gateway (exit 0, the output its comments show), and its restart driver across a restart of that gateway with
 * its kept session key (the same connection answers before and after).
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { serveExampleGateway, type ExampleGateway } from '../helpers/example-gateway';
import { expectedOutput, runSnippet, startSnippet } from '../helpers/snippets';
import { recipe } from './clients-cache';
import { RESTART_DRIVERS } from './restart-drivers';

/** Registers the recipe and restart tests of the clients under `headings`, importing from `nodeModules`. */
export function describeRecipes(headings: readonly string[], nodeModules: string): void {
  let gateway: ExampleGateway;
  // mcp-remote keeps OAuth state in ~/.mcp-auth unless told otherwise: the tests keep it in a temp folder
  let configDir = '';
  const env = (): NodeJS.ProcessEnv => ({ MCP_TOKEN: gateway.token, MCP_REMOTE_CONFIG_DIR: configDir });
  before(async () => {
    configDir = mkdtempSync(path.join(tmpdir(), 'mcp-remote-config-'));
    gateway = await serveExampleGateway();
  });
  after(async () => {
    await gateway?.close();
    if (configDir !== '') rmSync(configDir, { recursive: true, force: true });
  });

  for (const heading of headings) {
    it(`${heading}: the recipe as written connects, lists, calls, and the model reads the gateway's refusal`, async () => {
      const block = recipe(heading);
      const expected = expectedOutput(block.code);
      assert.ok(expected.length >= 3, `docs/clients.md:${block.line}: the recipe shows its output`);
      const run = await runSnippet(block.code, { nodeModules, url: gateway.url, env: env() });
      assert.equal(run.code, 0, `docs/clients.md:${block.line} exited ${run.code}\n${run.stderr}\n${run.stdout}`);
      assert.deepEqual(run.stdout.trimEnd().split('\n'), expected, `docs/clients.md:${block.line}\n${run.stderr}`);
    });

    it(`${heading}: the same connection works across a restart of a gateway with a kept session key`, async () => {
      const driver = startSnippet(RESTART_DRIVERS[heading], {
        nodeModules,
        url: gateway.url,
        env: env(),
      });
      try {
        await driver.waitForLine(/^restart now$/, 30_000);
        await gateway.restart();
        driver.child.stdin!.write('go\n');
        assert.equal(await driver.exited(30_000), 0, driver.stderr());
        assert.deepEqual(driver.stdout().trimEnd().split('\n'), [
          'before Ada Lovelace',
          'restart now',
          'after Grace Hopper',
        ]);
      } finally {
        driver.dispose();
      }
    });
  }
}
