/**
 * Interoperability with the official MCP TypeScript SDK client against the built CLI: connect, list, call,
 * refusals as `McpError`, protocol version negotiation, and `notifications/tools/list_changed` after SIGHUP; and
 * against an in-process gateway, the exact result of a call.
 */
import * as assert from 'node:assert/strict';
import { McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { GatewayConfig } from '../../../src/config';
import type { RunningGateway } from '../../../src/gateway';
import { startBackend, startFakeService, type FakeService, type TestBackend } from '../../helpers/backend';
import { botConfig, gatewayConfig, objectSchema, supportDeskTools, tool } from '../../helpers/config';
import { sleep, within } from '../../helpers/eventually';
import { type GatewayProcess, killAllGatewayProcesses, startGatewayProcess } from '../../helpers/gateway-process';
import { startSilentGateway } from '../../helpers/in-process-gateway';
import {
  connectClient,
  connectSdkClient,
  initializeRequest,
  openSession,
  postMcp,
  PROTOCOL_VERSIONS,
  type SdkConnection,
} from '../../helpers/mcp';
import { makeToken } from '../../helpers/tokens';

/** Asserts that `promise` rejects with an McpError of `code` whose error message is `message`. */
async function assertMcpError(promise: Promise<unknown>, code: number, message: string): Promise<McpError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof McpError, `expected McpError, got ${String(err)}`);
    assert.equal(err.code, code);
    assert.equal(err.message, `MCP error ${code}: ${message}`);
    return err;
  }
  assert.fail(`expected an McpError ${code}: ${message}`);
}

describe('gateway e2e: official SDK client', function () {
  this.timeout(20_000);
  const bot = makeToken('sdk-bot');
  let backend: TestBackend;
  let config: GatewayConfig;
  let gw: GatewayProcess;
  const connections: SdkConnection[] = [];

  async function connect(): Promise<SdkConnection> {
    const c = await connectSdkClient(gw.url, bot.token);
    connections.push(c);
    return c;
  }

  before(async () => {
    backend = await startBackend();
    config = gatewayConfig({ tokens: [bot], tools: supportDeskTools(backend.url) });
    gw = await startGatewayProcess({ config });
  });

  after(async () => {
    await Promise.all(connections.map((c) => c.close()));
    await killAllGatewayProcesses();
    await backend?.close();
  });

  it('connects with protocol 2025-11-25 and advertises tools with listChanged', async () => {
    const { client, transport } = await connect();
    assert.equal(transport.protocolVersion, '2025-11-25');
    assert.ok(transport.sessionId, 'no session id');
    assert.equal(client.getServerCapabilities()?.tools?.listChanged, true);
  });

  it('lists every tool with its advertised description and input schema', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), config.tools.map((t) => t.name).sort());
    const getCustomer = tools.find((t) => t.name === 'get_customer')!;
    const declared = config.tools.find((t) => t.name === 'get_customer')!;
    assert.equal(getCustomer.description, declared.description);
    assert.deepEqual(getCustomer.inputSchema, declared.input_schema);
    for (const t of tools) {
      const text = JSON.stringify(t);
      assert.ok(!text.includes('forward_as') && !text.includes('forwardAs') && !text.includes('aliases'), text);
    }
  });

  it('calls a tool and receives structuredContent and a text content', async () => {
    const { client } = await connect();
    const result = await client.callTool({ name: 'get_customer', arguments: { customer_id: 'C-1234', limit: 3 } });
    assert.equal(result.isError, undefined);
    const structured = result.structuredContent as { path: string; query: Record<string, string> };
    assert.equal(structured.path, '/customers/C-1234');
    assert.deepEqual(structured.query, { limit: '3' });
    assert.deepEqual(result.content, [{ type: 'text', text: (result.content as { text: string }[])[0].text }]);
  });

  it('receives a refusal as McpError -32602 with the exact message and violations', async () => {
    const { client } = await connect();
    const err = await assertMcpError(
      client.callTool({
        name: 'create_ticket',
        arguments: { subject: 'x', customer: { name: 'Ada', addresses: [{}] } },
      }),
      -32602,
      'Missing required parameter: `customer.addresses[0].zip_code`',
    );
    assert.deepEqual(err.data, {
      code: 'INVALID_ARGS',
      violations: [
        {
          path: 'customer.addresses[0].zip_code',
          rule: 'required',
          message: 'Missing required parameter: `customer.addresses[0].zip_code`',
        },
      ],
    });
  });

  it('receives an unknown tool as McpError -32602', async () => {
    const { client } = await connect();
    await assertMcpError(
      client.callTool({ name: 'delete_everything', arguments: {} }),
      -32602,
      'Unknown tool: `delete_everything`',
    );
  });

  it('answers ping', async () => {
    const { client } = await connect();
    assert.deepEqual(await client.ping(), {});
  });

  describe('protocol version negotiation (raw initialize)', () => {
    for (const version of PROTOCOL_VERSIONS) {
      it(`agrees to ${version} when the client asks for it`, async () => {
        const res = await postMcp(gw.url, initializeRequest(version), { token: bot.token });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.message?.result?.protocolVersion, version);
        assert.ok(res.headers.get('mcp-session-id'));
      });
    }

    it('answers its latest version to a client asking for an unknown one', async () => {
      const res = await postMcp(gw.url, initializeRequest('1999-01-01'), { token: bot.token });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.message?.result?.protocolVersion, '2025-11-25');
    });

    it('serves tools/list in a 2025-03-26 session', async () => {
      const session = await openSession(gw.url, { token: bot.token, protocolVersion: '2025-03-26' });
      const res = await session.request('tools/list', {});
      assert.equal(res.status, 200);
      assert.equal(res.message?.result?.tools?.length, config.tools.length);
    });
  });

  describe('reload on SIGHUP', () => {
    it('sends notifications/tools/list_changed and uses the new tools and schemas from the next call', async () => {
      const { client } = await connect();
      const changed = new Promise<void>((resolve) => {
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve());
      });
      const before = await client.callTool({ name: 'get_customer', arguments: { customer_id: 'C-0001' } });
      assert.equal(before.isError, undefined);

      const [getCustomer, ...rest] = supportDeskTools(backend.url);
      const next = gatewayConfig({
        tokens: [bot],
        tools: [
          {
            ...getCustomer,
            input_schema: objectSchema({ customer_id: { type: 'string' }, region: { type: 'string' } }, [
              'customer_id',
              'region',
            ]),
          },
          ...rest,
          tool('list_regions', `${backend.url}/regions`),
        ],
      });
      gw.writeConfig(next);
      // Give the client's GET stream a moment to be open before the signal (it opens right after initialize).
      await sleep(100);
      gw.signal('SIGHUP');
      await within(changed, 5_000, 'notifications/tools/list_changed');

      const { tools } = await client.listTools();
      assert.ok(
        tools.some((t) => t.name === 'list_regions'),
        JSON.stringify(tools.map((t) => t.name)),
      );
      await assertMcpError(
        client.callTool({ name: 'get_customer', arguments: { customer_id: 'C-0001' } }),
        -32602,
        'Missing required parameter: `region`',
      );
      const after = await client.callTool({ name: 'get_customer', arguments: { customer_id: 'C-0001', region: 'eu' } });
      assert.equal((after.structuredContent as { path: string }).path, '/customers/C-0001');
    });
  });
});

describe('the official SDK client against an in-process gateway', () => {
  let service: FakeService;
  let gateway: RunningGateway;

  before(async () => {
    service = await startFakeService();
    gateway = await startSilentGateway(
      botConfig([
        tool('get_customer', `${service.url}/customers/{customer_id}`, {
          description: 'The get_customer tool',
          inputSchema: objectSchema({ customer_id: { type: 'string', pattern: '^C-[0-9]{4}$' } }, ['customer_id']),
        }),
      ]),
    );
  });
  after(async () => {
    await gateway.close();
    await service.close();
  });

  it('connects, lists the tools with their schemas and calls one', async () => {
    const client = await connectClient(gateway.url);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => [t.name, t.description, t.inputSchema.required]),
        [['get_customer', 'The get_customer tool', ['customer_id']]],
      );
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
    const client = await connectClient(gateway.url);
    try {
      await assert.rejects(client.callTool({ name: 'get_customer', arguments: { customer_id: 7 } }), (err: unknown) => {
        assert.ok(err instanceof McpError);
        assert.equal(err.code, -32602);
        assert.equal(err.message, 'MCP error -32602: Invalid type for `customer_id`: expected string');
        assert.deepEqual(err.data, {
          code: 'INVALID_ARGS',
          violations: [
            { path: 'customer_id', rule: 'type', message: 'Invalid type for `customer_id`: expected string' },
          ],
        });
        return true;
      });
    } finally {
      await client.close();
    }
  });
});
