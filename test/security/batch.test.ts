/**
 * Attack suite (issue 20): a 2025-03-26 JSON-RPC batch that smuggles one call the token's scopes do not allow
 * among calls they do. The whole batch is refused with HTTP 403 `insufficient_scope` naming the scope, and a
 * counting backend proves that none of its calls ran: not the 49 allowed calls before the forbidden one, not an
 * allowed call sharing its id, not a forbidden call sent as a notification.
 */
import assert from 'node:assert/strict';
import { startBackend, type TestBackend } from '../helpers/backend';
import { gatewayConfig, objectSchema, tool } from '../helpers/config';
import { initializeSession, postMcp } from '../helpers/mcp';
import { makeToken, tokenEntry } from '../helpers/tokens';
import { startOn, type GatewayOnPort } from '../helpers/gateway-on-port';

const READER = makeToken('batch-reader');

describe('attack: a batch smuggling a call outside the token scopes', function () {
  this.timeout(60_000);
  let backend: TestBackend;
  let gw: GatewayOnPort;
  let session: string;

  before(async () => {
    backend = await startBackend();
    const input = objectSchema({ id: { type: 'string' } });
    const config = gatewayConfig({
      name: 'batch-gw',
      tokens: [],
      tools: [
        {
          ...tool('read_customer', `${backend.url}/customers`, { inputSchema: input }),
          required_scopes: ['crm.read'],
        },
        {
          ...tool('delete_customer', `${backend.url}/customers`, { method: 'DELETE', inputSchema: input }),
          required_scopes: ['crm.write'],
        },
      ],
      settings: { max_concurrent_calls: 256, max_concurrent_calls_per_principal: 256 },
    });
    gw = await startOn({
      ...config,
      gateway: { ...config.gateway, auth: { tokens: [{ ...tokenEntry(READER), scopes: ['crm.read'] }] } },
    });
    session = await initializeSession(gw.url, '2025-03-26', READER.token);
  });

  after(async () => {
    await gw?.close();
    await backend?.close();
  });

  const call = (id: number | string | undefined, name: string) => ({
    jsonrpc: '2.0',
    ...(id === undefined ? {} : { id }),
    method: 'tools/call',
    params: { name, arguments: { id: 'C-1' } },
  });
  const post = (batch: unknown[]) => postMcp(gw.url, batch, { token: READER.token, sessionId: session });
  function assertScopeRefusal(res: Awaited<ReturnType<typeof post>>): void {
    assert.equal(res.status, 403, res.text);
    const challenge = res.headers.get('www-authenticate') ?? '';
    assert.match(challenge, /error="insufficient_scope"/);
    assert.match(challenge, /scope="crm\.write"/);
  }

  it('refuses a batch of 50 whose last call is forbidden, before any of the 49 allowed calls runs', async () => {
    const before = backend.requests;
    const batch = [...Array.from({ length: 49 }, (_, i) => call(i + 1, 'read_customer')), call(50, 'delete_customer')];
    const res = await post(batch);
    assertScopeRefusal(res);
    assert.equal(JSON.parse(res.text).id, 50, 'the error echoes the refused call');
    assert.equal(backend.requests, before, 'no call of the batch reached the backend');
  });

  it('refuses a forbidden call that shares its id with an allowed one, in either order', async () => {
    const before = backend.requests;
    assertScopeRefusal(await post([call(7, 'read_customer'), call(7, 'delete_customer')]));
    assertScopeRefusal(await post([call(7, 'delete_customer'), call(7, 'read_customer')]));
    assertScopeRefusal(await post([call('7', 'read_customer'), call(7, 'delete_customer')]));
    assert.equal(backend.requests, before);
  });

  it('never runs a forbidden call sent as a notification (no id) inside a batch', async () => {
    const before = backend.requests;
    const res = await post([call(undefined, 'delete_customer'), call(1, 'read_customer')]);
    // A notification is not a request: it is not run, and gets no answer; the allowed call runs.
    assert.equal(res.status, 200);
    assert.deepEqual(
      (JSON.parse(res.text) as { id: number }[]).map((a) => a.id),
      [1],
    );
    assert.equal(backend.requests, before + 1);
    assert.deepEqual(
      backend.received.slice(-1).map((r) => r.method),
      ['GET'],
    );
  });

  it('refuses the batch whatever surrounds the forbidden call: pings, unknown tools, notifications', async () => {
    const before = backend.requests;
    const res = await post([
      { jsonrpc: '2.0', id: 'p', method: 'ping' },
      call(1, 'no_such_tool'),
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      call(2, 'read_customer'),
      call(3, 'delete_customer'),
      call(4, 'read_customer'),
    ]);
    assertScopeRefusal(res);
    assert.equal(backend.requests, before);
  });

  it('still runs a batch the scopes allow (the refusal is about the forbidden call, not batches)', async () => {
    const before = backend.requests;
    const res = await post(Array.from({ length: 50 }, (_, i) => call(i + 1, 'read_customer')));
    assert.equal(res.status, 200);
    const answers = JSON.parse(res.text) as { id: number; error?: unknown }[];
    assert.equal(answers.length, 50);
    assert.ok(answers.every((a) => a.error === undefined));
    assert.equal(backend.requests, before + 50);
  });
});
