import assert from 'node:assert/strict';
import type { RunningGateway } from '../../../src/gateway';
import { startFakeService, type FakeService } from '../../helpers/backend';
import { botConfig, objectSchema, tool } from '../../helpers/config';
import { rawRequest } from '../../helpers/http';
import { startSilentGateway } from '../../helpers/in-process-gateway';
import { initializeSession, type McpSession, openSession, postMcp } from '../../helpers/mcp';
import { BOT } from '../../helpers/tokens';

describe('the POST endpoint: methods, requests and notifications', () => {
  let service: FakeService;
  let gateway: RunningGateway;
  let session: string;
  const auth = { authorization: `Bearer ${BOT.token}`, 'content-type': 'application/json' };
  const send = (headers: Record<string, string>, body: string) =>
    rawRequest({ url: gateway.url, headers, body, timeoutMs: 5_000 });

  before(async () => {
    service = await startFakeService();
    gateway = await startSilentGateway(
      botConfig([tool('ping_service', `${service.url}/ping`, { inputSchema: objectSchema({}) })]),
    );
    session = await initializeSession(gateway.url);
  });
  after(async () => {
    await gateway.close();
    await service.close();
  });

  it('answers an unknown method with -32601 before the session check', async () => {
    const res = await send(auth, '{"jsonrpc":"2.0","id":3,"method":"resources/list"}');
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, {
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32601, message: 'Method not found: resources/list' },
    });
  });

  it('answers tools/list, ping and accepts notifications with 202', async () => {
    const headers = { ...auth, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    const list = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' });
    assert.deepEqual(
      (await send(headers, list)).json.result.tools.map((t: { name: string }) => t.name),
      ['ping_service'],
    );
    assert.deepEqual((await send(headers, '{"jsonrpc":"2.0","id":"p","method":"ping"}')).json, {
      jsonrpc: '2.0',
      id: 'p',
      result: {},
    });
    const note = await send(headers, '{"jsonrpc":"2.0","method":"notifications/initialized"}');
    assert.equal(note.status, 202);
    assert.equal(note.text, '');
  });

  describe('notifications and client responses', () => {
    let own: McpSession;
    before(async () => {
      own = await openSession(gateway.url, { token: BOT.token });
    });

    it('answers a notification with 202 and no body', async () => {
      const res = await own.notify('notifications/cancelled', { requestId: 1, reason: 'test' });
      assert.equal(res.status, 202);
      assert.equal(res.text, '');
      assert.equal(res.headers.get('content-type'), null);
    });

    it('answers a tools/call sent as a notification (no id) with 202 and never calls the service', async () => {
      const before = service.received.length;
      const res = await postMcp(
        gateway.url,
        { jsonrpc: '2.0', method: 'tools/call', params: { name: 'ping_service' } },
        own.options(),
      );
      assert.equal(res.status, 202);
      assert.equal(res.text, '');
      assert.equal(service.received.length, before);
    });

    it("answers a client's JSON-RPC response (result, with id) with 202 and no body", async () => {
      const res = await postMcp(gateway.url, { jsonrpc: '2.0', id: 'srv-1', result: {} }, own.options());
      assert.equal(res.status, 202);
      assert.equal(res.text, '');
    });
  });
});
