import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { GatewayConfig } from '../../../src/contract';
import type { RunningGateway } from '../../../src/gateway';
import { config, connect, eventually, initialize, post, rawCall, start, startFakeService, tool, type FakeService } from './support';

const schema = (type: string) => ({
  type: 'object',
  properties: { q: { type } },
  required: ['q'],
  additionalProperties: false,
});

describe('reload', () => {
  let service: FakeService;
  let v1: GatewayConfig;
  let v2: GatewayConfig;

  before(async () => {
    service = await startFakeService();
    v1 = config([tool(service.origin, 'lookup', '/lookup', schema('string'))]);
    v2 = config([
      tool(service.origin, 'lookup', '/lookup', schema('integer')),
      tool(service.origin, 'health', '/health', { type: 'object', properties: {}, additionalProperties: false }),
    ]);
  });
  after(() => service.close());

  it('swaps the tools, validates with the new schemas and notifies SDK clients', async () => {
    const gateway = await start(v1);
    const client = await connect(gateway.url);
    try {
      let notifications = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        notifications++;
      });
      // The SDK opens its GET stream in the background after connect(); reload until it has been notified.
      await eventually(async () => {
        await gateway.reload(v2);
        await new Promise((resolve) => setTimeout(resolve, 50));
        assert.ok(notifications > 0, 'no notifications/tools/list_changed received');
      });
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ['lookup', 'health']);
      const session = await initialize(gateway.url);
      const res = await rawCall(gateway.url, session, 'lookup', { q: 'text' });
      assert.equal(res.error.message, 'Invalid type for `q`: expected integer');
    } finally {
      await client.close();
      await gateway.close();
    }
  });

  it('refuses an invalid config and keeps the running one', async () => {
    const gateway = await start(v1);
    try {
      const broken = { ...v1, gateway: { ...v1.gateway, port: -1 } } as GatewayConfig;
      await assert.rejects(gateway.reload(broken), { name: 'ConfigError', message: 'gateway.port: must be an integer 1-65535' });
      const session = await initialize(gateway.url);
      const res = await rawCall(gateway.url, session, 'lookup', { q: 1 });
      assert.equal(res.error.message, 'Invalid type for `q`: expected string');
    } finally {
      await gateway.close();
    }
  });

  it('reloads from the config file when called without a config', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-reload-'));
    const file = join(dir, 'gateway.json');
    writeFileSync(file, JSON.stringify(v1));
    const gateway = await start(v1, { configPath: file });
    try {
      writeFileSync(file, JSON.stringify(v2));
      await gateway.reload();
      const session = await initialize(gateway.url);
      const list = await rawCallList(gateway.url, session);
      assert.deepEqual(list, ['lookup', 'health']);
    } finally {
      await gateway.close();
    }
  });

  it('reloads on SIGHUP when started from a file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-sighup-'));
    const file = join(dir, 'gateway.json');
    writeFileSync(file, JSON.stringify(v1));
    const gateway = await start(v1, { configPath: file });
    try {
      writeFileSync(file, JSON.stringify(v2));
      process.kill(process.pid, 'SIGHUP');
      const session = await initialize(gateway.url);
      await eventually(async () => assert.deepEqual(await rawCallList(gateway.url, session), ['lookup', 'health']));
    } finally {
      await gateway.close();
    }
  });

  it('reloads when the watched file changes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-watch-'));
    const file = join(dir, 'gateway.json');
    writeFileSync(file, JSON.stringify(v1));
    const gateway = await start(v1, { configPath: file, watch: true });
    try {
      writeFileSync(file, JSON.stringify(v2));
      const session = await initialize(gateway.url);
      await eventually(async () => assert.deepEqual(await rawCallList(gateway.url, session), ['lookup', 'health']), { timeoutMs: 3000 });
    } finally {
      await gateway.close();
    }
  });
});

async function rawCallList(url: string, session: string): Promise<string[]> {
  const { json } = await post(url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': session });
  return (json as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
}
