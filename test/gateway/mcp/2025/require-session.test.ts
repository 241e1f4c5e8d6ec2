import assert from 'node:assert/strict';
import type { RunningGateway } from '../../../../src/gateway';
import { startFakeService, type FakeService } from '../../../helpers/backend';
import { botConfig, supportDeskTools } from '../../../helpers/config';
import { openStream, rawRequest, type OpenStream } from '../../../helpers/http';
import { startSilentGateway } from '../../../helpers/in-process-gateway';
import { initializeSession, openSession, postMcp } from '../../../helpers/mcp';
import { within } from '../../../helpers/eventually';
import { BOT, OTHER, type TestToken } from '../../../helpers/tokens';

describe('the session of a request: Mcp-Session-Id, its token and MCP-Protocol-Version', () => {
  let service: FakeService;
  let gateway: RunningGateway;
  let session: string;
  const streams: OpenStream[] = [];
  const auth = { authorization: `Bearer ${BOT.token}`, 'content-type': 'application/json' };
  const LIST = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' });
  const send = (headers: Record<string, string>) =>
    rawRequest({ url: gateway.url, headers, body: LIST, timeoutMs: 5_000 });
  const sse = (t: TestToken, sessionId?: string) =>
    openStream(gateway.url, {
      accept: 'text/event-stream',
      authorization: `Bearer ${t.token}`,
      ...(sessionId !== undefined ? { 'mcp-session-id': sessionId } : {}),
    }).then((s) => {
      streams.push(s);
      return s;
    });

  before(async () => {
    service = await startFakeService();
    gateway = await startSilentGateway(botConfig(supportDeskTools(service.url)));
    session = await initializeSession(gateway.url);
  });
  after(async () => {
    for (const s of streams) s.destroy();
    await gateway.close();
    await service.close();
  });

  it('refuses a request without Mcp-Session-Id with 400', async () => {
    const res = await send(auth);
    assert.equal(res.status, 400);
    assert.equal(res.json.error.message, 'Bad Request: Mcp-Session-Id header is required');
  });

  it('refuses a notification without Mcp-Session-Id with 400', async () => {
    const res = await postMcp(
      gateway.url,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { token: BOT.token },
    );
    assert.equal(res.status, 400);
    assert.equal(res.message?.error?.message, 'Bad Request: Mcp-Session-Id header is required');
  });

  it('refuses an unknown session with 404', async () => {
    const res = await send({ ...auth, 'mcp-session-id': 'f'.repeat(32) });
    assert.equal(res.status, 404);
    assert.equal(res.json.error.message, 'Session not found');
  });

  it('treats a session presented with another token as unknown (404)', async () => {
    const res = await send({ ...auth, authorization: `Bearer ${OTHER.token}`, 'mcp-session-id': session });
    assert.equal(res.status, 404);
  });

  it('refuses a GET stream without Mcp-Session-Id with 400', async () => {
    const s = await sse(BOT);
    assert.equal(s.status, 400);
    await within(s.ended, 2_000, 'the refusal ended');
    assert.equal(JSON.parse(s.text()).error.message, 'Bad Request: Mcp-Session-Id header is required');
  });

  it("refuses a GET stream of another token's session with 404", async () => {
    const theirs = await openSession(gateway.url, { token: OTHER.token });
    const s = await sse(BOT, theirs.sessionId);
    assert.equal(s.status, 404);
  });

  describe('MCP-Protocol-Version', () => {
    it('refuses an unsupported MCP-Protocol-Version with 400', async () => {
      const res = await send({ ...auth, 'mcp-session-id': session, 'mcp-protocol-version': '2024-01-01' });
      assert.equal(res.status, 400);
      assert.match(res.json.error.message, /^Bad Request: unsupported MCP-Protocol-Version/);
    });

    it('accepts requests without the header (2025-03-26 clients send none)', async () => {
      const legacy = await openSession(gateway.url, { token: BOT.token, protocolVersion: '2025-03-26' });
      const res = await postMcp(
        gateway.url,
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { token: BOT.token, sessionId: legacy.sessionId },
      );
      assert.equal(res.status, 200);
      assert.equal(res.message?.result?.tools.length, 4);
    });

    it('refuses an unsupported version on the GET stream with 400', async () => {
      const own = await openSession(gateway.url, { token: BOT.token });
      const res = await rawRequest({
        url: gateway.url,
        method: 'GET',
        headers: {
          accept: 'text/event-stream',
          authorization: `Bearer ${BOT.token}`,
          'mcp-session-id': own.sessionId,
          'mcp-protocol-version': '2024-01-01',
        },
      });
      assert.equal(res.status, 400);
      assert.equal(
        JSON.parse(res.text).error.message,
        'Bad Request: unsupported MCP-Protocol-Version (supported: 2025-11-25, 2025-06-18, 2025-03-26)',
      );
    });
  });
});
