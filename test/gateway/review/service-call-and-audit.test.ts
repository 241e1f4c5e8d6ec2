/**
 * Round-2 SPEC review: service call details of SPEC §4 the other tests leave out (DELETE queries, encoding of
 * placeholders, `forwardAs` feeding a placeholder, which caller headers reach a service) and the audit record's
 * exact fields for each outcome, read from the file, with the official SDK client as the caller.
 */
import * as assert from 'node:assert/strict';
import { AUDIT_RECORD_KEYS, readAuditLog, readAuditText } from '../../helpers/audit-log';
import { type EchoResponse, startBackend, type TestBackend } from '../../helpers/backend';
import { gatewayConfig, objectSchema, tool } from '../../helpers/config';
import { type InProcessGateway, startInProcessGateway } from '../../helpers/in-process-gateway';
import { connectSdkClient, type McpSession, openSession, type SdkConnection } from '../../helpers/mcp';
import { makeToken } from '../../helpers/tokens';

describe('SPEC review: service call details and the audit record', function () {
  this.timeout(20_000);
  const bot = makeToken('audit-bot');
  let backend: TestBackend;
  let gw: InProcessGateway;
  let session: McpSession;

  const tools = (url: string) => [
    tool('delete_tag', `${url}/tags/{tag}`, {
      method: 'DELETE',
      inputSchema: objectSchema(
        { tag: { type: 'string' }, ids: { type: 'array', items: { type: 'integer' } }, filter: { type: 'object' }, force: { type: 'boolean' } },
        ['tag'],
      ),
    }),
    tool('update_customer', `${url}/customers/{customer_id}/profile`, {
      method: 'PATCH',
      inputSchema: objectSchema({ customer: { type: 'string' }, email: { type: 'string' } }, ['customer']),
      forwardAs: { customer: 'customer_id' },
    }),
    tool('search', `${url}/search?v=1`, { inputSchema: objectSchema({ q: { type: 'string' } }, ['q']) }),
    tool('failing', `${url}/status/500`, { inputSchema: objectSchema({ note: { type: 'string' } }) }),
  ];

  const echo = (text: string): EchoResponse => JSON.parse(JSON.parse(text).result.content[0].text) as EchoResponse;

  before(async () => {
    backend = await startBackend();
    gw = await startInProcessGateway(gatewayConfig({ name: 'review-gw', tokens: [bot], tools: tools(backend.url) }));
    session = await openSession(gw.url, { token: bot.token });
  });

  after(async () => {
    await gw?.close();
    await backend?.close();
  });

  describe('the service request', () => {
    it('DELETE: the placeholder in the path, the rest as the query (arrays repeated, objects as JSON text), no body', async () => {
      const res = await session.callTool('delete_tag', { tag: 'a b/c?d#e', ids: [3, 1], filter: { k: [1] }, force: true });
      const got = echo(res.text);
      assert.equal(got.method, 'DELETE');
      assert.equal(got.path, '/tags/a%20b%2Fc%3Fd%23e');
      assert.deepEqual(got.query, { ids: ['3', '1'], filter: '{"k":[1]}', force: 'true' });
      assert.equal(got.body, null);
      assert.equal(got.headers['content-type'], undefined);
    });

    it('PATCH: forwardAs renames first, so the renamed field fills the placeholder and leaves the JSON body', async () => {
      const res = await session.callTool('update_customer', { customer: 'C-42', email: 'x@example.com' });
      const got = echo(res.text);
      assert.equal(got.method, 'PATCH');
      assert.equal(got.path, '/customers/C-42/profile');
      assert.deepEqual(got.body, { email: 'x@example.com' });
      assert.equal(got.headers['content-type'], 'application/json');
    });

    it('GET: appends the query to a URL that already has one', async () => {
      const got = echo((await session.callTool('search', { q: 'a&b=c' })).text);
      assert.deepEqual(got.query, { v: '1', q: 'a&b=c' });
    });

    it('sends none of the caller\'s headers: no Authorization, Cookie, Mcp-Session-Id or forwarding headers', async () => {
      const res = await session.callTool('search', { q: 'h' }, {
        headers: { cookie: 'sid=secret-cookie', 'x-forwarded-for': '10.0.0.1', 'x-api-key': 'secret-key' },
      });
      const headers = echo(res.text).headers;
      for (const name of ['authorization', 'cookie', 'mcp-session-id', 'mcp-protocol-version', 'x-forwarded-for', 'x-api-key']) {
        assert.equal(headers[name], undefined, `${name} reached the service`);
      }
    });
  });

  describe('the audit record', () => {
    let sdk: SdkConnection;
    const canary = 'canary-audit-7f3e';
    let records: Record<string, unknown>[];

    before(async () => {
      sdk = await connectSdkClient(gw.url, bot.token, { name: 'review-sdk', version: '9.9.9' });
      await sdk.client.callTool({ name: 'search', arguments: { q: canary } });
      await sdk.client.callTool({ name: 'failing', arguments: { note: canary } });
      await sdk.client.callTool({ name: 'search', arguments: { q: canary, extra: canary } }).catch(() => undefined);
      // The audit log is written after the answers: select this client's records by its session.
      const deadline = Date.now() + 3_000;
      do {
        records = readAuditLog(gw.auditLogPath).filter((r) => r.session === sdk.transport.sessionId) as Record<string, unknown>[];
        if (records.length >= 3) break;
        await new Promise((r) => setTimeout(r, 25));
      } while (Date.now() < deadline);
    });
    after(async () => { await sdk?.close(); });

    it('has exactly the SPEC fields, with the session, principal and client of the caller', () => {
      assert.equal(records.length, 3);
      for (const r of records) {
        assert.deepEqual(Object.keys(r).sort(), [...AUDIT_RECORD_KEYS].sort());
        assert.equal(r.gateway, 'review-gw');
        assert.equal(r.session, sdk.transport.sessionId);
        assert.equal(r.principal, 'audit-bot');
        assert.deepEqual(r.client, { name: 'review-sdk', version: '9.9.9' });
        assert.equal(new Date(r.ts as string).toISOString(), r.ts);
        assert.ok(typeof r.duration_ms === 'number' && r.duration_ms >= 0);
      }
    });

    it('records ok, error and refused outcomes with their error {code, message}', () => {
      assert.deepEqual(records.map((r) => [r.tool, r.outcome, r.error]), [
        ['search', 'ok', null],
        ['failing', 'error', { code: 'SERVICE_HTTP_STATUS', message: 'Service error: HTTP 500' }],
        ['search', 'refused', { code: 'INVALID_ARGS', message: 'Unknown parameter: `extra`' }],
      ]);
    });

    it('holds no argument value, and neither do the log records', () => {
      assert.ok(!readAuditText(gw.auditLogPath).includes(canary), 'an argument value is in the audit log');
      assert.ok(!JSON.stringify(gw.logs).includes(canary), 'an argument value is in the logs');
    });
  });
});
