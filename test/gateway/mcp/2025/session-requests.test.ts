import assert from 'node:assert/strict';
import type { GatewayState } from '../../../../src/gateway/state/gateway-state';
import { answerRequest } from '../../../../src/gateway/mcp/2025/session-requests';
import type { McpSession } from '../../../../src/gateway/mcp/2025/require-session';
import type { CallServices } from '../../../../src/gateway/tools/call-pipeline';
import { startBackend } from '../../../helpers/backend';
import { botConfig, tool } from '../../../helpers/config';
import { startSilentGateway } from '../../../helpers/in-process-gateway';
import { initializeSession, postJson } from '../../../helpers/mcp';

describe('dispatch by method', () => {
  const UNKNOWN = [
    'tools/calls',
    'tools/call/x',
    'TOOLS/CALL',
    'constructor',
    'toString',
    '__proto__',
    'hasOwnProperty',
  ];

  it('never answers an unknown method as tools/call: -32601, touching no state', async () => {
    const touched: string[] = [];
    const spy = <T extends object>(what: string): T =>
      new Proxy({} as T, {
        get: (_t, key) => {
          touched.push(`${what}.${String(key)}`);
          return undefined;
        },
      });
    for (const method of UNKNOWN) {
      const answer = await answerRequest(
        spy<GatewayState>('state'),
        spy<McpSession>('session'),
        1,
        method,
        { name: 'get_customer', arguments: {} },
        spy<CallServices>('ctx'),
      );
      assert.deepEqual(JSON.parse(String(answer)), {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32601, message: `Method not found: ${method}` },
      });
    }
    assert.deepEqual(touched, []);
  });

  it('answers an unknown method -32601 on a real session, and no backend is called', async () => {
    const backend = await startBackend();
    const gateway = await startSilentGateway(botConfig([tool('get_customer', `${backend.url}/c`)]));
    try {
      const session = await initializeSession(gateway.url);
      for (const method of UNKNOWN) {
        const res = await postJson(
          gateway.url,
          { jsonrpc: '2.0', id: 7, method, params: { name: 'get_customer', arguments: {} } },
          { 'mcp-session-id': session },
        );
        assert.equal(res.status, 200, method);
        assert.deepEqual(res.json.error, { code: -32601, message: `Method not found: ${method}` }, method);
      }
      assert.equal(backend.requests, 0);
    } finally {
      await gateway.close();
      await backend.close();
    }
  });
});
