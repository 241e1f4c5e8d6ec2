import * as assert from 'node:assert/strict';
import {
  RunningSupportDeskBackend,
  startSupportDeskBackend,
  SupportDeskStore,
} from '../../examples/support-desk/backend';

describe('support desk backend', () => {
  let backend: RunningSupportDeskBackend;
  const fixedNow = new Date('2025-06-01T12:00:00.000Z');
  const call = async (method: string, path: string, body?: unknown): Promise<[number, any]> => {
    const res = await fetch(`${backend.url}${path}`, {
      method,
      ...(body !== undefined
        ? {
            body: typeof body === 'string' ? body : JSON.stringify(body),
            headers: { 'content-type': 'application/json' },
          }
        : {}),
      signal: AbortSignal.timeout(5000),
    });
    return [res.status, await res.json()];
  };

  beforeEach(async () => {
    backend = await startSupportDeskBackend({ port: 0, store: new SupportDeskStore(() => fixedNow) });
  });
  afterEach(async () => {
    await backend.close();
  });

  it('listens on an ephemeral loopback port', () => {
    assert.match(backend.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(backend.port > 0);
  });

  it('answers GET /health', async () => {
    assert.deepEqual(await call('GET', '/health'), [200, { status: 'ok' }]);
  });

  it('returns a customer by id and 404 for an unknown id', async () => {
    const [status, customer] = await call('GET', '/customers/C-0002');
    assert.equal(status, 200);
    assert.equal(customer.name, 'Grace Hopper');
    assert.deepEqual(await call('GET', '/customers/C-9999'), [404, { error: 'customer C-9999 not found' }]);
  });

  it('searches tickets by text, status, priority, date and limit', async () => {
    const ids = async (q: string): Promise<string[]> =>
      (await call('GET', `/tickets?${q}`))[1].tickets.map((t: { id: string }) => t.id);
    assert.deepEqual(await ids(''), ['T-1003', 'T-1002', 'T-1001']);
    assert.deepEqual(await ids('query=invoice'), ['T-1002']);
    assert.deepEqual(await ids('status=open&priority=1'), ['T-1001']);
    assert.deepEqual(await ids('created_after=2025-02-01T00:00:00Z&limit=1'), ['T-1003']);
    assert.deepEqual(await call('GET', '/tickets?limit=ten'), [400, { error: 'limit: expected an integer' }]);
  });

  it('opens a ticket and finds it afterwards', async () => {
    const [status, ticket] = await call('POST', '/tickets', {
      subject: 'Broken export',
      body: 'CSV export is empty',
      priority: 2,
      tags: ['export'],
      customer: { name: 'Ada', email: 'ada@example.com', addresses: [{ street: 'a', city: 'b', zip_code: 10115 }] },
    });
    assert.equal(status, 201);
    assert.deepEqual(ticket, {
      id: 'T-1004',
      subject: 'Broken export',
      body: 'CSV export is empty',
      status: 'open',
      priority: 2,
      customer: { name: 'Ada', email: 'ada@example.com', addresses: [{ street: 'a', city: 'b', zip_code: 10115 }] },
      tags: ['export'],
      created_at: '2025-06-01T12:00:00.000Z',
    });
    assert.deepEqual((await call('GET', '/tickets/T-1004'))[1].subject, 'Broken export');
  });

  it('refuses a ticket without a body the way a real backend does', async () => {
    assert.deepEqual(await call('POST', '/tickets', { subject: 's', customer: { name: 'a', email: 'e' } }), [
      400,
      { error: 'body: required string' },
    ]);
    assert.deepEqual(await call('POST', '/tickets', '{nope'), [400, { error: 'request body is not valid JSON' }]);
  });

  it('merges team settings on PUT /settings/{team}', async () => {
    assert.deepEqual(await call('PUT', '/settings/billing', { settings: { sla_hours: 8 } }), [
      200,
      { team: 'billing', settings: { auto_assign: true, sla_hours: 8 } },
    ]);
    assert.deepEqual(await call('PUT', '/settings/ops', { settings: 'x' }), [
      400,
      { error: 'settings: expected an object' },
    ]);
  });

  it('creates tasks from the forwarded description field', async () => {
    assert.deepEqual(
      await call('POST', '/tasks', { title: 'Call back', description: 'Call Ada about the refund', due: '2025-06-02' }),
      [
        201,
        {
          id: 'K-0001',
          title: 'Call back',
          description: 'Call Ada about the refund',
          due: '2025-06-02',
          created_at: '2025-06-01T12:00:00.000Z',
        },
      ],
    );
    assert.deepEqual(await call('POST', '/tasks', { title: 'x', prompt: 'y' }), [
      400,
      { error: 'description: required string' },
    ]);
  });

  it('answers 404 for an unknown route and 405 for a wrong method', async () => {
    assert.deepEqual(await call('GET', '/nope'), [404, { error: 'no route for /nope' }]);
    assert.deepEqual(await call('DELETE', '/health'), [405, { error: 'method DELETE not allowed on /health' }]);
  });

  it('answers 400 for a path parameter with broken percent-encoding', async () => {
    assert.deepEqual(await call('GET', '/customers/C-%E0%A4'), [
      400,
      { error: 'customer_id: invalid percent-encoding in the path' },
    ]);
  });
});
