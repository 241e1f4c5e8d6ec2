/**
 * Response controls over the wire: `outputSchema` advertised per protocol version, a conforming result that the
 * official clients' own output validation accepts, a non-conforming one as `isError` with the exact message,
 * `validate_output` toggled, field selection and redaction reaching neither the structured result nor the text,
 * the size cap, and the audit record's counts and codes.
 */
import assert from 'node:assert/strict';
import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from '@modelcontextprotocol/client';
import type { GatewayConfig, ToolConfig } from '../../../src/config';
import { generateOutputSchema } from '../../../src/schema';
import { readAuditLog, waitForAuditRecords } from '../../helpers/audit-log';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { botConfig, tool } from '../../helpers/config';
import { startInProcessGateway, type InProcessGateway } from '../../helpers/in-process-gateway';
import { connectSdkClient, openSession, postMcp, type SdkConnection } from '../../helpers/mcp';
import { BOT } from '../../helpers/tokens';

const OUTPUT = generateOutputSchema({
  id: { type: 'string', required: true },
  name: { type: 'string', required: true },
  email: { type: 'string', format: 'email' },
  orders: {
    type: 'array',
    items: { type: 'object', properties: { id: { type: 'string', required: true }, total: { type: 'number' } } },
  },
});

const CUSTOMER = {
  id: 'C-1',
  name: 'Ada',
  email: 'ada@example.com',
  orders: [{ id: 'o-1', total: 12.5 }],
};

/** Backend bodies by path. */
const BODIES: Record<string, string> = {
  '/customer': JSON.stringify(CUSTOMER),
  '/extra': JSON.stringify({
    ...CUSTOMER,
    ssn: 'SSN-CANARY',
    orders: [{ id: 'o-1', total: 1, card_number: 'CARD-CANARY' }],
  }),
  '/wrong': JSON.stringify({
    ...CUSTOMER,
    orders: [
      { id: 'o-1', total: 1 },
      { id: 'o-2', total: 'lots' },
    ],
  }),
  '/array': '[1,2,3]',
  '/card': JSON.stringify({ id: 'C-1', name: 'Ada', note: 'paid with 4111111111111111 yesterday' }),
  '/big': JSON.stringify({ id: 'C-1', name: 'x'.repeat(5000) }),
};

function customerTool(name: string, path: string, extra: Partial<ToolConfig> = {}): ToolConfig {
  return { ...tool(name, `${BACKEND_URL}${path}`), output_schema: OUTPUT, ...extra };
}

let BACKEND_URL = '';

function tools(): ToolConfig[] {
  return [
    customerTool('get_customer', '/customer'),
    customerTool('get_wrong', '/wrong'),
    customerTool('get_array', '/array'),
    customerTool('get_shaped', '/extra', {
      response: { fields: 'declared', redact: ['email'] },
    }),
    customerTool('get_card', '/card', {
      output_schema: undefined,
      response: { redact_patterns: { card: '\\b[0-9]{13,16}\\b' } },
    }),
    customerTool('get_big', '/big', { output_schema: undefined, response: { max_bytes: 1000 } }),
  ];
}

async function connectV2(url: string): Promise<Client2> {
  const client = new Client2(
    { name: 'v2-out', version: '2.4.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new Transport2(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${BOT.token}` } } }),
  );
  return client;
}

describe('response controls over the wire', function () {
  this.timeout(30_000);
  let backend: TestBackend;
  let on: InProcessGateway;
  let off: InProcessGateway;
  const open: SdkConnection[] = [];
  const v2: Client2[] = [];

  before(async () => {
    backend = await startBackend({
      respond: (req) => ({ body: BODIES[new URL(req.url, 'http://x').pathname] ?? '{}' }),
    });
    BACKEND_URL = backend.url;
    const config = (validate: boolean): GatewayConfig =>
      botConfig(tools(), { validate_output: validate, audit_log: true, metrics: true });
    on = await startInProcessGateway(config(true));
    off = await startInProcessGateway(config(false));
  });

  after(async () => {
    await Promise.all(open.map((c) => c.close()));
    await Promise.all(v2.map((c) => c.close().catch(() => undefined)));
    await on?.close();
    await off?.close();
    await backend?.close();
  });

  async function v1(url: string): Promise<SdkConnection> {
    const c = await connectSdkClient(url, BOT.token);
    open.push(c);
    return c;
  }

  async function listed(url: string, protocolVersion: string): Promise<Record<string, any>> {
    const session = await openSession(url, { token: BOT.token, protocolVersion });
    const res = await session.request('tools/list');
    return Object.fromEntries(res.message!.result.tools.map((t: any) => [t.name, t]));
  }

  it('advertises outputSchema to 2025-06-18 and 2025-11-25 sessions, not to 2025-03-26 ones', async () => {
    for (const version of ['2025-06-18', '2025-11-25']) {
      const byName = await listed(on.url, version);
      assert.deepEqual(byName.get_customer.outputSchema, OUTPUT, version);
      assert.equal(byName.get_card.outputSchema, undefined, 'no output declared');
    }
    const old = await listed(on.url, '2025-03-26');
    for (const t of Object.values(old)) assert.equal(t.outputSchema, undefined, t.name);
  });

  it('advertises outputSchema in 2026-07-28 (client 2.x)', async () => {
    const client = await connectV2(on.url);
    v2.push(client);
    const { tools: listedTools } = await client.listTools();
    assert.deepEqual(listedTools.find((t) => t.name === 'get_customer')!.outputSchema, OUTPUT);
  });

  it('advertises a redacted field without the constraints "[redacted]" would break', async () => {
    const byName = await listed(on.url, '2025-11-25');
    assert.deepEqual(byName.get_shaped.outputSchema.properties.email, { type: 'string' });
    assert.deepEqual(OUTPUT.properties, { ...(OUTPUT.properties as object) }, 'the declared schema is unchanged');
  });

  it('a conforming result passes the 1.x client’s own output validation, with content and structuredContent', async () => {
    const { client } = await v1(on.url);
    await client.listTools(); // the 1.x client validates results against the schemas it listed
    const result = await client.callTool({ name: 'get_customer', arguments: {} });
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.structuredContent, CUSTOMER);
    assert.deepEqual(JSON.parse((result.content as any)[0].text), CUSTOMER);
  });

  it('a conforming result passes the 2.x client’s own output validation (2026-07-28)', async () => {
    const client = await connectV2(on.url);
    v2.push(client);
    await client.listTools();
    const result = await client.callTool({ name: 'get_shaped', arguments: {} });
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.structuredContent, { ...CUSTOMER, email: '[redacted]', orders: [{ id: 'o-1', total: 1 }] });
  });

  it('a non-conforming result is isError with the exact message, in both clients', async () => {
    const message = 'Service returned an invalid response: Invalid type for `orders[1].total`: expected number';
    const { client } = await v1(on.url);
    await client.listTools();
    const r1 = await client.callTool({ name: 'get_wrong', arguments: {} });
    assert.deepEqual(r1, { isError: true, content: [{ type: 'text', text: message }] });
    const c2 = await connectV2(on.url);
    v2.push(c2);
    await c2.listTools();
    const r2 = await c2.callTool({ name: 'get_wrong', arguments: {} });
    assert.equal(r2.isError, true);
    assert.deepEqual(r2.content, [{ type: 'text', text: message }]);
  });

  it('an input refusal as a tool result stays a refusal in both clients when the tool declares an output', async () => {
    // {violations} is no customer: on a tool with an outputSchema it would make the 1.x client throw its own
    // output-validation error instead of showing the refusal; the text carries the violations
    const input = {
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
      additionalProperties: false,
    };
    const refusing = await startInProcessGateway(
      botConfig(
        [
          customerTool('get_customer', '/customer', { input_schema: input }),
          customerTool('get_plain', '/customer', { input_schema: input, output_schema: undefined }),
        ],
        { validation_errors: 'tool_result' },
      ),
    );
    try {
      const message = 'Missing required parameter: `id`';
      const { client } = await v1(refusing.url);
      await client.listTools();
      const r1 = await client.callTool({ name: 'get_customer', arguments: {} });
      assert.deepEqual(r1, { isError: true, content: [{ type: 'text', text: message }] });
      const c2 = await connectV2(refusing.url);
      v2.push(c2);
      await c2.listTools();
      const r2 = await c2.callTool({ name: 'get_customer', arguments: {} });
      assert.equal(r2.isError, true);
      assert.deepEqual(r2.content, [{ type: 'text', text: message }]);
      // a tool without declared output keeps the structured violations
      const plain = await client.callTool({ name: 'get_plain', arguments: {} });
      assert.deepEqual(plain.structuredContent, { violations: [{ path: 'id', rule: 'required', message }] });
    } finally {
      await refusing.close();
    }
  });

  it('a body that is not a JSON object is "expected a JSON object"', async () => {
    const { client } = await v1(on.url);
    const r = await client.callTool({ name: 'get_array', arguments: {} });
    assert.deepEqual(r, {
      isError: true,
      content: [{ type: 'text', text: 'Service returned an invalid response: expected a JSON object' }],
    });
  });

  it('with validate_output off: no outputSchema advertised, structured content unchecked, shaping applied', async () => {
    for (const version of ['2025-06-18', '2025-11-25']) {
      const byName = await listed(off.url, version);
      for (const t of Object.values(byName)) assert.equal(t.outputSchema, undefined, `${version} ${t.name}`);
    }
    const { client } = await v1(off.url);
    await client.listTools();
    const wrong = await client.callTool({ name: 'get_wrong', arguments: {} });
    assert.equal(wrong.isError, undefined);
    assert.equal((wrong.structuredContent as any).orders[1].total, 'lots');
    const shaped = await client.callTool({ name: 'get_shaped', arguments: {} });
    assert.equal((shaped.structuredContent as any).email, '[redacted]');
    assert.equal((shaped.structuredContent as any).ssn, undefined);
  });

  it('dropped and redacted values reach neither the structured result nor the text content', async () => {
    const res = await postMcp(
      on.url,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_shaped', arguments: {} } },
      { token: BOT.token, sessionId: (await openSession(on.url, { token: BOT.token })).sessionId },
    );
    for (const canary of ['SSN-CANARY', 'CARD-CANARY', 'ada@example.com'])
      assert.ok(!res.text.includes(canary), canary);
    const result = res.message!.result;
    assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  });

  it('redactPatterns replace matches in strings and in the text content', async () => {
    const { client } = await v1(on.url);
    const r = await client.callTool({ name: 'get_card', arguments: {} });
    assert.deepEqual(r.structuredContent, { id: 'C-1', name: 'Ada', note: 'paid with [redacted] yesterday' });
    assert.ok(!JSON.stringify(r).includes('4111111111111111'));
  });

  it('a result over maxBytes (every byte: its text and structuredContent) is isError with the exact message', async () => {
    const { client } = await v1(on.url);
    const r = await client.callTool({ name: 'get_big', arguments: {} });
    // the result the agent would have got: the body as structuredContent and again as the text content
    const body = BODIES['/big'];
    const bytes = Buffer.byteLength(
      `{"content":[{"type":"text","text":${JSON.stringify(body)}}],"structuredContent":${body}}`,
    );
    assert.deepEqual(r, {
      isError: true,
      content: [{ type: 'text', text: `Service response too large: ${bytes} bytes (limit 1000)` }],
    });
  });

  it('audits counts for shaped calls and OUTPUT_INVALID / RESPONSE_TOO_LARGE as errors, never values', async () => {
    const { client } = await v1(on.url);
    for (const name of ['get_shaped', 'get_wrong', 'get_big', 'get_customer']) {
      await client.callTool({ name, arguments: {} });
    }
    // Records are written in call order: once this call's is there, so are the ones before it.
    await waitForAuditRecords(on.auditLogPath, 2, { where: (r) => r.tool === 'get_customer' });
    const records = readAuditLog(on.auditLogPath);
    const last = (name: string) => records.filter((r) => r.tool === name).at(-1)!;
    assert.deepEqual(last('get_shaped').response, { fields_dropped: 2, redacted: 1 });
    assert.equal(last('get_shaped').outcome, 'ok');
    assert.deepEqual(last('get_wrong').error, {
      code: 'OUTPUT_INVALID',
      message: 'Service returned an invalid response: Invalid type for `orders[1].total`: expected number',
    });
    assert.equal(last('get_wrong').outcome, 'error');
    assert.equal(last('get_big').error!.code, 'RESPONSE_TOO_LARGE');
    assert.equal(last('get_customer').response, undefined, 'validation alone is not shaping');
    const text = JSON.stringify(records);
    for (const canary of ['SSN-CANARY', 'CARD-CANARY', 'ada@example.com', 'lots']) assert.ok(!text.includes(canary));
  });

  it('counts OUTPUT_INVALID and RESPONSE_TOO_LARGE per tool in /metrics', async () => {
    const { client } = await v1(on.url);
    for (const name of ['get_wrong', 'get_big']) await client.callTool({ name, arguments: {} });
    const res = await fetch(new URL('/metrics', on.url), { headers: { authorization: `Bearer ${BOT.token}` } });
    const lines = (await res.text()).split('\n').filter((l) => l.startsWith('mcp_gateway_tool_calls_total{'));
    const count = (tool: string, code: string): number => {
      const line = lines.find((l) => l.includes(`tool="${tool}"`) && l.includes(`code="${code}"`));
      assert.ok(line !== undefined, `no series for ${tool} ${code} in ${lines.join('\n')}`);
      assert.ok(line.includes('outcome="error"'), line);
      return Number(line.split(' ').at(-1));
    };
    assert.ok(count('get_wrong', 'OUTPUT_INVALID') >= 1);
    assert.ok(count('get_big', 'RESPONSE_TOO_LARGE') >= 1);
  });
});
