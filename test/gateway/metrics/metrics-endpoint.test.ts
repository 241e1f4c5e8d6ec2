/**
 * docs/gateway.md: `/metrics` of a running gateway, counted from real tools/call requests; behind the gateway's
 * authentication on its own port, open on a port of its own; scraped by a real Prometheus where one is installed.
 */
import * as assert from 'node:assert/strict';
import type { RunningGateway } from '../../../src/gateway';
import { startFakeService, type FakeService } from '../../helpers/backend';
import { botConfig, supportDeskTools } from '../../helpers/config';
import { eventually } from '../../helpers/eventually';
import { freePort } from '../../helpers/free-port';
import { startSilentGateway } from '../../helpers/in-process-gateway';
import { initializeSession, rawCall } from '../../helpers/mcp';
import { sample, startPrometheus } from '../../helpers/prometheus';
import { requiredInCi } from '../../helpers/system-tool';
import { BOT } from '../../helpers/tokens';

const REFUSED =
  'mcp_gateway_tool_calls_total{gateway="test",tool="get_customer",principal="bot",outcome="refused",code="INVALID_ARGS"}';

describe('/metrics of a running gateway', function () {
  this.timeout(60_000);
  let service: FakeService;
  let gateway: RunningGateway;
  let metricsUrl: string;

  before(async () => {
    service = await startFakeService();
    gateway = await startSilentGateway(botConfig(supportDeskTools(service.url), { metrics: true }));
    metricsUrl = gateway.url.replace(/\/mcp$/, '/metrics');
    const session = await initializeSession(gateway.url);
    const auth = { authorization: `Bearer ${BOT.token}` };
    for (let i = 0; i < 3; i++) await rawCall(gateway.url, session, 'get_customer', { customer_id: 42 }, auth);
    await rawCall(gateway.url, session, 'get_customer', { customer_id: 'C-0001' }, auth);
    await rawCall(gateway.url, session, 'no_such_tool_1', {}, auth);
    await rawCall(gateway.url, session, 'no_such_tool_2', {}, auth);
  });

  after(async () => {
    await gateway?.close();
    await service?.close();
  });

  it('refuses a scrape without a valid token (401), as /mcp does', async () => {
    assert.equal((await fetch(metricsUrl)).status, 401);
    assert.equal((await fetch(metricsUrl, { headers: { authorization: 'Bearer wrong' } })).status, 401);
  });

  it('counts refused, ok and unknown-tool calls with bounded labels', async () => {
    const res = await fetch(metricsUrl, { headers: { authorization: `Bearer ${BOT.token}` } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const body = await res.text();
    assert.equal(sample(body, REFUSED), 3);
    const ok =
      'mcp_gateway_tool_calls_total{gateway="test",tool="get_customer",principal="bot",outcome="ok",code="none"}';
    assert.equal(sample(body, ok), 1);
    const unknown =
      'mcp_gateway_tool_calls_total{gateway="test",tool="_unknown",principal="bot",outcome="refused",code="UNKNOWN_TOOL"}';
    assert.equal(sample(body, unknown), 2);
    assert.doesNotMatch(body, /no_such_tool/);
    assert.doesNotMatch(body, /C-0001|"42"/, 'no argument values');
  });

  it('counts reloads, applied and refused', async () => {
    await gateway.reload(botConfig(supportDeskTools(service.url), { metrics: true }));
    await assert.rejects(gateway.reload({ version: 1 } as never));
    const body = await (await fetch(metricsUrl, { headers: { authorization: `Bearer ${BOT.token}` } })).text();
    assert.equal(sample(body, 'mcp_gateway_config_reloads_total{gateway="test",result="applied"}'), 1);
    assert.equal(sample(body, 'mcp_gateway_config_reloads_total{gateway="test",result="refused"}'), 1);
  });

  it('is not served when metrics are off', async () => {
    const quiet = await startSilentGateway(botConfig(supportDeskTools(service.url)));
    try {
      const res = await fetch(quiet.url.replace(/\/mcp$/, '/metrics'), {
        headers: { authorization: `Bearer ${BOT.token}` },
      });
      assert.equal(res.status, 404);
    } finally {
      await quiet.close();
    }
  });

  it('is served without a token on a port of its own (metrics: { port }), and not on the gateway port', async () => {
    const port = await freePort();
    const separate = await startSilentGateway(botConfig(supportDeskTools(service.url), { metrics: { port } }));
    try {
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      assert.equal(res.status, 200);
      assert.match(await res.text(), /^# HELP mcp_gateway_tool_calls_total/m);
      const onGatewayPort = await fetch(separate.url.replace(/\/mcp$/, '/metrics'), {
        headers: { authorization: `Bearer ${BOT.token}` },
      });
      assert.equal(onGatewayPort.status, 404);
    } finally {
      await separate.close();
    }
  });

  const prometheus = requiredInCi('prometheus', 'prometheus');
  if (prometheus === undefined) {
    it('NOT RUN: needs prometheus (apt-get install prometheus) to scrape the gateway for real');
  } else {
    it('is scraped by a real Prometheus, whose API then holds the refused calls with their labels', async () => {
      const address = new URL(gateway.url).host;
      const server = await startPrometheus(prometheus, { address, bearerToken: BOT.token });
      try {
        const result = await eventually(
          async () => {
            const found = await server.query('mcp_gateway_tool_calls_total{outcome="refused",code="INVALID_ARGS"}');
            return found.length > 0 ? found : false;
          },
          { timeoutMs: 30_000, intervalMs: 500, what: 'Prometheus to scrape the gateway' },
        );
        assert.equal(result.length, 1);
        const { metric, value } = result[0];
        assert.equal(metric.gateway, 'test');
        assert.equal(metric.tool, 'get_customer');
        assert.equal(metric.principal, 'bot');
        assert.equal(Number(value[1]), 3);
      } finally {
        await server.close();
      }
    });
  }
});
