import assert from 'node:assert/strict';
import type { RunningGateway } from '../../../../src/gateway';
import { botConfig } from '../../../helpers/config';
import { rawRequest } from '../../../helpers/http';
import { startSilentGateway } from '../../../helpers/in-process-gateway';
import { initializeSession } from '../../../helpers/mcp';
import { BOT } from '../../../helpers/tokens';

describe('the JSON-RPC shape of a message (-32600, before the session)', () => {
  let gateway: RunningGateway;
  let session: string;
  const auth = { authorization: `Bearer ${BOT.token}`, 'content-type': 'application/json' };
  const send = (headers: Record<string, string>, body: string) =>
    rawRequest({ url: gateway.url, headers, body, timeoutMs: 5_000 });

  before(async () => {
    gateway = await startSilentGateway(botConfig([]));
    session = await initializeSession(gateway.url);
  });
  after(() => gateway.close());

  it('answers a message that is not JSON-RPC 2.0 with -32600', async () => {
    const res = await send(auth, '{"id":1,"method":"ping"}');
    assert.equal(res.status, 400);
    assert.deepEqual(res.json.error, { code: -32600, message: 'Invalid Request: jsonrpc must be "2.0"' });
  });

  it('echoes a readable request id in a -32600 answer', async () => {
    const cases: [string, string | number, string][] = [
      ['{"id":1,"method":"ping"}', 1, 'jsonrpc must be "2.0"'],
      ['{"jsonrpc":"2.0","id":"r-2"}', 'r-2', 'method is required'],
      ['{"jsonrpc":"2.0","id":3,"method":7}', 3, 'method must be a string'],
      ['{"jsonrpc":"2.0","id":4.5,"method":"tools/call","params":"x"}', 4.5, 'params must be an object'],
    ];
    for (const [body, id, why] of cases) {
      const res = await send({ ...auth, 'mcp-session-id': session }, body);
      assert.equal(res.status, 400, body);
      assert.deepEqual(
        res.json,
        { jsonrpc: '2.0', id, error: { code: -32600, message: `Invalid Request: ${why}` } },
        body,
      );
    }
  });

  it('answers -32600 with id null when the id is not a valid JSON-RPC id', async () => {
    for (const body of [
      '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}',
      '{"jsonrpc":"2.0","id":null,"method":"ping"}',
      '{"jsonrpc":"2.0","id":true}',
    ]) {
      const res = await send({ ...auth, 'mcp-session-id': session }, body);
      assert.deepEqual(
        res.json,
        {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'Invalid Request: id must be a string or a number' },
        },
        body,
      );
    }
  });
});
