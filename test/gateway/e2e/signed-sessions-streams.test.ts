/**
 * Notification streams per principal (docs/gateway.md "Limits per principal", issue 10 item 6) on `serve`: 2025 GET
 * streams and 2026-07-28 `subscriptions/listen` streams count together against `max_streams_per_principal`
 * (default 16; the 17th gets HTTP 429 with a JSON-RPC error body), and a SIGHUP reload that removes a token closes
 * that principal's streams before `notifications/tools/list_changed` goes to everyone else, in both eras.
 */
import assert from 'node:assert/strict';
import { startFakeService, type FakeService } from '../../helpers/backend';
import { gatewayConfig, supportDeskTools } from '../../helpers/config';
import { eventually, within } from '../../helpers/eventually';
import { killAllGatewayProcesses, startGatewayProcess, type GatewayProcess } from '../../helpers/gateway-process';
import { openStream, type OpenStream } from '../../helpers/http';
import { initializeSession } from '../../helpers/mcp';
import { openListen, sseMessages } from '../../helpers/modern';
import { BOT, OTHER, type TestToken } from '../../helpers/tokens';

describe('notification streams per principal (serve)', function () {
  this.timeout(60_000);
  let service: FakeService;
  let gw: GatewayProcess;
  const streams: OpenStream[] = [];
  const track = (s: OpenStream): OpenStream => {
    streams.push(s);
    return s;
  };
  const getStream = async (t: TestToken): Promise<OpenStream> => {
    const session = await initializeSession(gw.url, '2025-11-25', t.token);
    return track(
      await openStream(gw.url, {
        accept: 'text/event-stream',
        authorization: `Bearer ${t.token}`,
        'mcp-session-id': session,
      }),
    );
  };
  const listen = async (t: TestToken, id: string | number): Promise<OpenStream> =>
    track(await openListen(gw.url, t.token, id));

  before(async () => {
    service = await startFakeService();
    gw = await startGatewayProcess({
      config: gatewayConfig({ tokens: [BOT, OTHER], tools: supportDeskTools(service.url) }),
    });
  });
  after(async () => {
    for (const s of streams) s.destroy();
    await killAllGatewayProcesses();
    await service.close();
  });

  it('caps GET and listen streams together at 16 per principal: the 17th gets 429 with a JSON-RPC error', async () => {
    const mine: OpenStream[] = [];
    for (let i = 0; i < 8; i++) mine.push(await getStream(BOT), await listen(BOT, `cap-${i}`));
    assert.deepEqual(
      mine.map((s) => s.status),
      Array<number>(16).fill(200),
    );

    const overGet = await getStream(BOT);
    assert.equal(overGet.status, 429);
    await within(overGet.ended, 2_000, 'the refusal ended');
    const message = 'Too Many Requests: at most 16 open notification streams per principal; close one first';
    assert.deepEqual(JSON.parse(overGet.text()), { jsonrpc: '2.0', id: null, error: { code: -32603, message } });

    const overListen = await listen(BOT, 'one-too-many');
    assert.equal(overListen.status, 429);
    await within(overListen.ended, 2_000, 'the refusal ended');
    assert.deepEqual(JSON.parse(overListen.text()), {
      jsonrpc: '2.0',
      id: 'one-too-many',
      error: { code: -32603, message },
    });

    // Another principal is not affected; closing one stream frees a slot.
    assert.equal((await listen(OTHER, 'other-ok')).status, 200);
    mine[0].destroy();
    const again = await eventually(
      async () => {
        const s = await getStream(BOT);
        if (s.status === 200) return s;
        s.destroy();
        return false;
      },
      { timeoutMs: 5_000 },
    );
    assert.equal(again.status, 200);
    for (const s of [...mine, again]) s.destroy();
  });

  it('a SIGHUP that removes a token closes its GET and listen streams; the others get list_changed in both eras', async () => {
    // Wait until the previous test's streams are gone server-side (bounded).
    await new Promise((r) => setTimeout(r, 200));
    const otherGet = await getStream(OTHER);
    const otherListen = await listen(OTHER, 'other-sub');
    const botGet = await getStream(BOT);
    const botListen = await listen(BOT, 'bot-sub');
    for (const s of [otherGet, otherListen, botGet, botListen]) assert.equal(s.status, 200);
    await otherListen.waitFor(/acknowledged/);
    await botListen.waitFor(/acknowledged/);

    const offset = gw.outputOffset();
    gw.writeConfig(gatewayConfig({ tokens: [BOT], tools: supportDeskTools(service.url) }));
    gw.signal('SIGHUP');
    await gw.waitForOutput(/"msg":"config reloaded"/, 5_000, offset);

    await within(otherGet.ended, 5_000, "the removed token's GET stream ended");
    await within(otherListen.ended, 5_000, "the removed token's listen stream ended");
    await botGet.waitFor(/notifications\/tools\/list_changed/, 5_000);
    await botListen.waitFor(/notifications\/tools\/list_changed/, 5_000);
    assert.doesNotMatch(otherGet.text(), /list_changed/);
    assert.deepEqual(
      sseMessages(otherListen.text()).map((m) => m.method),
      ['notifications/subscriptions/acknowledged'],
    );
    assert.deepEqual(sseMessages(botListen.text()).at(-1), {
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'bot-sub' } },
    });
    assert.match(gw.stdout().slice(offset), /"msg":"streams of removed tokens closed","streams":\d+/);
    // The removed token is refused from now on.
    const refused = await openListen(gw.url, OTHER.token, 'late');
    track(refused);
    assert.equal(refused.status, 401);
  });
});
