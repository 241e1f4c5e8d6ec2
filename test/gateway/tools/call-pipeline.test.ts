import * as assert from 'node:assert/strict';
import type { ToolConfig, ValidationErrorsChannel } from '../../../src/config';
import type { AuditRecord, RunningGateway } from '../../../src/gateway';
import { buildGatewayState } from '../../../src/gateway/state/gateway-state';
import { silentLogger } from '../../../src/gateway';
import { callTool, type Caller, type CallServices } from '../../../src/gateway/tools/call-pipeline';
import type { ServiceClient } from '../../../src/gateway/upstream';
import { readAuditText, waitForAuditRecords } from '../../helpers/audit-log';
import { startBackend, startFakeService, type FakeService, type TestBackend } from '../../helpers/backend';
import {
  botConfig,
  type BotSettings,
  gatewayConfig,
  objectSchema,
  type SettingsOverrides,
  supportDeskTools,
  tool,
} from '../../helpers/config';
import { sleep } from '../../helpers/eventually';
import { type InProcessGateway, startInProcessGateway, startSilentGateway } from '../../helpers/in-process-gateway';
import { connectClient, initializeSession, type McpSession, openSession, rawCall } from '../../helpers/mcp';
import { modernRequest, postModern } from '../../helpers/modern';
import { BOT, makeToken } from '../../helpers/tokens';
import { sessionDigest } from '../../../src/gateway/audit/session-digest';

describe('callTool on an unexpected fault', () => {
  const state = buildGatewayState(
    botConfig([
      tool('get_customer', 'http://127.0.0.1:9/customers/{customer_id}', {
        inputSchema: { type: 'object', properties: { customer_id: { type: 'string' } }, required: ['customer_id'] },
      }),
    ]),
    '127.0.0.1',
    silentLogger,
  );
  const session: Caller = {
    sessionId: 's-1',
    principal: 'bot',
    protocolVersion: '2025-06-18',
    client: { name: 'c', version: '1' },
  };

  function services(call: () => never, records: AuditRecord[], logs: unknown[][]): CallServices {
    return {
      services: { call } as unknown as ServiceClient,
      audit: { write: (r) => records.push(r), close: async () => undefined },
      concurrency: { active: 0, byPrincipal: new Map() },
      log: (...args) => logs.push(args),
    };
  }

  it('answers -32603 "Internal error", audits the call as error and logs the kind of fault without its text', async () => {
    const records: AuditRecord[] = [];
    const logs: unknown[][] = [];
    const ctx = services(
      () => {
        throw new URIError('URI malformed: C-secret');
      },
      records,
      logs,
    );
    const reply = await callTool(state, session, { name: 'get_customer', arguments: { customer_id: 'C-secret' } }, ctx);
    assert.deepEqual(reply, { error: { code: -32603, message: 'Internal error' } });
    assert.deepEqual(
      records.map((r) => [r.tool, r.outcome, r.error]),
      [['get_customer', 'error', { code: 'INTERNAL_ERROR', message: 'Internal error' }]],
    );
    assert.deepEqual(logs, [['error', 'internal error in tools/call', { tool: 'get_customer', error: 'URIError' }]]);
    assert.equal(ctx.concurrency.active, 0, 'the concurrency slot was not given back');
  });

  it('still answers when the audit sink itself throws', async () => {
    const logs: unknown[][] = [];
    const ctx: CallServices = {
      ...services(
        () => {
          throw new TypeError('boom');
        },
        [],
        logs,
      ),
      audit: {
        write: () => {
          throw new RangeError('disk');
        },
        close: async () => undefined,
      },
    };
    const reply = await callTool(state, session, { name: 'get_customer', arguments: { customer_id: 'C-1' } }, ctx);
    assert.deepEqual(reply, { error: { code: -32603, message: 'Internal error' } });
    assert.deepEqual(
      logs.map((l) => l[1]),
      ['internal error in tools/call', 'audit record not written'],
    );
  });
});

const SCHEMA = {
  type: 'object',
  properties: { limit: { type: 'integer', minimum: 1 } },
  required: [],
  additionalProperties: false,
};
const MESSAGE = 'Invalid type for `limit`: expected integer';
const VIOLATIONS = [{ path: 'limit', rule: 'type', message: MESSAGE }];
const PROTOCOL_ERROR = { code: -32602, message: MESSAGE, data: { code: 'INVALID_ARGS', violations: VIOLATIONS } };
const TOOL_RESULT = {
  isError: true,
  content: [{ type: 'text', text: MESSAGE }],
  structuredContent: { violations: VIOLATIONS },
};

describe('the refusal channel of validation errors (validation_errors)', () => {
  let service: FakeService;
  const gateways: RunningGateway[] = [];
  /** `channel` undefined: the config leaves `validation_errors` out (the default). */
  const open = async (
    channel: ValidationErrorsChannel | undefined,
    settings: BotSettings = {},
  ): Promise<RunningGateway> => {
    const config = botConfig([tool('search_tickets', `${service.url}/tickets`, { inputSchema: SCHEMA })], {
      validation_errors: channel,
      ...settings,
    });
    if (channel === undefined) delete (config.gateway as { validation_errors?: unknown }).validation_errors;
    const gateway = await startSilentGateway(config);
    gateways.push(gateway);
    return gateway;
  };

  before(async () => {
    service = await startFakeService();
  });
  after(async () => {
    await Promise.all(gateways.map((g) => g.close()));
    await service.close();
  });

  it('protocol: a JSON-RPC -32602 error with the violations', async () => {
    const gateway = await open('protocol');
    const session = await initializeSession(gateway.url, '2025-11-25');
    const res = await rawCall(gateway.url, session, 'search_tickets', { limit: 'ten' });
    assert.deepEqual(res, { jsonrpc: '2.0', id: 1, error: PROTOCOL_ERROR });
  });

  it('tool_result: a result with isError and structuredContent violations', async () => {
    const gateway = await open('tool_result');
    const session = await initializeSession(gateway.url, '2025-03-26');
    const res = await rawCall(gateway.url, session, 'search_tickets', { limit: 'ten' });
    assert.deepEqual(res, { jsonrpc: '2.0', id: 1, result: TOOL_RESULT });
  });

  it('auto: a tool result for a session that negotiated 2025-11-25', async () => {
    const gateway = await open('auto');
    const session = await initializeSession(gateway.url, '2025-11-25');
    assert.deepEqual((await rawCall(gateway.url, session, 'search_tickets', { limit: 'ten' })).result, TOOL_RESULT);
  });

  it('auto: a protocol error for a session that negotiated 2025-06-18', async () => {
    const gateway = await open('auto');
    const session = await initializeSession(gateway.url, '2025-06-18');
    assert.deepEqual((await rawCall(gateway.url, session, 'search_tickets', { limit: 'ten' })).error, PROTOCOL_ERROR);
  });

  it('auto: the SDK client (latest protocol) sees the refusal as an isError result', async () => {
    const gateway = await open('auto');
    const client = await connectClient(gateway.url);
    try {
      assert.deepEqual(await client.callTool({ name: 'search_tickets', arguments: { limit: 'ten' } }), TOOL_RESULT);
    } finally {
      await client.close();
    }
  });

  it('the default (auto): tool results for 2025-11-25 and 2026-07-28, -32602 byte for byte for 2025-06-18 and 2025-03-26', async () => {
    const gateway = await open(undefined);
    for (const version of ['2025-03-26', '2025-06-18']) {
      const session = await initializeSession(gateway.url, version);
      const res = await rawCall(gateway.url, session, 'search_tickets', { limit: 'ten' });
      assert.deepEqual(res, { jsonrpc: '2.0', id: 1, error: PROTOCOL_ERROR }, version);
    }
    const session = await initializeSession(gateway.url, '2025-11-25');
    assert.deepEqual(await rawCall(gateway.url, session, 'search_tickets', { limit: 'ten' }), {
      jsonrpc: '2.0',
      id: 1,
      result: TOOL_RESULT,
    });
    const call = modernRequest('tools/call', { name: 'search_tickets', arguments: { limit: 'ten' } }, 7);
    const modern = await postModern(gateway.url, call, BOT.token);
    const { _meta, ...result } = (modern.message as { result: Record<string, unknown> }).result;
    assert.ok(_meta !== undefined, 'a 2026-07-28 result carries _meta');
    assert.deepEqual(result, { ...TOOL_RESULT, resultType: 'complete' });
  });

  it('refusal_structured_content: false sends the refusal as text alone, on tool results only', async () => {
    const gateway = await open('auto', { refusal_structured_content: false });
    const session = await initializeSession(gateway.url, '2025-11-25');
    assert.deepEqual((await rawCall(gateway.url, session, 'search_tickets', { limit: 'ten' })).result, {
      isError: true,
      content: [{ type: 'text', text: MESSAGE }],
    });
    const old = await initializeSession(gateway.url, '2025-06-18');
    assert.deepEqual((await rawCall(gateway.url, old, 'search_tickets', { limit: 'ten' })).error, PROTOCOL_ERROR);
  });

  it('an unknown tool is a JSON-RPC -32602 error whatever the channel', async () => {
    const gateway = await open('tool_result');
    const session = await initializeSession(gateway.url);
    const res = await rawCall(gateway.url, session, 'search_ticket', {});
    assert.deepEqual(res.error, { code: -32602, message: 'Unknown tool: `search_ticket`' });
  });

  it('non-object arguments are refused through the channel', async () => {
    const gateway = await open('protocol');
    const session = await initializeSession(gateway.url);
    const res = await rawCall(gateway.url, session, 'search_tickets', [1]);
    const message = 'Invalid arguments: expected an object';
    assert.deepEqual(res.error, {
      code: -32602,
      message,
      data: { code: 'INVALID_ARGS', violations: [{ path: '', rule: 'type', message }] },
    });
  });

  it('omitted arguments count as {}', async () => {
    const gateway = await open('protocol');
    const session = await initializeSession(gateway.url);
    const res = await rawCall(gateway.url, session, 'search_tickets');
    assert.equal(res.result.isError, undefined);
    assert.equal(service.received.at(-1)!.url, '/tickets');
  });
});

describe('the call pipeline: validate_input off and max_concurrent_calls', () => {
  let service: FakeService;
  before(async () => {
    service = await startFakeService();
  });
  after(() => service.close());

  it('with validate_input off forwards invalid arguments but still refuses alias conflicts and unknown tools', async () => {
    const schema = {
      type: 'object',
      properties: { prompt: { type: 'string' } },
      required: ['prompt'],
      additionalProperties: false,
    };
    const gateway = await startSilentGateway(
      botConfig(
        [tool('create_task', `${service.url}/tasks`, { inputSchema: schema, aliases: { description: 'prompt' } })],
        { validate_input: false },
      ),
    );
    try {
      const session = await initializeSession(gateway.url);
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

  it('refuses calls over max_concurrent_calls with -32603', async () => {
    const gateway = await startSilentGateway(
      botConfig([tool('slow', `${service.url}/slow`, { inputSchema: { type: 'object' } })], {
        max_concurrent_calls: 1,
      }),
    );
    service.respond = () => ({ delayMs: 300, body: '{}' });
    try {
      const session = await initializeSession(gateway.url);
      const first = rawCall(gateway.url, session, 'slow', {});
      await sleep(100);
      const second = await rawCall(gateway.url, session, 'slow', {});
      assert.deepEqual(second.error, { code: -32603, message: 'Gateway busy: too many concurrent calls' });
      assert.equal((await first).result.isError, undefined);
    } finally {
      await gateway.close();
    }
  });
});

const MISSING_CUSTOMER_ID = 'Missing required parameter: `customer_id`';
const MISSING_CUSTOMER_ID_VIOLATIONS = [{ path: 'customer_id', rule: 'required', message: MISSING_CUSTOMER_ID }];

describe('the call pipeline over /mcp: refusals on each channel, aliases, validate_input: false', function () {
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
    const gw = await startInProcessGateway(
      gatewayConfig({ tokens: [bot], tools: [...tools(), ...extraTools], settings }),
    );
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
      assert.equal(
        res.message?.error?.message,
        'Invalid value for `customer_id`: expected to match pattern ^C-[0-9]{4}$',
      );
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

    it("validates the alias value under the parameter's name", async () => {
      const res = await session.callTool('rename', { old_name: 'Al' });
      assert.equal(res.message?.error?.message, 'Invalid value for `name`: expected at least 3 characters');
    });

    it('writes an audit record for a refusal: outcome refused, the message, no argument values', async () => {
      const canary = 'canary-audit-91c2';
      await session.callTool('get_customer', { customer_id: 'C-0001', query: canary, limit: 1000 });
      // Wait for this record itself: counting lines could be satisfied by an earlier test's record landing late
      // (records are flushed in batches after the answer).
      const [refusal] = await waitForAuditRecords(gw.auditLogPath, 1, {
        where: (r) => r.outcome === 'refused' && r.error?.message === 'Invalid value for `limit`: expected <= 100',
      });
      assert.equal(refusal.tool, 'get_customer');
      assert.equal(refusal.gateway, 'test-gateway');
      assert.equal(refusal.principal, 'support-bot');
      assert.equal(refusal.session, sessionDigest(session.sessionId));
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
});
