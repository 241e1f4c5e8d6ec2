import assert from 'node:assert/strict';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { RunningGateway } from '../../../src/gateway';
import { config, connect, startFakeService, start, tool, type FakeService } from './support';

describe('gateway with the official MCP SDK client', () => {
  let service: FakeService;
  let gateway: RunningGateway;

  before(async () => {
    service = await startFakeService();
    gateway = await start(config([
      tool(service.origin, 'get_customer', '/customers/{customer_id}', {
        type: 'object',
        properties: { customer_id: { type: 'string', pattern: '^C-[0-9]{4}$' } },
        required: ['customer_id'],
        additionalProperties: false,
      }),
    ]));
  });
  after(async () => {
    await gateway.close();
    await service.close();
  });

  it('connects, lists the tools with their schemas and calls one', async () => {
    const client = await connect(gateway.url);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => [t.name, t.description, t.inputSchema.required]), [
        ['get_customer', 'The get_customer tool', ['customer_id']],
      ]);
      service.respond = () => ({ body: '{"id":"C-0001","name":"Ada"}' });
      const result = await client.callTool({ name: 'get_customer', arguments: { customer_id: 'C-0001' } });
      assert.deepEqual(result, {
        content: [{ type: 'text', text: '{"id":"C-0001","name":"Ada"}' }],
        structuredContent: { id: 'C-0001', name: 'Ada' },
      });
      assert.equal(service.received.at(-1)!.url, '/customers/C-0001');
    } finally {
      await client.close();
    }
  });

  it('refuses an invalid call with an McpError -32602 naming the field', async () => {
    const client = await connect(gateway.url);
    try {
      await assert.rejects(client.callTool({ name: 'get_customer', arguments: { customer_id: 7 } }), (err: unknown) => {
        assert.ok(err instanceof McpError);
        assert.equal(err.code, -32602);
        assert.equal(err.message, 'MCP error -32602: Invalid type for `customer_id`: expected string');
        assert.deepEqual(err.data, {
          code: 'INVALID_ARGS',
          violations: [{ path: 'customer_id', rule: 'type', message: 'Invalid type for `customer_id`: expected string' }],
        });
        return true;
      });
    } finally {
      await client.close();
    }
  });
});
