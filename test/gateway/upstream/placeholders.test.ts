import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { ToolConfig } from '../../../src/config';
import type { RunningGateway } from '../../../src/gateway';
import { placeholderProblemOf, planServiceCall } from '../../../src/gateway/upstream';
import { readAuditLog, waitForAuditRecords } from '../../helpers/audit-log';
import { startBackend, startFakeService, type FakeService, type TestBackend } from '../../helpers/backend';
import { botConfig, gatewayConfig, objectSchema, tool } from '../../helpers/config';
import { eventually } from '../../helpers/eventually';
import { type InProcessGateway, startInProcessGateway, startSilentGateway } from '../../helpers/in-process-gateway';
import { initializeSession, type McpHttpResponse, type McpSession, openSession, rawCall } from '../../helpers/mcp';
import { makeToken } from '../../helpers/tokens';
import { sessionDigest } from '../../../src/gateway/audit/session-digest';
import { tempDir } from '../../helpers/temp-dir';

const SEGMENT = 'expected a non-empty path segment other than "." or ".."';

function problem(url: string, args: Record<string, unknown>, forwardAs?: Record<string, string>) {
  const plan = planServiceCall({
    name: 't',
    description: 'd',
    input_schema: { type: 'object' },
    backend: { url, method: 'GET' },
    ...(forwardAs !== undefined ? { forward_as: forwardAs } : {}),
  });
  return placeholderProblemOf(plan, args);
}

describe('URL placeholders: what a URL cannot carry (checked per call)', () => {
  it('refuses ".", ".." and "" as a whole path segment, naming the parameter, never the value', () => {
    for (const value of ['.', '..', '']) {
      assert.deepEqual(problem('http://crm/customers/{customer_id}/orders', { customer_id: value }), {
        message: `Invalid value for \`customer_id\`: ${SEGMENT}`,
        violations: [
          { path: 'customer_id', rule: 'pathSegment', message: `Invalid value for \`customer_id\`: ${SEGMENT}` },
        ],
      });
    }
  });

  it('accepts other dotted or encoded values, which the URL carries as they are', () => {
    for (const value of ['...', '.a', '%2e%2e', '%2E', './', '../x', 0, false]) {
      assert.equal(problem('http://crm/customers/{customer_id}', { customer_id: value }), undefined, String(value));
    }
  });

  it('judges the whole segment when a placeholder shares it with literal text or another placeholder', () => {
    assert.equal(problem('http://crm/files/{name}.json', { name: '.' }), undefined);
    assert.equal(problem('http://crm/files/{name}.json', { name: '' }), undefined);
    assert.equal(problem('http://crm/x/.{a}/y', { a: '.' })?.message, `Invalid value for \`a\`: ${SEGMENT}`);
    assert.equal(problem('http://crm/x/%2E{a}', { a: '.' })?.message, `Invalid value for \`a\`: ${SEGMENT}`);
    assert.equal(
      problem('http://crm/x/{a}{b}', { a: '.', b: '.' })
        ?.violations.map((v) => v.path)
        .join(),
      'a,b',
    );
    assert.equal(problem('http://crm/x/{a}{b}', { a: '.', b: 'c' }), undefined);
  });

  it('does not judge placeholders in the query (dot segments exist only in the path)', () => {
    assert.equal(problem('http://crm/search?q={q}', { q: '..' }), undefined);
  });

  it('refuses an absent placeholder parameter as missing, in the path and in the query', () => {
    assert.deepEqual(problem('http://crm/c/{id}?view={view}', {}), {
      message: 'Missing required parameter: `id`; Missing required parameter: `view`',
      violations: [
        { path: 'id', rule: 'required', message: 'Missing required parameter: `id`' },
        { path: 'view', rule: 'required', message: 'Missing required parameter: `view`' },
      ],
    });
  });

  it('names the parameter a forwardAs placeholder is filled from', () => {
    assert.equal(
      problem('http://crm/c/{customer_id}', {}, { cid: 'customer_id' })?.message,
      'Missing required parameter: `cid`',
    );
    assert.equal(
      problem('http://crm/c/{customer_id}', { cid: '..' }, { cid: 'customer_id' })?.message,
      `Invalid value for \`cid\`: ${SEGMENT}`,
    );
    assert.equal(problem('http://crm/c/{customer_id}', { cid: 'C-1' }, { cid: 'customer_id' }), undefined);
  });
});

describe('URL placeholders over /mcp', () => {
  let service: FakeService;
  let auditDir: string;
  const gateways: RunningGateway[] = [];
  const open = {
    type: 'object',
    properties: { customer_id: { type: 'string' }, q: { type: 'string' } },
    additionalProperties: false,
  };
  const tools = (origin: string): ToolConfig[] => [
    tool('get_customer', `${origin}/customers/{customer_id}`, { inputSchema: { ...open, required: ['customer_id'] } }),
    tool('orders', `${origin}/customers/{customer_id}/orders`, { inputSchema: open }),
  ];
  const startWith = async (settings: Record<string, unknown>) => {
    const gw = await startSilentGateway(botConfig(tools(service.url), settings));
    gateways.push(gw);
    return { url: gw.url, session: await initializeSession(gw.url) };
  };

  before(async () => {
    service = await startFakeService();
    auditDir = tempDir('placeholders-');
  });
  after(async () => {
    for (const gw of gateways) await gw.close();
    await service.close();
  });

  for (const validateInput of [true, false]) {
    it(`refuses ".." before the service with -32602 (validate_input ${validateInput}), audited as refused`, async () => {
      const auditPath = join(auditDir, `dots-${validateInput}.jsonl`);
      const { url, session } = await startWith({ validate_input: validateInput, audit_log: { path: auditPath } });
      const before = service.received.length;
      const res = await rawCall(url, session, 'get_customer', { customer_id: '..' });
      const message = `Invalid value for \`customer_id\`: ${SEGMENT}`;
      assert.deepEqual(res.error, {
        code: -32602,
        message,
        data: { code: 'INVALID_ARGS', violations: [{ path: 'customer_id', rule: 'pathSegment', message }] },
      });
      assert.equal(service.received.length, before, 'the service was called');
      await eventually(() => {
        const records = readAuditLog(auditPath);
        assert.deepEqual(
          records.map((r) => [r.tool, r.outcome, r.error]),
          [['get_customer', 'refused', { code: 'INVALID_ARGS', message }]],
        );
      });
    });

    it(`refuses a call without the placeholder's field (validate_input ${validateInput}), not calling the collection URL`, async () => {
      const { url, session } = await startWith({ validate_input: validateInput });
      const before = service.received.length;
      const res = await rawCall(url, session, 'get_customer', {});
      assert.equal(res.error.message, 'Missing required parameter: `customer_id`');
      assert.deepEqual(res.error.data.violations, [
        { path: 'customer_id', rule: 'required', message: 'Missing required parameter: `customer_id`' },
      ]);
      assert.equal(service.received.length, before, 'the service was called');
    });
  }

  it('refuses an optional placeholder field that is absent although the schema allows it', async () => {
    const { url, session } = await startWith({});
    const res = await rawCall(url, session, 'orders', { q: 'open' });
    assert.equal(res.error.message, 'Missing required parameter: `customer_id`');
  });

  it('answers through the tool_result channel when configured', async () => {
    const { url, session } = await startWith({ validation_errors: 'tool_result' });
    const res = await rawCall(url, session, 'orders', { customer_id: '.' });
    const text = `Invalid value for \`customer_id\`: ${SEGMENT}`;
    assert.deepEqual(res.result, {
      isError: true,
      content: [{ type: 'text', text }],
      structuredContent: { violations: [{ path: 'customer_id', rule: 'pathSegment', message: text }] },
    });
  });

  it('forwards look-alike values encoded, inside the declared path', async () => {
    const { url, session } = await startWith({});
    for (const [value, path] of [
      ['...', '/customers/.../orders'],
      ['%2e%2e', '/customers/%252e%252e/orders'],
      ['a/../b', '/customers/a%2F..%2Fb/orders'],
    ]) {
      const res = await rawCall(url, session, 'orders', { customer_id: value });
      assert.equal(res.result?.isError, undefined, JSON.stringify(res));
      assert.equal(service.received.at(-1)!.url, path);
    }
  });

  it('writes a lone surrogate as U+FFFD (as URLSearchParams does) in the path and the query', async () => {
    const { url, session } = await startWith({});
    const res = await rawCall(url, session, 'orders', { customer_id: 'C\ud800', q: '\udc00x' });
    assert.equal(res.result?.isError, undefined, JSON.stringify(res));
    assert.equal(service.received.at(-1)!.url, '/customers/C%EF%BF%BD/orders?q=%EF%BF%BDx');
  });
});

/** Whether a `tools/call` was answered as a failure: a JSON-RPC error or an `isError` result. */
function answeredAsFailure(res: McpHttpResponse): boolean {
  return res.message?.error !== undefined || res.message?.result?.isError === true;
}

/** Paths the backend received after `from` requests. */
function pathsSince(backend: TestBackend, from: number): string[] {
  return backend.received.slice(from).map((r) => r.url.split('?')[0]);
}

describe('URL placeholders and values encodeURIComponent cannot encode, over /mcp (regressions)', function () {
  this.timeout(20_000);
  const bot = makeToken('review-bot');
  let backend: TestBackend;
  let gw: InProcessGateway;
  let offGw: InProcessGateway;
  let session: McpSession;
  let offSession: McpSession;

  const tools = (url: string) => [
    // `id` is an optional placeholder field: the input language lets any forwarded field be a placeholder, required or not.
    tool('customer_orders', `${url}/customers/{id}/orders`, {
      inputSchema: objectSchema({ id: { type: 'string', maxLength: 64 }, q: { type: 'string' } }),
    }),
    tool('get_customer', `${url}/customers/{customer_id}`, {
      inputSchema: objectSchema({ customer_id: { type: 'string' } }, ['customer_id']),
    }),
  ];

  before(async () => {
    backend = await startBackend();
    gw = await startInProcessGateway(gatewayConfig({ tokens: [bot], tools: tools(backend.url) }));
    offGw = await startInProcessGateway(
      gatewayConfig({ name: 'legacy', tokens: [bot], tools: tools(backend.url), settings: { validate_input: false } }),
    );
    session = await openSession(gw.url, { token: bot.token });
    offSession = await openSession(offGw.url, { token: bot.token });
  });

  after(async () => {
    await gw?.close();
    await offGw?.close();
    await backend?.close();
  });

  describe('service call: URL placeholders (docs/gateway.md "filled URL-encoded")', () => {
    for (const value of ['..', '.']) {
      it(`a placeholder value ${JSON.stringify(value)} never moves the service call outside the declared path`, async () => {
        const before = backend.received.length;
        const res = await session.callTool('customer_orders', { id: value });
        assert.equal(res.status, 200, res.text);
        // Encoding cannot help here: WHATWG URL parsing (undici) removes `.`/`..` segments, also as `%2e`.
        // Either the gateway refuses the value, or the backend sees it inside /customers/…/orders.
        for (const path of pathsSince(backend, before)) {
          assert.match(path, /^\/customers\/[^/]+\/orders$/, `the call reached ${path}`);
        }
        if (pathsSince(backend, before).length === 0) assert.ok(answeredAsFailure(res), res.text);
      });
    }

    it("a call without a placeholder's field is refused, not sent with an empty path segment (validate_input on)", async () => {
      const before = backend.received.length;
      const res = await session.callTool('customer_orders', {});
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(pathsSince(backend, before), [], 'the backend was called with an empty path segment');
      assert.ok(answeredAsFailure(res), res.text);
    });

    it("a call without a placeholder's field is refused, not sent to the collection URL (validate_input off)", async () => {
      const before = backend.received.length;
      const res = await offSession.callTool('get_customer', {});
      assert.equal(res.status, 200, res.text);
      // `/customers/` is a different endpoint (typically "list all") than the one the tool declares.
      assert.deepEqual(pathsSince(backend, before), [], 'the backend was called without the placeholder');
      assert.ok(answeredAsFailure(res), res.text);
    });
  });

  describe('service call: values that encodeURIComponent cannot encode', () => {
    const loneSurrogate = '\ud800';
    const cases: [string, Record<string, unknown>][] = [
      ['the query of a GET', { id: 'C-1', q: `x${loneSurrogate}` }],
      ['a URL placeholder', { id: `\udc00` }],
    ];
    for (const [where, args] of cases) {
      it(`a lone surrogate in ${where} is answered with the request's id (not HTTP 500 "Internal error") and audited`, async () => {
        const own = await openSession(gw.url, { token: bot.token });
        const res = await own.callTool('customer_orders', args);
        // docs/gateway.md: a service call fault is "never a crash"; every tools/call has one audit line.
        assert.equal(res.status, 200, res.text);
        assert.equal(typeof res.message?.id, 'number', res.text);
        assert.ok(res.message?.result !== undefined || res.message?.error !== undefined, res.text);
        const records = await waitForAuditRecords(gw.auditLogPath, 1, {
          where: (r) => r.session === sessionDigest(own.sessionId),
        });
        assert.deepEqual(
          records.map((r) => r.tool),
          ['customer_orders'],
        );
      });
    }
  });
});
