import * as assert from 'node:assert/strict';
import type { RunningGateway } from '../../../src/gateway';
import { startBackend, startFakeService, type FakeService, type TestBackend } from '../../helpers/backend';
import { botConfig, supportDeskTools, tool } from '../../helpers/config';
import { type InProcessGateway, startInProcessGateway, startSilentGateway } from '../../helpers/in-process-gateway';
import { initializeSession, type McpSession, openSession, rawCall } from '../../helpers/mcp';
import { BOT } from '../../helpers/tokens';

describe('the tool set: a tool whose schema cannot compile is unavailable, the others work', () => {
  let service: FakeService;
  before(async () => {
    service = await startFakeService();
  });
  after(() => service.close());

  it('refuses calls of a tool whose schema cannot compile with -32603; other tools work', async () => {
    const broken = { type: 'object', properties: { q: { type: 'strin' } } };
    const gateway: RunningGateway = await startSilentGateway(
      botConfig([
        tool('broken', `${service.url}/b`, { inputSchema: broken }),
        tool('fine', `${service.url}/f`, { inputSchema: { type: 'object' } }),
      ]),
    );
    try {
      const session = await initializeSession(gateway.url);
      assert.deepEqual((await rawCall(gateway.url, session, 'broken', {})).error, {
        code: -32603,
        message: 'Tool unavailable: `broken`',
      });
      assert.equal((await rawCall(gateway.url, session, 'fine', {})).result.isError, undefined);
    } finally {
      await gateway.close();
    }
  });

  describe('with the support-desk tools and a broken one', () => {
    let backend: TestBackend;
    let gw: InProcessGateway;
    let session: McpSession;
    before(async () => {
      backend = await startBackend();
      const broken = tool('broken', `${backend.url}/broken`, {
        inputSchema: { type: 'object', properties: { x: { type: 'no-such-type' } }, additionalProperties: false },
      });
      gw = await startInProcessGateway(botConfig([...supportDeskTools(backend.url), broken]));
      session = await openSession(gw.url, { token: BOT.token });
    });
    after(async () => {
      await gw?.close();
      await backend?.close();
    });

    it('fails closed with -32603 "Tool unavailable: `broken`" and never calls the backend', async () => {
      const backendBefore = backend.requests;
      const res = await session.callTool('broken', { x: 1 });
      assert.equal(res.message?.error?.code, -32603, res.text);
      assert.equal(res.message?.error?.message, 'Tool unavailable: `broken`');
      assert.equal(backend.requests, backendBefore);
    });

    it('logs the defect naming the tool', () => {
      assert.ok(
        gw.logs.some((l) => l.level === 'error' && l.tool === 'broken'),
        JSON.stringify(gw.logs),
      );
    });

    it('keeps the other tools working', async () => {
      const res = await session.callTool('get_customer', { customer_id: 'C-0007' });
      assert.equal(res.message?.result?.structuredContent?.path, '/customers/C-0007', res.text);
    });
  });
});
