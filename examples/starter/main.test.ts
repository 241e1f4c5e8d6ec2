// Synthesizes the starter stack in memory (cdktf's Testing) and checks what the gateway gets: its container, and the
// config handed to it by its config container (a sensitive upload, so plans do not print it: base64 in sensitive()).
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { Testing } from 'cdktf';
import { StarterStack } from './main';

test('the starter synthesizes a gateway with the greet tool, a built backend and a loopback port', () => {
  const json = JSON.parse(Testing.synth(new StarterStack(Testing.app(), 'starter'), true));
  const containers = Object.values<{
    name: string;
    labels?: { label: string; value: string }[];
    upload?: { file: string; content_base64?: string }[];
    ports?: unknown[];
  }>(json.resource.docker_container);
  const gateway = containers.find((c) => c.name === 'starter-greeter');
  assert.ok(gateway, 'no gateway container');
  const handoff = containers.find((c) => c.labels?.some((l) => l.label === 'cdktf-mcp-gateway.config'));
  const upload = handoff?.upload?.find((u) => u.file === '/etc/cdktf-mcp-gateway/gateway.json');
  const base64 = /^\$\{sensitive\("([A-Za-z0-9+/=]*)"\)\}$/.exec(upload?.content_base64 ?? '');
  assert.ok(base64, 'no config upload');
  const config = JSON.parse(Buffer.from(base64[1], 'base64').toString('utf8'));
  assert.deepEqual(
    config.tools.map((t: { name: string }) => t.name),
    ['greet'],
  );
  assert.deepEqual(config.tools[0].backend.headers, { 'X-Api-Key': { secret: 'GREETER_API_KEY' } });
  assert.deepEqual(gateway.ports, [{ internal: 8080, external: 8080, ip: '127.0.0.1' }]);
  const images = Object.values<{ name: string; build?: unknown }>(json.resource.docker_image);
  assert.ok(
    images.some((i) => i.name.startsWith('starter-greeter:') && i.build !== undefined),
    'no backend image build',
  );
  assert.equal(json.output.gateway_greeter_url.value, 'http://127.0.0.1:8080/mcp');
});
