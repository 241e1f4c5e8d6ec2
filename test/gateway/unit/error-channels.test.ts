import assert from 'node:assert/strict';
import type { ValidationErrorsChannel } from '../../../src/contract';
import type { RunningGateway } from '../../../src/gateway';
import { config, connect, initialize, rawCall, start, startFakeService, tool, type FakeService } from './support';

const SCHEMA = {
  type: 'object',
  properties: { limit: { type: 'integer', minimum: 1 } },
  required: [],
  additionalProperties: false,
};
const MESSAGE = 'Invalid type for `limit`: expected integer';
const VIOLATIONS = [{ path: 'limit', rule: 'type', message: MESSAGE }];
const PROTOCOL_ERROR = { code: -32602, message: MESSAGE, data: { code: 'INVALID_ARGS', violations: VIOLATIONS } };
const TOOL_RESULT = { isError: true, content: [{ type: 'text', text: MESSAGE }], structuredContent: { violations: VIOLATIONS } };

describe('validation error channels', () => {
  let service: FakeService;
  const gateways: RunningGateway[] = [];
  const open = async (channel: ValidationErrorsChannel): Promise<RunningGateway> => {
    const gateway = await start(config([tool(service.origin, 'search_tickets', '/tickets', SCHEMA)], { validation_errors: channel }));
    gateways.push(gateway);
    return gateway;
  };

  before(async () => {
    service = await startFakeService();
  });
  after(async () => {
    await Promise.all(gateways.map((g) => g.close()));
    await service.close();
  });

  it('protocol: a JSON-RPC -32602 error with the violations', async () => {
    const gateway = await open('protocol');
    const session = await initialize(gateway.url, '2025-11-25');
    const res = await rawCall(gateway.url, session, 'search_tickets', { limit: 'ten' });
    assert.deepEqual(res, { jsonrpc: '2.0', id: 1, error: PROTOCOL_ERROR });
  });

  it('tool_result: a result with isError and structuredContent violations', async () => {
    const gateway = await open('tool_result');
    const session = await initialize(gateway.url, '2025-03-26');
    const res = await rawCall(gateway.url, session, 'search_tickets', { limit: 'ten' });
    assert.deepEqual(res, { jsonrpc: '2.0', id: 1, result: TOOL_RESULT });
  });

  it('auto: a tool result for a session that negotiated 2025-11-25', async () => {
    const gateway = await open('auto');
    const session = await initialize(gateway.url, '2025-11-25');
    assert.deepEqual((await rawCall(gateway.url, session, 'search_tickets', { limit: 'ten' })).result, TOOL_RESULT);
  });

  it('auto: a protocol error for a session that negotiated 2025-06-18', async () => {
    const gateway = await open('auto');
    const session = await initialize(gateway.url, '2025-06-18');
    assert.deepEqual((await rawCall(gateway.url, session, 'search_tickets', { limit: 'ten' })).error, PROTOCOL_ERROR);
  });

  it('auto: the SDK client (latest protocol) sees the refusal as an isError result', async () => {
    const gateway = await open('auto');
    const client = await connect(gateway.url);
    try {
      assert.deepEqual(await client.callTool({ name: 'search_tickets', arguments: { limit: 'ten' } }), TOOL_RESULT);
    } finally {
      await client.close();
    }
  });

  it('an unknown tool is a JSON-RPC -32602 error whatever the channel', async () => {
    const gateway = await open('tool_result');
    const session = await initialize(gateway.url);
    const res = await rawCall(gateway.url, session, 'search_ticket', {});
    assert.deepEqual(res.error, { code: -32602, message: 'Unknown tool: `search_ticket`' });
  });

  it('non-object arguments are refused through the channel', async () => {
    const gateway = await open('protocol');
    const session = await initialize(gateway.url);
    const res = await rawCall(gateway.url, session, 'search_tickets', [1]);
    const message = 'Invalid arguments: expected an object';
    assert.deepEqual(res.error, { code: -32602, message, data: { code: 'INVALID_ARGS', violations: [{ path: '', rule: 'type', message }] } });
  });

  it('omitted arguments count as {}', async () => {
    const gateway = await open('protocol');
    const session = await initialize(gateway.url);
    const res = await rawCall(gateway.url, session, 'search_tickets');
    assert.equal(res.result.isError, undefined);
    assert.equal(service.received.at(-1)!.url, '/tickets');
  });
});
