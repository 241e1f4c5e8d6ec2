import assert from 'node:assert/strict';
import type { RunningGateway } from '../../../../src/gateway';
import { startFakeService, type FakeService } from '../../../helpers/backend';
import { botConfig, supportDeskTools } from '../../../helpers/config';
import { within } from '../../../helpers/eventually';
import { openStream, rawRequest, type OpenStream } from '../../../helpers/http';
import { startSilentGateway } from '../../../helpers/in-process-gateway';
import { initializeSession, openSession } from '../../../helpers/mcp';
import { BOT, OTHER } from '../../../helpers/tokens';

describe('sessions: signed ids issued by initialize, bound to their token, ended by DELETE, expired after issue', () => {
  let service: FakeService;
  let gateway: RunningGateway;
  const streams: OpenStream[] = [];
  const del = (sessionId: string, token = BOT.token) =>
    rawRequest({
      url: gateway.url,
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}`, 'mcp-session-id': sessionId },
    });

  before(async () => {
    service = await startFakeService();
    gateway = await startSilentGateway(botConfig(supportDeskTools(service.url)));
  });
  after(async () => {
    for (const s of streams) s.destroy();
    await gateway.close();
    await service.close();
  });

  it('issues a distinct signed Mcp-Session-Id (payload.mac, base64url) per initialize and advertises tools.listChanged', async () => {
    const a = await openSession(gateway.url, { token: BOT.token });
    const b = await openSession(gateway.url, { token: BOT.token });
    assert.match(a.sessionId, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    assert.notEqual(a.sessionId, b.sessionId);
    assert.deepEqual(a.initializeResult.capabilities, { tools: { listChanged: true } });
  });

  it('ends a session on DELETE; later requests get 404', async () => {
    const own = await initializeSession(gateway.url);
    const list = { authorization: `Bearer ${BOT.token}`, 'content-type': 'application/json', 'mcp-session-id': own };
    assert.equal((await del(own)).status, 200);
    const after = await rawRequest({
      url: gateway.url,
      headers: list,
      body: '{"jsonrpc":"2.0","id":7,"method":"tools/list"}',
    });
    assert.equal(after.status, 404);
  });

  it('ends the session on DELETE: its open stream ends and later requests get 404', async () => {
    const session = await openSession(gateway.url, { token: BOT.token });
    const s = await openStream(gateway.url, {
      accept: 'text/event-stream',
      authorization: `Bearer ${BOT.token}`,
      'mcp-session-id': session.sessionId,
    });
    streams.push(s);
    assert.equal((await del(session.sessionId)).status, 200);
    await within(s.ended, 2_000, 'the stream ended after DELETE');
    const after = await session.request('tools/list');
    assert.equal(after.status, 404);
    assert.equal(after.message?.error?.message, 'Session not found');
  });

  it('refuses a DELETE with another token (404) and keeps the session', async () => {
    const session = await openSession(gateway.url, { token: BOT.token });
    assert.equal((await del(session.sessionId, OTHER.token)).status, 404);
    assert.equal((await session.request('ping')).status, 200);
  });

  it('expires a session session_ttl_ms after initialize issued it (404), in use or not', async () => {
    const short = await startSilentGateway(botConfig(supportDeskTools(service.url), { session_ttl_ms: 400 }));
    try {
      const opened = Date.now();
      const busy = await openSession(short.url, { token: BOT.token });
      assert.equal((await busy.request('ping')).status, 200, 'a fresh session answers');
      // Used every 50 ms: a signed id still expires at issue + ttl (nothing records its use). Bounded: 60 tries.
      let status = 200;
      for (let i = 0; i < 60 && status === 200; i++) {
        await new Promise((r) => setTimeout(r, 50));
        status = (await busy.request('ping')).status;
      }
      assert.equal(status, 404);
      assert.ok(Date.now() - opened >= 400, 'not before session_ttl_ms');
      const res = await busy.request('tools/list');
      assert.equal(res.message?.error?.message, 'Session not found');
    } finally {
      await short.close();
    }
  });
});
