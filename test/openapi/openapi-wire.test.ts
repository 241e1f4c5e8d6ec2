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

  before(async () => {
    backend = await startBackend({
      respond: () => ({ status: 201, body: JSON.stringify({ id: 'T-1', title: 'Printer on fire' }) }),
    });
    const stack = newStack();
    const api = new OpenApiServices(stack, 'crm', { document: documentFile(TICKETS), baseUrl: backend.url });
    new Gateway(stack, 'support', { services: [...api.services], auth: 'none' });
    gateway = await startInProcessGateway(configOf(synth(stack), 'support'));
    session = await openSession(gateway.url);
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
    const res = await session.callTool('createTicket', {
      ...good,
      contact: { phone: '123' },
      lines: [{ sku: 'P-1', qty: 0 }],
    });
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
    const unknown = await session.callTool('createTicket', { ...good, contact: { email: 'a@b.c', fax: '1' } });
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
});
