import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningGateway } from '../../../../src/gateway';
import { startBackend, startFakeService, type FakeService, type TestBackend } from '../../../helpers/backend';
import { botConfig, gatewayConfig, tool } from '../../../helpers/config';
import { eventually } from '../../../helpers/eventually';
import { startSilentGateway } from '../../../helpers/in-process-gateway';
import { initializeSession, postJson, postMcp } from '../../../helpers/mcp';
import { makeToken, tokenEntry } from '../../../helpers/tokens';
import { sessionDigest } from '../../../../src/gateway/audit/session-digest';
import { tempDir } from '../../../helpers/temp-dir';

const SCHEMA = {
  type: 'object',
  properties: { customer_id: { type: 'string' } },
  required: ['customer_id'],
  additionalProperties: false,
};
const call = (id: number | string, args: unknown) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'get_customer', arguments: args },
});

describe('JSON-RPC batches (MCP 2025-03-26 only)', () => {
  let service: FakeService;
  let gateway: RunningGateway;
  let auditPath: string;
  let legacy: string;

  before(async () => {
    service = await startFakeService();
    auditPath = join(tempDir('batches-'), 'audit.jsonl');
    gateway = await startSilentGateway(
      botConfig([tool('get_customer', `${service.url}/customers/{customer_id}`, { inputSchema: SCHEMA })], {
        audit_log: { path: auditPath },
      }),
    );
    legacy = await initializeSession(gateway.url, '2025-03-26');
  });
  after(async () => {
    await gateway.close();
    await service.close();
  });

  const auditOf = (session: string) =>
    readFileSync(auditPath, 'utf8')
      .trim()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l))
      .filter((r) => r.session === sessionDigest(session));

  it('answers large results (worked out on the body thread, as bytes) in place in the batch, each whole', async () => {
    const rows = Array.from({ length: 12000 }, (_, i) => ({ id: i, note: `ü😀 "row" ${i}` }));
    const body = JSON.stringify({ rows });
    assert.ok(Buffer.byteLength(body) > 256 * 1024, 'past the size sent to the body thread');
    const session = await initializeSession(gateway.url, '2025-03-26'); // audit lines of its own
    const respond = service.respond;
    service.respond = () => ({ body });
    try {
      const res = await postJson(
        gateway.url,
        [
          call('a', { customer_id: 'C-1' }),
          { jsonrpc: '2.0', id: 2, method: 'ping' },
          call('b', { customer_id: 'C-2' }),
        ],
        { 'mcp-session-id': session },
      );
      assert.equal(res.status, 200);
      const [a, ping, b] = res.json;
      assert.deepEqual(ping, { jsonrpc: '2.0', id: 2, result: {} });
      for (const [answer, id] of [
        [a, 'a'],
        [b, 'b'],
      ]) {
        assert.equal(answer.id, id);
        assert.equal(answer.result.content[0].text, body);
        assert.deepEqual(answer.result.structuredContent, { rows });
      }
    } finally {
      service.respond = respond;
    }
  });

  it('answers each request of a batch in order, through the same steps as a single message', async () => {
    const before = service.received.length;
    const res = await postJson(
      gateway.url,
      [
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        call('c-ok', { customer_id: 'C-1' }),
        call(3, { customer_id: 7 }),
        { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'get_custmer', arguments: {} } },
        { jsonrpc: '2.0', id: 5, method: 'resources/list' },
        {
          jsonrpc: '2.0',
          id: 6,
          method: 'initialize',
          params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
        },
        { jsonrpc: '2.0', id: 99, result: {} },
        42,
        { jsonrpc: '2.0', id: 8, method: 'tools/call', params: [] },
        { jsonrpc: '2.0', id: 9, method: 'tools/list' },
      ],
      { 'mcp-session-id': legacy },
    );
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    const [ping, ok, invalid, unknown, method, init, notObject, badParams, list, ...rest] = res.json;
    assert.deepEqual(rest, []);
    assert.deepEqual(ping, { jsonrpc: '2.0', id: 1, result: {} });
    assert.equal(ok.id, 'c-ok');
    assert.deepEqual(ok.result.structuredContent, { method: 'GET', url: '/customers/C-1', body: '' });
    assert.deepEqual(invalid, {
      jsonrpc: '2.0',
      id: 3,
      error: {
        code: -32602,
        message: 'Invalid type for `customer_id`: expected string',
        data: {
          code: 'INVALID_ARGS',
          violations: [
            { path: 'customer_id', rule: 'type', message: 'Invalid type for `customer_id`: expected string' },
          ],
        },
      },
    });
    assert.deepEqual(unknown, {
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32602, message: 'Unknown tool: `get_custmer`' },
    });
    assert.deepEqual(method, {
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32601, message: 'Method not found: resources/list' },
    });
    assert.deepEqual(init, {
      jsonrpc: '2.0',
      id: 6,
      error: { code: -32600, message: 'Invalid Request: initialize must not be part of a batch' },
    });
    assert.deepEqual(notObject, {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: expected a JSON-RPC object' },
    });
    assert.deepEqual(badParams, {
      jsonrpc: '2.0',
      id: 8,
      error: { code: -32600, message: 'Invalid Request: params must be an object' },
    });
    assert.equal(list.id, 9);
    assert.deepEqual(
      list.result.tools.map((t: { name: string }) => t.name),
      ['get_customer'],
    );
    assert.equal(service.received.length, before + 1, 'only the valid call reached the service');
    // Every tools/call of the batch has its own audit line.
    await eventually(() => {
      assert.deepEqual(
        auditOf(legacy)
          .map((r) => [r.tool, r.outcome])
          .sort(),
        [
          ['get_custmer', 'refused'],
          ['get_customer', 'ok'],
          ['get_customer', 'refused'],
        ],
      );
    });
  });

  it('answers a batch of only notifications and responses with 202 and no body', async () => {
    const res = await postJson(
      gateway.url,
      [
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 1, result: {} },
      ],
      { 'mcp-session-id': legacy },
    );
    assert.equal(res.status, 202);
    assert.equal(res.json, undefined);
  });

  it('refuses an empty batch with -32600', async () => {
    const res = await postJson(gateway.url, [], { 'mcp-session-id': legacy });
    assert.equal(res.status, 400);
    assert.deepEqual(res.json, {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: empty batch' },
    });
  });

  it('refuses a batch of more than 100 messages with -32600, calling nothing', async () => {
    const before = service.received.length;
    const batch = Array.from({ length: 101 }, (_, i) => call(i, { customer_id: `C-${i}` }));
    const res = await postJson(gateway.url, batch, { 'mcp-session-id': legacy });
    assert.equal(res.status, 400);
    assert.deepEqual(res.json.error, {
      code: -32600,
      message: 'Invalid Request: a batch holds at most 100 messages (this one holds 101)',
    });
    assert.equal(service.received.length, before);
  });

  it('accepts a batch of exactly 100 messages', async () => {
    const batch = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }));
    const res = await postJson(gateway.url, batch, { 'mcp-session-id': legacy });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.json.map((m: { id: number }) => m.id),
      batch.map((m) => m.id),
    );
  });

  for (const version of ['2025-06-18', '2025-11-25']) {
    it(`refuses a batch on a session of protocol ${version} with -32600, calling nothing`, async () => {
      const session = await initializeSession(gateway.url, version);
      const before = service.received.length;
      const res = await postJson(gateway.url, [call(1, { customer_id: 'C-1' })], { 'mcp-session-id': session });
      assert.equal(res.status, 400);
      assert.deepEqual(res.json, {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: `Invalid Request: batch requests are not supported in protocol version ${version} (only in 2025-03-26)`,
        },
      });
      assert.equal(service.received.length, before);
    });
  }

  it('refuses a batch without a session with -32600, and one with an unknown session with 404', async () => {
    const none = await postJson(gateway.url, [{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    assert.equal(none.status, 400);
    assert.deepEqual(none.json.error, { code: -32600, message: 'Invalid Request: batch requests are not supported' });
    const unknown = await postJson(gateway.url, [{ jsonrpc: '2.0', id: 1, method: 'ping' }], {
      'mcp-session-id': 'f'.repeat(32),
    });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.error.message, 'Session not found');
  });
});

describe('JSON-RPC batches and scopes', () => {
  const READER = makeToken('reader');
  let backend: TestBackend;
  let gateway: RunningGateway;
  let session: string;

  before(async () => {
    backend = await startBackend();
    const config = gatewayConfig({
      tokens: [],
      tools: [
        { ...tool('read_customer', `${backend.url}/customers`), required_scopes: ['crm.read'] },
        {
          ...tool('delete_customer', `${backend.url}/customers`, { method: 'DELETE' }),
          required_scopes: ['crm.write'],
        },
      ],
      settings: { audit_log: false },
    });
    const auth = config.gateway.auth as { tokens: { id: string; sha256: string; scopes?: string[] }[] };
    auth.tokens.push({ ...tokenEntry(READER), scopes: ['crm.read'] });
    gateway = await startSilentGateway(config);
    session = await initializeSession(gateway.url, '2025-03-26', READER.token);
  });
  after(async () => {
    await gateway.close();
    await backend.close();
  });

  const scopedCall = (id: number, name: string) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: {} },
  });
  const post = (batch: unknown[]) =>
    postMcp(gateway.url, batch, { token: READER.token, headers: { 'mcp-session-id': session } });

  it('refuses the whole batch with 403 insufficient_scope before any call reaches its backend', async () => {
    const before = backend.requests;
    // the allowed calls come first and would run at once under Promise.all
    const res = await post([
      scopedCall(1, 'read_customer'),
      scopedCall(2, 'read_customer'),
      scopedCall(3, 'delete_customer'),
    ]);
    assert.equal(res.status, 403);
    assert.match(res.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
    assert.match(res.headers.get('www-authenticate') ?? '', /scope="crm\.write"/);
    assert.equal(JSON.parse(res.text).id, 3, 'the error echoes the refused call');
    assert.equal(backend.requests, before, 'no message of the batch ran');
  });

  it('runs a batch whose calls the scopes allow, and answers an unknown tool in its place', async () => {
    const before = backend.requests;
    const res = await post([scopedCall(1, 'read_customer'), scopedCall(2, 'no_such_tool')]);
    assert.equal(res.status, 200);
    const [ok, unknown] = JSON.parse(res.text);
    assert.equal(ok.result.isError ?? false, false, JSON.stringify(ok));
    assert.equal(unknown.error.message, 'Unknown tool: `no_such_tool`');
    assert.equal(backend.requests, before + 1);
  });
});
