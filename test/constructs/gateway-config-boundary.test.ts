/**
 * Across the boundary: the config that synthesis uploads into the gateway container is what the runtime
 * accepts, and a gateway serving it advertises exactly the synthesized schemas.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Testing } from 'cdktf';
import { SupportDeskStack } from '../../examples/support-desk/main';
import { parseGatewayConfig, RunningGateway, silentLogger, startGateway } from '../../src/gateway';
import { configText, synth } from './synth';

/** The development token whose hash the example falls back to (see examples/support-desk/main.ts). */
const AGENTS_DEV_TOKEN = 'support-desk-agents-dev-token';

describe('the synthesized gateway config, served by the runtime', () => {
  let dir: string;
  let gateway: RunningGateway | undefined;
  let client: Client | undefined;
  let text: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'boundary-test-'));
    const saved = process.env.AGENTS_TOKEN_SHA256;
    delete process.env.AGENTS_TOKEN_SHA256;
    try {
      const stack = new SupportDeskStack(Testing.app(), 'support-desk');
      text = configText(synth(stack), 'agents');
    } finally {
      if (saved !== undefined) process.env.AGENTS_TOKEN_SHA256 = saved;
    }
  });

  after(async () => {
    await client?.close();
    await gateway?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('parses with parseGatewayConfig', () => {
    const config = parseGatewayConfig(JSON.parse(text), 'gateway.json');
    assert.equal(config.gateway.name, 'agents');
    assert.equal(config.tools.length, 7);
  });

  it('answers tools/list with the same names, descriptions and schemas', async () => {
    const config = parseGatewayConfig(JSON.parse(text), 'gateway.json');
    gateway = await startGateway({
      config,
      host: '127.0.0.1',
      port: 0,
      auditLogPath: path.join(dir, 'audit.jsonl'),
      logger: silentLogger,
    });
    client = new Client({ name: 'boundary-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(gateway.url), {
        requestInit: { headers: { Authorization: `Bearer ${AGENTS_DEV_TOKEN}` } },
      }),
    );
    const { tools } = await client.listTools();
    const synthesized = JSON.parse(text).tools as { name: string; description: string; input_schema: unknown }[];
    assert.deepEqual(
      tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })),
      synthesized.map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema })),
    );
  });
});
