/**
 * Rate limits without a store (each process counts its own fixed windows), over the wire: the refusal in both
 * eras and in a batch, what `/readyz` and `/metrics` say, and a backend's own 429 staying a tool error.
 */
import { strict as assert } from 'node:assert';
import { LimitRules } from '../../../src/gateway/limits';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { botConfig, tool } from '../../helpers/config';
import { startInProcessGateway, type InProcessGateway } from '../../helpers/in-process-gateway';
import { initializeSession, postJson, postMcp, toolsCallRequest } from '../../helpers/mcp';
import { modernRequest, postModern } from '../../helpers/modern';
import { BOT, OTHER } from '../../helpers/tokens';

describe('LimitRules', () => {
  it('gives each tool the limits of every tool and its own, each naming itself', () => {
    const rules = new LimitRules([
      { calls: 60, per: 'minute' },
      { calls: 1, per: 'second', tool: 'create_ticket' },
      { calls: 10000, per: 'day' },
    ]);
    assert.deepEqual(
      rules.forTool('create_ticket').map((l) => l.message),
      [
        'Rate limit reached: 60 calls per minute',
        'Rate limit reached: 10000 calls per day',
        'Rate limit reached: 1 call per second for create_ticket',
      ],
    );
    assert.deepEqual(
      rules.forTool('lookup').map((l) => l.id),
      ['minute:*', 'day:*'],
    );
    assert.equal(new LimitRules([]).any, false);
    assert.deepEqual(new LimitRules([{ calls: 2, per: 'hour', tool: 'a' }]).forTool('b'), []);
  });
});

describe('rate limits without a store', function () {
  this.timeout(20_000);
  let backend: TestBackend;
  let gw: InProcessGateway;

  before(async () => {
    backend = await startBackend({
      respond: (r) =>
        r.url.startsWith('/busy')
          ? { status: 429, body: '{"error":"slow down"}' }
          : { status: 200, body: '{"ok":true}' },
    });
    gw = await startInProcessGateway(
      botConfig(
        [
          tool('lookup', `${backend.url}/lookup`),
          tool('busy', `${backend.url}/busy`),
          tool('other', `${backend.url}/other`),
        ],
        {
          rate_limits: [{ calls: 3, per: 'hour', tool: 'lookup' }],
          metrics: true,
        },
      ),
    );
  });
  after(async () => {
    await gw?.close();
    await backend?.close();
  });

  it('counts in the process, says so in /readyz, and refuses with 429 and -32023 in both eras', async () => {
    // the hour's window must not end during the test
    if (3_600_000 - (Date.now() % 3_600_000) < 10_000) await new Promise((r) => setTimeout(r, 11_000));
    const ready = (await (await fetch(gw.url.replace('/mcp', '/readyz'))).json()) as Record<string, unknown>;
    assert.equal(ready.rate_limits, 'per_replica');
    assert.equal(ready.store, undefined);
    const session = await initializeSession(gw.url, '2025-11-25');
    for (let i = 0; i < 3; i++) {
      const res = await postJson(gw.url, { ...toolsCallRequest('lookup', {}), id: i }, { 'mcp-session-id': session });
      assert.equal(res.status, 200);
      assert.equal(res.json.error, undefined);
    }
    const modern = await postModern(
      gw.url,
      modernRequest('tools/call', { name: 'lookup', arguments: {} }, 'm1'),
      BOT.token,
    );
    assert.equal(modern.status, 429);
    const body = JSON.parse(modern.text);
    assert.equal(body.id, 'm1');
    assert.equal(body.error.code, -32023);
    assert.equal(body.error.message, 'Rate limit reached: 3 calls per hour for lookup');
    assert.deepEqual(Object.keys(body.error.data).sort(), ['limit', 'remaining', 'retryAfterMs']);
    assert.ok(Number(modern.headers.get('retry-after')) >= 1);
    // other tools and other principals pass
    assert.equal((await postJson(gw.url, toolsCallRequest('other', {}), { 'mcp-session-id': session })).status, 200);
    const otherSession = await initializeSession(gw.url, '2025-11-25', OTHER.token);
    const other = await postMcp(gw.url, toolsCallRequest('lookup', {}), {
      token: OTHER.token,
      sessionId: otherSession,
      protocolVersion: '2025-11-25',
    });
    assert.equal(other.status, 200);
    assert.equal(other.message?.error, undefined);
    // metrics count the refusals per tool and principal
    const metrics = await (
      await fetch(gw.url.replace('/mcp', '/metrics'), { headers: { authorization: `Bearer ${BOT.token}` } })
    ).text();
    assert.match(
      metrics,
      /mcp_gateway_tool_calls_total\{gateway="test",tool="lookup",principal="bot",outcome="refused",code="RATE_LIMITED"\} 1/,
    );
    assert.doesNotMatch(metrics, /^mcp_gateway_limit_store_up\{/m); // no store, no sample
  });

  it('answers a limited call in a 2025-03-26 batch in its place, with its data, while the others run', async () => {
    const session = await initializeSession(gw.url, '2025-03-26');
    const batch = [
      { ...toolsCallRequest('lookup', {}), id: 'limited' },
      { ...toolsCallRequest('other', {}), id: 'fine' },
    ];
    const res = await postJson(gw.url, batch, { 'mcp-session-id': session });
    assert.equal(res.status, 200);
    const limited = res.json.find((m: { id: string }) => m.id === 'limited');
    assert.equal(limited.error.code, -32023);
    assert.equal(limited.error.data.limit, 3);
    assert.ok(res.json.find((m: { id: string }) => m.id === 'fine').result);
  });

  it('counts a refused call against none of its limits (in the process)', async () => {
    const local = await startInProcessGateway(
      botConfig([tool('a', `${backend.url}/a`), tool('b', `${backend.url}/b`)], {
        rate_limits: [
          { calls: 2, per: 'hour' },
          { calls: 1, per: 'hour', tool: 'a' },
        ],
      }),
    );
    try {
      if (3_600_000 - (Date.now() % 3_600_000) < 5_000) await new Promise((r) => setTimeout(r, 6_000));
      const session = await initializeSession(local.url, '2025-11-25');
      const status = async (name: string) =>
        (await postJson(local.url, toolsCallRequest(name, {}), { 'mcp-session-id': session })).status;
      assert.deepEqual(
        [await status('a'), await status('a'), await status('a'), await status('b'), await status('b')],
        [200, 429, 429, 200, 429],
      );
    } finally {
      await local.close();
    }
  });

  it("keeps a backend's own 429 an isError tool result", async () => {
    const session = await initializeSession(gw.url, '2025-11-25');
    const res = await postJson(gw.url, toolsCallRequest('busy', {}), { 'mcp-session-id': session });
    assert.equal(res.status, 200);
    assert.equal(res.json.error, undefined);
    assert.equal(res.json.result.isError, true);
    assert.match(res.json.result.content[0].text, /429/);
  });
});
