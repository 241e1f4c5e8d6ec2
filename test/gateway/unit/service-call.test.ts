import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { RunningGateway } from '../../../src/gateway';
import { config, initialize, rawCall, start, startFakeService, tool, TOKEN, type FakeService } from './support';

const OPEN = { type: 'object' };

describe('service calls', () => {
  let service: FakeService;
  let gateway: RunningGateway;
  let session: string;
  let refusedPort: number;

  before(async () => {
    service = await startFakeService();
    // A port nobody listens on: bind, read the port, close.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    refusedPort = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    const o = service.origin;
    gateway = await start(config([
      tool(o, 'get_customer', '/customers/{customer_id}', OPEN),
      tool(o, 'search', '/tickets?source=agent', OPEN),
      tool(o, 'update_settings', '/settings/{team}', OPEN, { backend: { url: `${o}/settings/{team}`, method: 'PUT' } }),
      tool(o, 'create_task', '/tasks', {
        type: 'object',
        properties: { title: { type: 'string' }, prompt: { type: 'string' } },
        required: ['title', 'prompt'],
        additionalProperties: false,
      }, {
        backend: { url: `${o}/tasks`, method: 'POST' },
        aliases: { description: 'prompt' },
        forward_as: { prompt: 'description' },
      }),
      tool(o, 'slow', '/slow', OPEN, { backend: { url: `${o}/slow`, method: 'GET', timeout_ms: 100 } }),
      tool(o, 'down', '/down', OPEN, { backend: { url: `http://127.0.0.1:${refusedPort}/down`, method: 'GET' } }),
    ], { max_response_bytes: 1024 }));
    session = await initialize(gateway.url);
  });
  after(async () => {
    await gateway.close();
    await service.close();
  });
  beforeEach(() => {
    service.respond = (req) => ({ body: JSON.stringify({ ok: true, url: req.url }) });
  });

  const call = (name: string, args?: unknown): Promise<any> => rawCall(gateway.url, session, name, args);
  const last = () => service.received.at(-1)!;

  it('fills a URL placeholder URL-encoded and sends the rest as the query of a GET', async () => {
    await call('get_customer', { customer_id: 'C/1 2', expand: true, limit: 5 });
    assert.equal(last().method, 'GET');
    assert.equal(last().url, '/customers/C%2F1%202?expand=true&limit=5');
    assert.equal(last().body, '');
  });

  it('sends arrays as repeated keys and objects as JSON text, after an existing query', async () => {
    await call('search', { tag: ['a', 'b c'], filter: { status: 'open' } });
    assert.equal(last().url, `/tickets?source=agent&tag=a&tag=b%20c&filter=${encodeURIComponent('{"status":"open"}')}`);
  });

  it('sends the rest as a JSON body for PUT, the placeholder removed', async () => {
    await call('update_settings', { team: 'blue', settings: { theme: 'dark' } });
    assert.equal(last().method, 'PUT');
    assert.equal(last().url, '/settings/blue');
    assert.equal(last().headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(last().body), { settings: { theme: 'dark' } });
  });

  it('normalizes an alias and forwards the parameter under its forward_as name', async () => {
    await call('create_task', { title: 'T', description: 'do it' });
    assert.deepEqual(JSON.parse(last().body), { title: 'T', description: 'do it' });
    await call('create_task', { title: 'T', prompt: 'again' });
    assert.deepEqual(JSON.parse(last().body), { title: 'T', description: 'again' });
  });

  it('refuses a parameter sent together with its alias', async () => {
    const before = service.received.length;
    const res = await call('create_task', { title: 'T', prompt: 'a', description: 'b' });
    assert.equal(res.error.code, -32602);
    assert.equal(res.error.message, 'Conflicting parameters: `prompt` and `description`');
    assert.equal(service.received.length, before);
  });

  it('never forwards the caller\'s Authorization header or session', async () => {
    await call('get_customer', { customer_id: 'C-1' });
    assert.equal(last().headers.authorization, undefined);
    assert.equal(last().headers['mcp-session-id'], undefined);
    assert.ok(!JSON.stringify(last().headers).includes(TOKEN));
  });

  it('turns a 2xx JSON object into structuredContent plus a text content', async () => {
    service.respond = () => ({ body: '{"id":"C-1"}' });
    assert.deepEqual((await call('get_customer', { customer_id: 'C-1' })).result, {
      content: [{ type: 'text', text: '{"id":"C-1"}' }],
      structuredContent: { id: 'C-1' },
    });
  });

  it('turns a 2xx JSON array into a text content only', async () => {
    service.respond = () => ({ body: '[1,2]' });
    assert.deepEqual((await call('get_customer', { customer_id: 'C-1' })).result, { content: [{ type: 'text', text: '[1,2]' }] });
  });

  it('turns a 2xx plain text response into a text content', async () => {
    service.respond = () => ({ type: 'text/plain', body: 'pong' });
    assert.deepEqual((await call('get_customer', { customer_id: 'C-1' })).result, { content: [{ type: 'text', text: 'pong' }] });
  });

  it('reports a response declared JSON that does not parse', async () => {
    service.respond = () => ({ body: '{oops' });
    assert.deepEqual((await call('get_customer', { customer_id: 'C-1' })).result, {
      isError: true,
      content: [{ type: 'text', text: 'Service error: invalid JSON response' }],
    });
  });

  it('reports a non-2xx status', async () => {
    service.respond = () => ({ status: 500, body: '{"secret":"stack trace"}' });
    assert.deepEqual((await call('get_customer', { customer_id: 'C-1' })).result, {
      isError: true,
      content: [{ type: 'text', text: 'Service error: HTTP 500' }],
    });
  });

  it('reports a timeout after the tool\'s timeout_ms', async () => {
    service.respond = () => ({ delayMs: 1000, body: '{}' });
    assert.deepEqual((await call('slow', {})).result, {
      isError: true,
      content: [{ type: 'text', text: 'Service timed out after 100 ms' }],
    });
  });

  it('reports a refused connection', async () => {
    assert.deepEqual((await call('down', {})).result, {
      isError: true,
      content: [{ type: 'text', text: 'Service unavailable: connection refused' }],
    });
  });

  it('reads the Content-Type whatever its case and parameters', async () => {
    service.respond = () => ({ type: 'Application/JSON; charset=utf-8', body: '{"id":"C-1"}' });
    assert.deepEqual((await call('get_customer', { customer_id: 'C-1' })).result.structuredContent, { id: 'C-1' });
  });

  it('keeps serving calls after non-2xx responses, small or large', async () => {
    service.respond = () => ({ status: 404, body: '{"error":"no such customer"}' });
    assert.equal((await call('get_customer', { customer_id: 'C-1' })).result.content[0].text, 'Service error: HTTP 404');
    service.respond = () => ({ status: 500, body: 'x'.repeat(300_000) });
    assert.equal((await call('get_customer', { customer_id: 'C-1' })).result.content[0].text, 'Service error: HTTP 500');
    service.respond = () => ({ body: '{"id":"C-2"}' });
    assert.deepEqual((await call('get_customer', { customer_id: 'C-2' })).result.structuredContent, { id: 'C-2' });
  });

  it('reports a response whose Content-Length is over max_response_bytes', async () => {
    const body = JSON.stringify({ data: 'x'.repeat(2000) });
    service.respond = () => ({ body, headers: { 'content-length': String(Buffer.byteLength(body)) } });
    assert.deepEqual((await call('get_customer', { customer_id: 'C-1' })).result, {
      isError: true,
      content: [{ type: 'text', text: 'Service response too large' }],
    });
    service.respond = () => ({ body: '{"id":"C-3"}' });
    assert.deepEqual((await call('get_customer', { customer_id: 'C-3' })).result.structuredContent, { id: 'C-3' });
  });

  it('reports a streamed response over max_response_bytes', async () => {
    service.respond = () => ({ body: JSON.stringify({ data: 'x'.repeat(2000) }) });
    assert.deepEqual((await call('get_customer', { customer_id: 'C-1' })).result, {
      isError: true,
      content: [{ type: 'text', text: 'Service response too large' }],
    });
  });
});
