/**
 * Attack suite (issue 20): session ids. A flood of revocations by one principal never revives another
 * principal's revoked id (shares of 1,000 live entries each; over it, HTTP 429), and two gateways given the same
 * session key never accept each other's ids (the gateway's name is signed in).
 */
import assert from 'node:assert/strict';
import { type RunningGateway } from '../../src/gateway';
import { botConfig, supportDeskTools } from '../helpers/config';
import { startSilentGateway } from '../helpers/in-process-gateway';
import { initializeSession, postMcp } from '../helpers/mcp';
import { BOT, OTHER } from '../helpers/tokens';

const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const KEY = 'a'.repeat(64);

describe('attack: session ids (revocation floods, gateways sharing a key)', function () {
  this.timeout(120_000);
  const gateways: RunningGateway[] = [];
  after(async () => {
    await Promise.all(gateways.map((g) => g.close()));
  });

  const SHARE = 1_000;

  it("a flood of DELETEs by one principal gets 429 past its share and never revives the victim's revoked id", async () => {
    // a share of 1,000 (the default is larger) keeps the flood short; the bound works the same at any size
    const gateway = await startSilentGateway(
      botConfig(supportDeskTools('http://127.0.0.1:9'), { max_revoked_sessions_per_principal: SHARE }),
    );
    gateways.push(gateway);
    const victim = await initializeSession(gateway.url, '2025-11-25', BOT.token);
    const del = (token: string, sessionId: string) => postMcp(gateway.url, '', { token, sessionId, method: 'DELETE' });
    assert.equal((await del(BOT.token, victim)).status, 200);
    assert.equal((await postMcp(gateway.url, LIST, { token: BOT.token, sessionId: victim })).status, 404);

    const started = performance.now();
    const statuses = new Map<number, number>();
    let lastRefusal = '';
    const floodOne = async (): Promise<void> => {
      const own = await initializeSession(gateway.url, '2025-11-25', OTHER.token);
      const res = await del(OTHER.token, own);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status === 429) lastRefusal = res.message?.error?.message ?? '';
    };
    // 1,020 sessions opened and deleted, 20 at a time.
    for (let i = 0; i < (SHARE + 20) / 20; i++) {
      await Promise.all(Array.from({ length: 20 }, floodOne));
    }
    const seconds = (performance.now() - started) / 1000;
    assert.deepEqual(Object.fromEntries(statuses), { 200: SHARE, 429: 20 });
    assert.equal(
      lastRefusal,
      'Too Many Requests: at most 1000 ended sessions per principal are remembered until they expire; this session stays valid until then',
    );
    assert.equal(gateway.stats().revokedSessions, SHARE + 1, 'bounded in count');
    assert.ok(seconds < 60, `the flood took ${seconds.toFixed(1)} s`);
    assert.equal(
      (await postMcp(gateway.url, LIST, { token: BOT.token, sessionId: victim })).status,
      404,
      "the victim's revoked id is still revoked",
    );
    const victimNext = await initializeSession(gateway.url, '2025-11-25', BOT.token);
    assert.equal((await del(BOT.token, victimNext)).status, 200, 'the victim can still end its sessions');
  });

  it("two gateways with the same session key refuse each other's ids (404); each accepts its own", async () => {
    const env = { CDKTF_MCP_GATEWAY_SESSION_KEY: KEY };
    const support = await startSilentGateway(botConfig(supportDeskTools('http://127.0.0.1:9'), { name: 'support' }), {
      env,
    });
    const billing = await startSilentGateway(botConfig(supportDeskTools('http://127.0.0.1:9'), { name: 'billing' }), {
      env,
    });
    gateways.push(support, billing);
    const onSupport = await initializeSession(support.url, '2025-11-25', BOT.token);
    const onBilling = await initializeSession(billing.url, '2025-11-25', BOT.token);
    assert.equal((await postMcp(support.url, LIST, { token: BOT.token, sessionId: onSupport })).status, 200);
    assert.equal((await postMcp(billing.url, LIST, { token: BOT.token, sessionId: onBilling })).status, 200);
    assert.equal((await postMcp(billing.url, LIST, { token: BOT.token, sessionId: onSupport })).status, 404);
    assert.equal((await postMcp(support.url, LIST, { token: BOT.token, sessionId: onBilling })).status, 404);
    // A replica of the same gateway (same name, same key) still serves the session.
    const replica = await startSilentGateway(botConfig(supportDeskTools('http://127.0.0.1:9'), { name: 'support' }), {
      env,
    });
    gateways.push(replica);
    assert.equal((await postMcp(replica.url, LIST, { token: BOT.token, sessionId: onSupport })).status, 200);
  });
});
