import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { GatewayMetrics } from '../../../src/gateway/metrics';
import { sample } from '../../helpers/prometheus';
import { requiredInCi } from '../../helpers/system-tool';

function metrics(): GatewayMetrics {
  const m = new GatewayMetrics('agents', { inFlightCalls: () => 3, openStreams: () => 2 });
  m.setKnownNames(['get_customer'], ['support-bot']);
  return m;
}

describe('GatewayMetrics', () => {
  it('counts calls by declared tool, configured principal, outcome and code', async () => {
    const m = metrics();
    m.recordCall('get_customer', 'support-bot', 'refused', 'INVALID_ARGS', 0.001);
    m.recordCall('get_customer', 'support-bot', 'refused', 'INVALID_ARGS', 0.002);
    m.recordCall('get_customer', 'support-bot', 'ok', 'none', 0.01);
    const { body } = await m.exposition();
    const refused =
      'mcp_gateway_tool_calls_total{gateway="agents",tool="get_customer",principal="support-bot",outcome="refused",code="INVALID_ARGS"}';
    assert.equal(sample(body, refused), 2);
    const ok =
      'mcp_gateway_tool_calls_total{gateway="agents",tool="get_customer",principal="support-bot",outcome="ok",code="none"}';
    assert.equal(sample(body, ok), 1);
    assert.equal(
      sample(
        body,
        'mcp_gateway_tool_call_duration_seconds_count{gateway="agents",tool="get_customer",outcome="refused"}',
      ),
      2,
    );
  });

  it('bounds label values: undeclared tools and unconfigured principals share one value each', async () => {
    const m = metrics();
    for (let i = 0; i < 1000; i++) m.recordCall(`made_up_${i}`, `sub-${i}`, 'refused', 'UNKNOWN_TOOL', 0.0001);
    m.recordCall('get_customer', null, 'ok', 'none', 0.001);
    const { body } = await m.exposition();
    const series = body.split('\n').filter((l) => l.startsWith('mcp_gateway_tool_calls_total{'));
    assert.deepEqual(series, [
      'mcp_gateway_tool_calls_total{gateway="agents",tool="_unknown",principal="_other",outcome="refused",code="UNKNOWN_TOOL"} 1000',
      'mcp_gateway_tool_calls_total{gateway="agents",tool="get_customer",principal="_other",outcome="ok",code="none"} 1',
    ]);
  });

  it('follows a reload: a tool removed from the config is no longer a label value', async () => {
    const m = metrics();
    m.setKnownNames(['search_tickets'], ['support-bot']);
    m.recordCall('get_customer', 'support-bot', 'refused', 'UNKNOWN_TOOL', 0.0001);
    m.recordReload('applied');
    const { body } = await m.exposition();
    assert.match(body, /tool="_unknown",principal="support-bot"/);
    assert.equal(sample(body, 'mcp_gateway_config_reloads_total{gateway="agents",result="applied"}'), 1);
  });

  it('keeps counting into the same series across many calls and a reload that keeps the tool', async () => {
    const m = metrics();
    for (let i = 0; i < 500; i++) m.recordCall('get_customer', 'support-bot', 'ok', 'none', 0.001);
    m.setKnownNames(['get_customer', 'search_tickets'], ['support-bot']);
    for (let i = 0; i < 500; i++) m.recordCall('get_customer', 'support-bot', 'ok', 'none', 0.001);
    m.setKnownNames(['search_tickets'], []);
    m.recordCall('get_customer', 'support-bot', 'ok', 'none', 0.001);
    const { body } = await m.exposition();
    const series = body.split('\n').filter((l) => l.startsWith('mcp_gateway_tool_calls_total{'));
    assert.deepEqual(series, [
      'mcp_gateway_tool_calls_total{gateway="agents",tool="get_customer",principal="support-bot",outcome="ok",code="none"} 1000',
      'mcp_gateway_tool_calls_total{gateway="agents",tool="_unknown",principal="_other",outcome="ok",code="none"} 1',
    ]);
    assert.equal(
      sample(body, 'mcp_gateway_tool_call_duration_seconds_count{gateway="agents",tool="get_customer",outcome="ok"}'),
      1000,
    );
  });

  it('reads the in-flight and stream gauges at scrape time, and exposes build info and process metrics', async () => {
    const { body, contentType } = await metrics().exposition();
    assert.match(contentType, /^text\/plain; version=0\.0\.4/);
    assert.equal(sample(body, 'mcp_gateway_in_flight_calls{gateway="agents"}'), 3);
    assert.equal(sample(body, 'mcp_gateway_open_streams{gateway="agents"}'), 2);
    assert.match(body, /^mcp_gateway_build_info\{version="[^"]+",node="v\d+/m);
    assert.match(body, /^process_resident_memory_bytes \d+/m);
  });

  const promtool = requiredInCi('promtool', 'prometheus');
  if (promtool === undefined) {
    it('NOT RUN: needs promtool (apt-get install prometheus) to check the exposition format');
  } else {
    it('writes an exposition that promtool check metrics accepts', async () => {
      const m = metrics();
      m.recordCall('get_customer', 'support-bot', 'refused', 'INVALID_ARGS', 0.001);
      const { body } = await m.exposition();
      const checked = spawnSync(promtool, ['check', 'metrics'], { input: body, encoding: 'utf8' });
      assert.equal(checked.status, 0, `${checked.stdout}${checked.stderr}`);
    });
  }
});
