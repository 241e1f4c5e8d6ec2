/**
 * What a gateway sends a backend besides the arguments (docs/constructs.md): the service's `headers` with secrets read at
 * start, `X-MCP-Principal`/`X-MCP-Client` with `forward_identity`, never the caller's own headers; and a secret
 * value never appears in a log line, an audit record or an error message (canaries).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { GatewayConfig, ToolConfig } from '../../../src/config';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { botConfig, tool } from '../../helpers/config';
import { startInProcessGateway, type InProcessGateway } from '../../helpers/in-process-gateway';
import { openSession } from '../../helpers/mcp';
import { BOT } from '../../helpers/tokens';

const CANARY = `canary-${process.pid}-b7c1e0-never-shown`;
const SECRET = 'BACKEND_HEADERS_TEST_KEY';

function withBackend(t: ToolConfig, extra: Partial<ToolConfig['backend']>): ToolConfig {
  return { ...t, backend: { ...t.backend, ...extra } };
}

describe('backend headers, identity and secret canaries (in-process gateway)', () => {
  let backend: TestBackend;
  let gw: InProcessGateway;
  let config: GatewayConfig;

  before(async () => {
    backend = await startBackend();
    process.env[SECRET] = `Bearer ${CANARY}`;
    config = botConfig([
      withBackend(tool('crm', `${backend.url}/crm`), {
        headers: { Authorization: { secret: SECRET }, 'X-Tenant': 'acme' },
        forward_identity: true,
      }),
      withBackend(tool('plain', `${backend.url}/plain`), { headers: { 'X-Api-Key': { secret: SECRET } } }),
      withBackend(tool('failing', `${backend.url}/status/500`), { headers: { 'X-Api-Key': { secret: SECRET } } }),
      withBackend(tool('down', 'http://127.0.0.1:1/down'), { headers: { 'X-Api-Key': { secret: SECRET } } }),
    ]);
    gw = await startInProcessGateway(config);
  });

  after(async () => {
    Reflect.deleteProperty(process.env, SECRET);
    await gw?.close();
    await backend?.close();
  });

  it("sends the literal and the secret headers, and the caller's principal and client with forward_identity", async () => {
    const session = await openSession(gw.url, {
      token: BOT.token,
      clientInfo: { name: 'Support Bot ü %', version: '1' },
    });
    const res = await session.callTool(
      'crm',
      {},
      { headers: { 'x-tenant': 'evil', 'x-mcp-principal': 'admin', cookie: 'c=1' } },
    );
    assert.equal(res.message?.result?.isError, undefined, res.text);
    const headers = backend.received.at(-1)!.headers;
    assert.equal(headers.authorization, `Bearer ${CANARY}`);
    assert.equal(headers['x-tenant'], 'acme');
    assert.equal(headers['x-mcp-principal'], BOT.id);
    assert.equal(headers['x-mcp-client'], 'Support%20Bot%20%C3%BC%20%25');
    assert.equal(decodeURIComponent(headers['x-mcp-client'] as string), 'Support Bot ü %');
    assert.equal(headers.cookie, undefined, "the caller's own headers are never forwarded");
  });

  it("sends no identity headers without forward_identity, and never the caller's Authorization", async () => {
    const session = await openSession(gw.url, { token: BOT.token });
    await session.callTool('plain', {});
    const headers = backend.received.at(-1)!.headers;
    assert.equal(headers['x-api-key'], `Bearer ${CANARY}`);
    assert.equal(headers['x-mcp-principal'], undefined);
    assert.equal(headers['x-mcp-client'], undefined);
    assert.equal(headers.authorization, undefined);
  });

  it('cuts a huge client name and encodes control characters, so any client name can be sent', async () => {
    const session = await openSession(gw.url, {
      token: BOT.token,
      clientInfo: { name: `\r\n${'x'.repeat(1_000_000)}`, version: '1' },
    });
    const res = await session.callTool('crm', {});
    assert.equal(res.message?.result?.isError, undefined, res.text);
    const client = backend.received.at(-1)!.headers['x-mcp-client'] as string;
    assert.ok(client.startsWith('%0D%0Axxx'));
    assert.ok(decodeURIComponent(client).length <= 256, `${client.length} characters`);
  });

  it('never shows the secret in an error from a failing or unreachable backend, in the audit log or in a log line', async () => {
    const session = await openSession(gw.url, { token: BOT.token });
    const failing = await session.callTool('failing', {});
    const down = await session.callTool('down', {});
    assert.equal(failing.message?.result?.isError, true, failing.text);
    assert.equal(down.message?.result?.isError, true, down.text);
    for (const res of [failing, down]) assert.ok(!res.text.includes(CANARY), res.text);
    await gw.gateway.reload({ ...config, tools: [...config.tools].reverse() });
    await gw.gateway.close();
    const audit = readFileSync(gw.auditLogPath, 'utf8');
    assert.ok(audit.split('\n').length > 4, audit);
    assert.ok(!audit.includes(CANARY), 'audit log');
    const logs = JSON.stringify(gw.logs);
    assert.ok(logs.includes('config reloaded') && logs.includes('stopped'), logs);
    assert.ok(!logs.includes(CANARY), 'log lines');
  });
});
