/**
 * The README's SDK snippets, checked against real gateways: `validationErrors: 'auto'` gives an MCP 2025-11-25
 * client (the SDK) an `isError` result, the default `'protocol'` makes `callTool` throw `McpError` -32602, and
 * `client.close()` lets the process end. The outputs the README shows are the ones asserted here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ValidationErrorsChannel } from '../../src/config';
import type { RunningGateway } from '../../src/gateway';
import { startBackend, type TestBackend } from '../helpers/backend';
import { botConfig, objectSchema, tool } from '../helpers/config';
import { startSilentGateway } from '../helpers/in-process-gateway';
import { connectSdkClient } from '../helpers/mcp';
import { BOT } from '../helpers/tokens';

const README = readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');
const MESSAGE = 'Invalid value for `customer_id`: expected to match pattern ^C-[0-9]{4}$';

describe('the README SDK snippets', () => {
  let backend: TestBackend;
  const gateways: RunningGateway[] = [];

  async function gateway(channel: ValidationErrorsChannel): Promise<RunningGateway> {
    const getCustomer = tool('get_customer', `${backend.url}/customers/{customer_id}`, {
      inputSchema: objectSchema({ customer_id: { type: 'string', pattern: '^C-[0-9]{4}$' } }, ['customer_id']),
    });
    const started = await startSilentGateway(botConfig([getCustomer], { validation_errors: channel }));
    gateways.push(started);
    return started;
  }

  before(async () => {
    backend = await startBackend();
  });
  after(async () => {
    for (const g of gateways) await g.close();
    await backend?.close();
  });

  it("shows what 'auto' gives the SDK: an isError result with the message", async () => {
    const { client, close } = await connectSdkClient((await gateway('auto')).url, BOT.token);
    const refused = await client.callTool({ name: 'get_customer', arguments: { customer_id: 'C-42' } });
    await close();
    const line = `${String(refused.isError)} ${(refused.content as { text: string }[])[0].text}`;
    assert.equal(line, `true ${MESSAGE}`);
    assert.ok(README.includes(`// ${line}\n`), 'the README shows this output');
    assert.ok(README.includes('await client.close();'), 'the README snippet closes the client');
  });

  it("shows what the default 'protocol' gives: callTool throws McpError -32602 with the violations", async () => {
    const { client, close } = await connectSdkClient((await gateway('protocol')).url, BOT.token);
    let thrown: unknown;
    try {
      await client.callTool({ name: 'get_customer', arguments: { customer_id: 'C-42' } });
    } catch (err) {
      thrown = err;
    } finally {
      await close();
    }
    assert.ok(thrown instanceof McpError, String(thrown));
    const line = `${thrown.code} ${thrown.message}`;
    assert.equal(line, `-32602 MCP error -32602: ${MESSAGE}`);
    assert.deepEqual(
      (thrown.data as { violations: { path: string; rule: string }[] }).violations.map((v) => [v.path, v.rule]),
      [['customer_id', 'pattern']],
    );
    assert.ok(README.includes(`// ${line}\n`), 'the README shows this output');
  });
});
