/**
 * Over the wire: a tool generated from an OpenAPI operation (path, query and nested body parameters) served by a
 * real gateway, in front of a real backend that records what it receives.
 */
import * as assert from 'node:assert/strict';
import { Gateway, OpenApiServices } from '../../constructs';
import { startBackend, type TestBackend } from '../helpers/backend';
import { startInProcessGateway, type InProcessGateway } from '../helpers/in-process-gateway';
import { openSession, type McpSession } from '../helpers/mcp';
import { configOf, newStack, synth } from '../constructs/synth';
import { documentFile, TICKETS } from './fixtures';

describe('OpenApiServices over the wire', () => {
  let backend: TestBackend;
  let gateway: InProcessGateway;
  let session: McpSession;
  /** What the backend answers next (201 with this body). */
  let answer: unknown = { id: 'T-1', title: 'Printer on fire' };

  before(async () => {
    backend = await startBackend({ respond: () => ({ status: 201, body: JSON.stringify(answer) }) });
    const stack = newStack();
    const api = new OpenApiServices(stack, 'crm', { document: documentFile(TICKETS), baseUrl: backend.url });
    new Gateway(stack, 'support', { services: [...api.services], auth: 'none' });
    gateway = await startInProcessGateway(configOf(synth(stack), 'support'));
    session = await openSession(gateway.url);
  });

  afterEach(() => {
    answer = { id: 'T-1', title: 'Printer on fire' };
  });

  after(async () => {
    await gateway?.close();
    await backend?.close();
  });

  const good = {
    customerId: 'C-0042',
    notify: true,
    tags: ['printer', 'urgent'],
    title: 'Printer on fire',
    contact: { email: 'ada@example.com' },
    lines: [{ sku: 'P-1', qty: 2 }],
  };

  it('refuses a bad call with the exact message and path; the backend never sees it', async () => {
    const before = backend.requests;
    const bad = { ...good, contact: { phone: '123' }, lines: [{ sku: 'P-1', qty: 0 }] };
    // a client of 2025-11-25 (the default channel, auto): an isError result with the message
    const latest = await session.callTool('createTicket', bad);
    assert.equal(latest.message?.result?.isError, true, latest.text);
    assert.deepEqual(latest.message?.result?.content, [
      {
        type: 'text',
        text: 'Missing required parameter: `contact.email`; Invalid value for `lines[0].qty`: expected >= 1',
      },
    ]);
    // a client of 2025-06-18: the JSON-RPC error, with each violation's path
    const older = await openSession(gateway.url, { protocolVersion: '2025-06-18' });
    const res = await older.callTool('createTicket', bad);
    assert.equal(res.message?.error?.code, -32602, res.text);
    assert.equal(
      res.message?.error?.message,
      'Missing required parameter: `contact.email`; Invalid value for `lines[0].qty`: expected >= 1',
    );
    assert.deepEqual(
      (res.message?.error?.data as { violations: { path: string; rule: string }[] }).violations.map((v) => [
        v.path,
        v.rule,
      ]),
      [
        ['contact.email', 'required'],
        ['lines[0].qty', 'minimum'],
      ],
    );
    const unknown = await older.callTool('createTicket', { ...good, contact: { email: 'a@b.c', fax: '1' } });
    assert.equal(unknown.message?.error?.message, 'Unknown parameter: `contact.fax`');
    assert.equal(backend.requests, before);
  });

  it('forwards a good call to the right URL, query and body', async () => {
    const res = await session.callTool('createTicket', good);
    assert.equal(res.message?.result?.isError, undefined, res.text);
    assert.deepEqual(res.message?.result?.structuredContent, { id: 'T-1', title: 'Printer on fire' });
    const request = backend.received.at(-1)!;
    assert.equal(request.method, 'POST');
    assert.equal(request.url, '/customers/C-0042/tickets?notify=true&tags=printer&tags=urgent');
    assert.equal(request.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(request.body), {
      title: 'Printer on fire',
      contact: { email: 'ada@example.com' },
      lines: [{ sku: 'P-1', qty: 2 }],
    });
  });

  it("advertises the 201 schema as the tool's output (writeOnly fields left out, nullable as a type union)", async () => {
    const list = await session.request('tools/list');
    const tool = (list.message?.result?.tools as { name: string; outputSchema?: unknown }[]).find(
      (t) => t.name === 'createTicket',
    );
    assert.deepEqual(tool?.outputSchema, {
      type: 'object',
      properties: { id: { type: 'string' }, title: { type: 'string' }, priority: { type: ['integer', 'null'] } },
      required: ['id', 'title'],
    });
  });

  it("checks the response against the operation's 2xx schema: a non-conforming body is refused", async () => {
    answer = { id: 7, title: 'Printer on fire' };
    const wrongType = await session.callTool('createTicket', good);
    assert.equal(wrongType.message?.error, undefined, wrongType.text);
    assert.equal(wrongType.message?.result?.isError, true, wrongType.text);
    assert.deepEqual(wrongType.message?.result?.content, [
      { type: 'text', text: 'Service returned an invalid response: Invalid type for `id`: expected string' },
    ]);
    assert.equal(wrongType.message?.result?.structuredContent, undefined);
    // The refusal names every violation (a missing required field among them), never a value.
    answer = { priority: 'high', note: 'a field the document does not declare' };
    const missing = await session.callTool('createTicket', good);
    assert.equal(
      (missing.message?.result?.content as { text: string }[])[0].text,
      'Service returned an invalid response: Missing required parameter: `id`; Missing required parameter: `title`; Invalid type for `priority`: expected integer or null',
    );
    assert.ok(!missing.text.includes('high'), missing.text);
    // The document's output is open (no additionalProperties: false): an undocumented field passes, null where
    // the document says nullable passes.
    answer = { id: 'T-2', title: 'Printer on fire', priority: null, created_by: 'crm' };
    const conforming = await session.callTool('createTicket', good);
    assert.equal(conforming.message?.result?.isError, undefined, conforming.text);
    assert.deepEqual(conforming.message?.result?.structuredContent, answer);
  });
});
