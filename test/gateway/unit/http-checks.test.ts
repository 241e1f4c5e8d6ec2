import assert from 'node:assert/strict';
import type { RunningGateway } from '../../../src/gateway';
import { config, httpRequest, initialize, OTHER_TOKEN, rawCall, start, startFakeService, tool, TOKEN, type FakeService } from './support';

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' });

describe('the /mcp endpoint, in the order of its checks', () => {
  let service: FakeService;
  let gateway: RunningGateway;
  let session: string;
  const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const send = (headers: Record<string, string>, body: string = LIST, method = 'POST') =>
    httpRequest(gateway.url, { method, headers, body: method === 'POST' ? body : undefined });

  before(async () => {
    service = await startFakeService();
    gateway = await start(config([tool(service.origin, 'ping_service', '/ping', { type: 'object', properties: {}, additionalProperties: false })], {
      max_body_bytes: 1000,
    }));
    session = await initialize(gateway.url);
  });
  after(async () => {
    await gateway.close();
    await service.close();
  });

  it('refuses a foreign Host with 403 before looking at the token', async () => {
    const res = await send({ host: 'evil.example:80' });
    assert.equal(res.status, 403);
    assert.deepEqual(res.json, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Forbidden: Host not allowed' } });
  });

  it('refuses a foreign Origin with 403 even with a valid token', async () => {
    const res = await send({ ...auth, origin: 'https://evil.example', 'mcp-session-id': session });
    assert.equal(res.status, 403);
    assert.equal(res.json.error.message, 'Forbidden: Origin not allowed');
  });

  it('accepts a localhost Host and Origin on a loopback gateway', async () => {
    const port = new URL(gateway.url).port;
    const res = await send({ ...auth, host: `localhost:${port}`, origin: 'http://localhost:3000', 'mcp-session-id': session });
    assert.equal(res.status, 200);
  });

  it('refuses a missing token with 401 and WWW-Authenticate: Bearer, before reading the body', async () => {
    const res = await send({ 'content-type': 'application/json' }, 'x'.repeat(5000));
    assert.equal(res.status, 401);
    assert.equal(res.headers['www-authenticate'], 'Bearer');
    assert.equal(res.json.error.message, 'Unauthorized: a valid bearer token is required');
  });

  it('refuses a wrong token with 401', async () => {
    const res = await send({ authorization: 'Bearer nope' }, '{');
    assert.equal(res.status, 401);
  });

  it('refuses a body over max_body_bytes with 413', async () => {
    const res = await send(auth, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(2000) } }));
    assert.equal(res.status, 413);
    assert.equal(res.json.error.message, 'Payload Too Large: the body exceeds 1000 bytes');
  });

  it('answers a body that is not JSON with -32700', async () => {
    const res = await send(auth, '{"jsonrpc":');
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, -32700);
  });

  it('answers a message that is not JSON-RPC 2.0 with -32600', async () => {
    const res = await send(auth, '{"id":1,"method":"ping"}');
    assert.equal(res.status, 400);
    assert.deepEqual(res.json.error, { code: -32600, message: 'Invalid Request: jsonrpc must be "2.0"' });
  });

  it('echoes a readable request id in a -32600 answer', async () => {
    const cases: Array<[string, string | number, string]> = [
      ['{"id":1,"method":"ping"}', 1, 'jsonrpc must be "2.0"'],
      ['{"jsonrpc":"2.0","id":"r-2"}', 'r-2', 'method is required'],
      ['{"jsonrpc":"2.0","id":3,"method":7}', 3, 'method must be a string'],
      ['{"jsonrpc":"2.0","id":4.5,"method":"tools/call","params":"x"}', 4.5, 'params must be an object'],
    ];
    for (const [body, id, why] of cases) {
      const res = await send({ ...auth, 'mcp-session-id': session }, body);
      assert.equal(res.status, 400, body);
      assert.deepEqual(res.json, { jsonrpc: '2.0', id, error: { code: -32600, message: `Invalid Request: ${why}` } }, body);
    }
  });

  it('answers -32600 with id null when the id is not a valid JSON-RPC id', async () => {
    for (const body of ['{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', '{"jsonrpc":"2.0","id":null,"method":"ping"}', '{"jsonrpc":"2.0","id":true}']) {
      const res = await send({ ...auth, 'mcp-session-id': session }, body);
      assert.deepEqual(res.json, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: id must be a string or a number' } }, body);
    }
  });

  it('refuses a batch with -32600', async () => {
    const res = await send(auth, `[${LIST}]`);
    assert.equal(res.status, 400);
    assert.deepEqual(res.json.error, { code: -32600, message: 'Invalid Request: batch requests are not supported' });
  });

  it('answers an unknown method with -32601 before the session check', async () => {
    const res = await send(auth, '{"jsonrpc":"2.0","id":3,"method":"resources/list"}');
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found: resources/list' } });
  });

  it('refuses a request without Mcp-Session-Id with 400', async () => {
    const res = await send(auth);
    assert.equal(res.status, 400);
    assert.equal(res.json.error.message, 'Bad Request: Mcp-Session-Id header is required');
  });

  it('refuses an unknown session with 404', async () => {
    const res = await send({ ...auth, 'mcp-session-id': 'f'.repeat(32) });
    assert.equal(res.status, 404);
    assert.equal(res.json.error.message, 'Session not found');
  });

  it('treats a session presented with another token as unknown (404)', async () => {
    const res = await send({ ...auth, authorization: `Bearer ${OTHER_TOKEN}`, 'mcp-session-id': session });
    assert.equal(res.status, 404);
  });

  it('refuses an unsupported MCP-Protocol-Version with 400', async () => {
    const res = await send({ ...auth, 'mcp-session-id': session, 'mcp-protocol-version': '2024-01-01' });
    assert.equal(res.status, 400);
    assert.match(res.json.error.message, /^Bad Request: unsupported MCP-Protocol-Version/);
  });

  it('answers tools/list, ping and accepts notifications with 202', async () => {
    const headers = { ...auth, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    assert.deepEqual((await send(headers)).json.result.tools.map((t: { name: string }) => t.name), ['ping_service']);
    assert.deepEqual((await send(headers, '{"jsonrpc":"2.0","id":"p","method":"ping"}')).json, { jsonrpc: '2.0', id: 'p', result: {} });
    const note = await send(headers, '{"jsonrpc":"2.0","method":"notifications/initialized"}');
    assert.equal(note.status, 202);
    assert.equal(note.body, '');
  });

  it('negotiates: echoes a supported version, answers the latest otherwise', async () => {
    const init = (v: string) => send(auth, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: v, capabilities: {}, clientInfo: { name: 'c', version: '1' } } }));
    const old = await init('2025-03-26');
    assert.equal(old.json.result.protocolVersion, '2025-03-26');
    assert.deepEqual(old.json.result.capabilities, { tools: { listChanged: true } });
    assert.match(old.headers['mcp-session-id'] as string, /^[0-9a-f]{32}$/);
    assert.equal((await init('2099-01-01')).json.result.protocolVersion, '2025-11-25');
  });

  it('refuses a GET without Accept: text/event-stream with 406', async () => {
    const res = await send({ ...auth, 'mcp-session-id': session }, '', 'GET');
    assert.equal(res.status, 406);
  });

  it('refuses other methods with 405', async () => {
    const res = await send({ ...auth, 'mcp-session-id': session }, '', 'PUT');
    assert.equal(res.status, 405);
    assert.equal(res.headers.allow, 'GET, POST, DELETE');
  });

  it('ends a session on DELETE; later requests get 404', async () => {
    const own = await initialize(gateway.url);
    assert.equal((await send({ ...auth, 'mcp-session-id': own }, '', 'DELETE')).status, 200);
    assert.equal((await send({ ...auth, 'mcp-session-id': own })).status, 404);
  });

  it('serves /healthz and /readyz', async () => {
    const base = gateway.url.replace(/\/mcp$/, '');
    const health = await httpRequest(`${base}/healthz`, { method: 'GET' });
    assert.deepEqual([health.status, health.json], [200, { status: 'ok' }]);
    assert.equal((await httpRequest(`${base}/readyz`, { method: 'GET' })).status, 200);
    assert.equal((await httpRequest(`${base}/other`, { method: 'GET' })).status, 404);
  });
});

describe('gateway settings', () => {
  let service: FakeService;
  before(async () => {
    service = await startFakeService();
  });
  after(() => service.close());

  it('auth "none" accepts requests without a token', async () => {
    const gateway = await start(config([], { auth: 'none' }));
    try {
      const res = await httpRequest(gateway.url, {
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}',
      });
      assert.equal(res.status, 200);
    } finally {
      await gateway.close();
    }
  });

  it('allowed_hosts and allowed_origins replace the loopback defaults', async () => {
    const gateway = await start(config([], { allowed_hosts: ['mcp.internal'], allowed_origins: ['https://console.internal'] }));
    try {
      const body = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
      const h = { authorization: `Bearer ${TOKEN}` };
      assert.equal((await httpRequest(gateway.url, { headers: { ...h, host: 'localhost' }, body })).status, 403);
      assert.equal((await httpRequest(gateway.url, { headers: { ...h, host: 'mcp.internal:8080', origin: 'http://localhost' }, body })).status, 403);
      assert.equal((await httpRequest(gateway.url, { headers: { ...h, host: 'mcp.internal', origin: 'https://console.internal' }, body })).status, 400);
    } finally {
      await gateway.close();
    }
  });

  it('with validate_input off forwards invalid arguments but still refuses alias conflicts and unknown tools', async () => {
    const schema = { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'], additionalProperties: false };
    const gateway = await start(config([
      tool(service.origin, 'create_task', '/tasks', schema, { aliases: { description: 'prompt' } }),
    ], { validate_input: false }));
    try {
      const session = await initialize(gateway.url);
      const ok = await rawCall(gateway.url, session, 'create_task', { description: 42, extra: true });
      assert.equal(ok.result.isError, undefined);
      assert.equal(service.received.at(-1)!.url, '/tasks?prompt=42&extra=true');
      const conflict = await rawCall(gateway.url, session, 'create_task', { prompt: 'a', description: 'b' });
      assert.equal(conflict.error.message, 'Conflicting parameters: `prompt` and `description`');
      assert.equal((await rawCall(gateway.url, session, 'nope', {})).error.message, 'Unknown tool: `nope`');
    } finally {
      await gateway.close();
    }
  });

  it('refuses calls of a tool whose schema cannot compile with -32603; other tools work', async () => {
    const broken = { type: 'object', properties: { q: { type: 'strin' } } };
    const gateway = await start(config([
      tool(service.origin, 'broken', '/b', broken),
      tool(service.origin, 'fine', '/f', { type: 'object' }),
    ]));
    try {
      const session = await initialize(gateway.url);
      assert.deepEqual((await rawCall(gateway.url, session, 'broken', {})).error, { code: -32603, message: 'Tool unavailable: `broken`' });
      assert.equal((await rawCall(gateway.url, session, 'fine', {})).result.isError, undefined);
    } finally {
      await gateway.close();
    }
  });

  it('refuses calls over max_concurrent_calls with -32000', async () => {
    const gateway = await start(config([tool(service.origin, 'slow', '/slow', { type: 'object' })], { max_concurrent_calls: 1 }));
    service.respond = () => ({ delayMs: 300, body: '{}' });
    try {
      const session = await initialize(gateway.url);
      const first = rawCall(gateway.url, session, 'slow', {});
      await new Promise((resolve) => setTimeout(resolve, 100));
      const second = await rawCall(gateway.url, session, 'slow', {});
      assert.deepEqual(second.error, { code: -32000, message: 'Gateway busy: too many concurrent calls' });
      assert.equal((await first).result.isError, undefined);
    } finally {
      await gateway.close();
    }
  });
});
