// Synthesizes the starter stack in memory (cdktf's Testing) and checks what it deploys: the gateway container, its
// port and image, the config summary a plan shows, and the gateway's config itself (gateway.config()).
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { Testing } from 'cdktf';
import { StarterStack } from './main';

test('the starter synthesizes a gateway with the greet tool, a built backend and a loopback port', () => {
  const stack = new StarterStack(Testing.app(), 'starter');
  const json = JSON.parse(Testing.synth(stack, true));
  const containers = Object.values<{
    name: string;
    ports?: unknown[];
  }>(json.resource.docker_container);
  const gateway = containers.find((c) => c.name === 'starter-greeter');
  assert.ok(gateway, 'no gateway container');
  // what `cdktf diff` shows a reviewer; the config file itself never appears in a plan
  assert.deepEqual(json.output.gateway_greeter_config.value.tools, ['greet']);
  const config = stack.gateway.config();
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
