/**
 * SPEC §3 "Error channel": the exact shapes of refusals on `protocol`, `tool_result` and `auto` (per negotiated
 * protocol version), what `validate_input: false` still refuses and what it forwards unchecked, and fail-closed
 * tools whose schema cannot compile. In-process gateways (`startGateway`) over real sockets.
 */
import * as assert from 'node:assert/strict';
import type { ToolConfig } from '../../../src/contract/gateway-config';
import { type AuditRecord, readAuditLog, readAuditText } from '../../helpers/audit-log';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { gatewayConfig, objectSchema, type SettingsOverrides, supportDeskTools, tool } from '../../helpers/config';
import { type InProcessGateway, startInProcessGateway } from '../../helpers/in-process-gateway';
import { type McpSession, openSession } from '../../helpers/mcp';
import { makeToken } from '../../helpers/tokens';

const MISSING_CUSTOMER_ID = 'Missing required parameter: `customer_id`';
const MISSING_CUSTOMER_ID_VIOLATIONS = [{ path: 'customer_id', rule: 'required', message: MISSING_CUSTOMER_ID }];

describe('gateway e2e: error channels', function () {
  this.timeout(20_000);
  const bot = makeToken('support-bot');
  let backend: TestBackend;
  const gateways: InProcessGateway[] = [];

  /** The support-desk tools plus `rename` (alias `old_name` → `name`, forwarded as `full_name`). */
  const tools = (): ToolConfig[] => [
    ...supportDeskTools(backend.url),
    tool('rename', `${backend.url}/people`, {
      method: 'POST',
      inputSchema: objectSchema({ name: { type: 'string', minLength: 3 } }, ['name']),
      aliases: { old_name: 'name' },
      forwardAs: { name: 'full_name' },
    }),
  ];

  async function start(settings: SettingsOverrides, extraTools: ToolConfig[] = []): Promise<InProcessGateway> {
    const gw = await startInProcessGateway(gatewayConfig({ tokens: [bot], tools: [...tools(), ...extraTools], settings }));
    gateways.push(gw);
    return gw;
  }

  before(async () => {
    backend = await startBackend();
  });

  after(async () => {
    await Promise.all(gateways.map((g) => g.close()));
    await backend?.close();
  });

  describe('protocol (the default)', () => {
    let gw: InProcessGateway;
    let session: McpSession;
    before(async () => {
      gw = await start({});
      session = await openSession(gw.url, { token: bot.token, clientInfo: { name: 'channel-test', version: '2.3.4' } });
    });

    it('refuses a missing required field with -32602, the exact message and data.violations', async () => {
      const res = await session.callTool('get_customer', {});
      assert.equal(res.status, 200);
      assert.deepEqual(res.message?.error, {
        code: -32602,
        message: MISSING_CUSTOMER_ID,
        data: { code: 'INVALID_ARGS', violations: MISSING_CUSTOMER_ID_VIOLATIONS },
      });
    });

    it('names a nested field with its full path', async () => {
      const res = await session.callTool('create_ticket', {
        subject: 'printer',
        customer: { name: 'Ada', addresses: [{ zip_code: 1 }, { zip_code: '75001' }] },
      });
      const message = 'Invalid type for `customer.addresses[1].zip_code`: expected integer';
      assert.deepEqual(res.message?.error, {
        code: -32602,
        message,
        data: { code: 'INVALID_ARGS', violations: [{ path: 'customer.addresses[1].zip_code', rule: 'type', message }] },
      });
    });

    it('joins several violations with "; " in schema walk order, unknown fields last', async () => {
      const res = await session.callTool('get_customer', { customer_id: 5, extra: true, limit: 0 });
      const violations = [
        { path: 'customer_id', rule: 'type', message: 'Invalid type for `customer_id`: expected string' },
        { path: 'limit', rule: 'minimum', message: 'Invalid value for `limit`: expected >= 1' },
        { path: 'extra', rule: 'additionalProperties', message: 'Unknown parameter: `extra`' },
      ];
      assert.deepEqual(res.message?.error, {
        code: -32602,
        message: violations.map((v) => v.message).join('; '),
        data: { code: 'INVALID_ARGS', violations },
      });
    });

    it('never puts an argument value in the message', async () => {
      const canary = 'canary-value-7f3a';
      const res = await session.callTool('get_customer', { customer_id: canary });
      assert.equal(res.message?.error?.message, 'Invalid value for `customer_id`: expected to match pattern ^C-[0-9]{4}$');
      assert.ok(!res.text.includes(canary), res.text);
    });

    it('refuses non-object arguments with "Invalid arguments: expected an object"', async () => {
      for (const args of [[1], null, 'C-0001', 3]) {
        const res = await session.callTool('get_customer', args);
        assert.equal(res.message?.error?.code, -32602, `arguments ${JSON.stringify(args)}: ${res.text}`);
        assert.equal(res.message?.error?.message, 'Invalid arguments: expected an object');
      }
    });

    it('accepts omitted arguments for a parameterless tool and refuses any field', async () => {
      const ok = await session.callTool('health');
      assert.equal(ok.message?.result?.isError, undefined, ok.text);
      assert.equal(ok.message?.result?.structuredContent?.path, '/health');
      const refused = await session.callTool('health', { verbose: true });
      assert.equal(refused.message?.error?.message, 'Unknown parameter: `verbose`');
    });

    it('refuses a parameter sent together with its alias', async () => {
      const res = await session.callTool('create_task', { title: 't', prompt: 'p', description: 'd' });
      assert.equal(res.message?.error?.code, -32602);
      assert.equal(res.message?.error?.message, 'Conflicting parameters: `prompt` and `description`');
    });

    it('forwards a valid call: placeholders in the path, the rest as the query, no Authorization header', async () => {
      const res = await session.callTool('get_customer', { customer_id: 'C-0042', query: 'a b&c', limit: 5 });
      const result = res.message?.result;
      assert.equal(result?.isError, undefined, res.text);
      assert.equal(result.structuredContent.method, 'GET');
      assert.equal(result.structuredContent.path, '/customers/C-0042');
      assert.deepEqual(result.structuredContent.query, { query: 'a b&c', limit: '5' });
      assert.equal(result.structuredContent.headers.authorization, undefined);
      assert.equal(result.content[0].type, 'text');
      assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
    });

    it('normalizes an alias and applies forwardAs before the backend call', async () => {
      const res = await session.callTool('rename', { old_name: 'Grace' });
      assert.deepEqual(res.message?.result?.structuredContent?.body, { full_name: 'Grace' }, res.text);
      const viaName = await session.callTool('create_task', { title: 't', description: 'via alias' });
      assert.deepEqual(viaName.message?.result?.structuredContent?.body, { title: 't', description: 'via alias' });
    });

    it('validates the alias value under the parameter\'s name', async () => {
      const res = await session.callTool('rename', { old_name: 'Al' });
      assert.equal(res.message?.error?.message, 'Invalid value for `name`: expected at least 3 characters');
    });

    it('writes an audit record for a refusal: outcome refused, the message, no argument values', async () => {
      const canary = 'canary-audit-91c2';
      await session.callTool('get_customer', { customer_id: 'C-0001', query: canary, limit: 1000 });
      // Wait for this record itself: counting lines could be satisfied by an earlier test's record landing late
      // (records are flushed in batches after the answer).
      const isIt = (r: AuditRecord) => r.outcome === 'refused' && r.error?.message === 'Invalid value for `limit`: expected <= 100';
      const deadline = Date.now() + 5_000;
      let records = readAuditLog(gw.auditLogPath);
      while (!records.some(isIt) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
        records = readAuditLog(gw.auditLogPath);
      }
      const refusal = records.find(isIt);
      assert.ok(refusal, JSON.stringify(records));
      assert.equal(refusal.tool, 'get_customer');
      assert.equal(refusal.gateway, 'test-gateway');
      assert.equal(refusal.principal, 'support-bot');
      assert.equal(refusal.session, session.sessionId);
      assert.deepEqual(refusal.client, { name: 'channel-test', version: '2.3.4' });
      assert.equal(typeof refusal.duration_ms, 'number');
      assert.ok(!Number.isNaN(Date.parse(refusal.ts ?? '')), `ts ${refusal.ts}`);
      assert.ok(!readAuditText(gw.auditLogPath).includes(canary));
    });
  });

  describe('tool_result', () => {
    let session: McpSession;
    before(async () => {
      const gw = await start({ validation_errors: 'tool_result' });
      session = await openSession(gw.url, { token: bot.token });
    });

    it('answers a refusal as a result with isError, the message as text and structuredContent.violations', async () => {
      const res = await session.callTool('get_customer', {});
      assert.equal(res.message?.error, undefined, res.text);
      assert.deepEqual(res.message?.result, {
        isError: true,
        content: [{ type: 'text', text: MISSING_CUSTOMER_ID }],
        structuredContent: { violations: MISSING_CUSTOMER_ID_VIOLATIONS },
      });
    });

    it('still answers an unknown tool with JSON-RPC -32602', async () => {
      const res = await session.callTool('nope', {});
      assert.equal(res.message?.result, undefined);
      assert.equal(res.message?.error?.code, -32602);
      assert.equal(res.message?.error?.message, 'Unknown tool: `nope`');
    });
  });

  describe('auto', () => {
    let gw: InProcessGateway;
    before(async () => {
      gw = await start({ validation_errors: 'auto' });
    });

    it('uses tool_result for a session that negotiated 2025-11-25', async () => {
      const session = await openSession(gw.url, { token: bot.token, protocolVersion: '2025-11-25' });
      assert.equal(session.protocolVersion, '2025-11-25');
      const res = await session.callTool('get_customer', {});
      assert.deepEqual(res.message?.result, {
        isError: true,
        content: [{ type: 'text', text: MISSING_CUSTOMER_ID }],
        structuredContent: { violations: MISSING_CUSTOMER_ID_VIOLATIONS },
      });
    });

    for (const version of ['2025-06-18', '2025-03-26']) {
      it(`uses protocol for a session that negotiated ${version}`, async () => {
        const session = await openSession(gw.url, { token: bot.token, protocolVersion: version });
        assert.equal(session.protocolVersion, version);
        const res = await session.callTool('get_customer', {});
        assert.equal(res.message?.result, undefined, res.text);
        assert.deepEqual(res.message?.error, {
          code: -32602,
          message: MISSING_CUSTOMER_ID,
          data: { code: 'INVALID_ARGS', violations: MISSING_CUSTOMER_ID_VIOLATIONS },
        });
      });
    }

    it('still answers an unknown tool with JSON-RPC -32602 on a 2025-11-25 session', async () => {
      const session = await openSession(gw.url, { token: bot.token, protocolVersion: '2025-11-25' });
      const res = await session.callTool('ghost', {});
      assert.equal(res.message?.error?.code, -32602);
      assert.equal(res.message?.error?.message, 'Unknown tool: `ghost`');
    });
  });

  describe('validate_input: false', () => {
    let session: McpSession;
    before(async () => {
      const gw = await start({ validate_input: false });
      session = await openSession(gw.url, { token: bot.token });
    });

    it('still refuses an unknown tool', async () => {
      const res = await session.callTool('x', {});
      assert.equal(res.message?.error?.code, -32602);
      assert.equal(res.message?.error?.message, 'Unknown tool: `x`');
    });

    it('still refuses non-object arguments', async () => {
      const backendBefore = backend.requests;
      const res = await session.callTool('get_customer', ['C-0001']);
      assert.equal(res.message?.error?.code, -32602, res.text);
      assert.equal(res.message?.error?.message, 'Invalid arguments: expected an object');
      assert.equal(backend.requests, backendBefore);
    });

    it('still refuses a parameter sent together with its alias', async () => {
      const backendBefore = backend.requests;
      const res = await session.callTool('create_task', { title: 't', prompt: 'p', description: 'd' });
      assert.equal(res.message?.error?.code, -32602, res.text);
      assert.equal(res.message?.error?.message, 'Conflicting parameters: `prompt` and `description`');
      assert.equal(backend.requests, backendBefore);
    });

    it('forwards an invalid call unchecked', async () => {
      const backendBefore = backend.requests;
      const res = await session.callTool('get_customer', { customer_id: 42, limit: 0, extra: 'x' });
      assert.equal(res.message?.error, undefined, res.text);
      assert.equal(backend.requests, backendBefore + 1);
      assert.equal(res.message?.result?.structuredContent?.path, '/customers/42');
      assert.deepEqual(res.message?.result?.structuredContent?.query, { limit: '0', extra: 'x' });
    });

    it('still applies aliases and forwardAs', async () => {
      const res = await session.callTool('rename', { old_name: 'Al' });
      assert.deepEqual(res.message?.result?.structuredContent?.body, { full_name: 'Al' }, res.text);
    });
  });

  describe('a tool whose schema cannot compile', () => {
    let session: McpSession;
    before(async () => {
      const broken = tool('broken', `${backend.url}/broken`, {
        inputSchema: { type: 'object', properties: { x: { type: 'no-such-type' } }, additionalProperties: false },
      });
      const gw = await start({}, [broken]);
      session = await openSession(gw.url, { token: bot.token });
    });

    it('fails closed with -32603 "Tool unavailable: `broken`" and never calls the backend', async () => {
      const backendBefore = backend.requests;
      const res = await session.callTool('broken', { x: 1 });
      assert.equal(res.message?.error?.code, -32603, res.text);
      assert.equal(res.message?.error?.message, 'Tool unavailable: `broken`');
      assert.equal(backend.requests, backendBefore);
    });

    it('logs the defect naming the tool', () => {
      assert.ok(gateways[gateways.length - 1].logs.some((l) => l.level === 'error' && l.tool === 'broken'), JSON.stringify(gateways[gateways.length - 1].logs));
    });

    it('keeps the other tools working', async () => {
      const res = await session.callTool('get_customer', { customer_id: 'C-0007' });
      assert.equal(res.message?.result?.structuredContent?.path, '/customers/C-0007', res.text);
    });
  });
});
