import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TerraformVariable } from 'cdktf';
import { Gateway, type GatewayProps, Manifest, Service } from '../../constructs';
import { hashOf, newStack, resourcesOf, synth, thrown } from './synth';
import { tempDir } from '../helpers/temp-dir';

const auth = { tokens: [{ id: 'support-bot', sha256: hashOf('test-token-1') }] };

function replicated(props: Partial<GatewayProps>) {
  const stack = newStack();
  const key = new TerraformVariable(stack, 'session_key', { type: 'string', sensitive: true });
  const service = new Service(stack, 'lookup', {
    endpoint: { url: 'http://desk:8080/lookup', method: 'GET' },
    input: {},
  });
  new Gateway(stack, 'agents', { services: [service], auth, replicas: 3, sessionKey: key.stringValue, ...props });
  return stack;
}

describe('a replicated gateway on several nodes: registry and placement', () => {
  it('spreads the replicas over nodes by default and runs the image built on the manager', () => {
    const json = synth(replicated({}));
    const [service] = resourcesOf(json, 'docker_service');
    assert.deepEqual(service.task_spec.placement, { prefs: ['spread=node.id'] });
    assert.match(service.task_spec.container_spec.image, /docker_image\./);
    assert.deepEqual(resourcesOf(json, 'docker_registry_image'), []);
  });

  it('pushes the image to the registry and runs it by digest, with the credentials and the placement given', () => {
    const stack = newStack();
    const password = new TerraformVariable(stack, 'registry_password', { type: 'string', sensitive: true });
    const key = new TerraformVariable(stack, 'session_key', { type: 'string', sensitive: true });
    const service = new Service(stack, 'lookup', {
      endpoint: { url: 'http://desk:8080/lookup', method: 'GET' },
      input: {},
    });
    new Gateway(stack, 'agents', {
      services: [service],
      auth,
      replicas: 3,
      sessionKey: key.stringValue,
      registry: { address: 'registry.internal:5000', username: 'ci', password: password.stringValue },
      placement: { constraints: ['node.labels.mcp == true'], maxReplicasPerNode: 2 },
    });
    const json = synth(stack);
    const [image] = resourcesOf(json, 'docker_image');
    assert.match(image.name, /^registry\.internal:5000\/cdktf-mcp-gateway-test:/);
    const [pushed] = resourcesOf(json, 'docker_registry_image');
    assert.equal(pushed.name, image.name);
    assert.equal(pushed.keep_remotely, true);
    assert.deepEqual(pushed.auth_config, {
      address: 'https://registry.internal:5000',
      username: 'ci',
      password: '${var.registry_password}',
    });
    const [swarm] = resourcesOf(json, 'docker_service');
    assert.match(
      swarm.task_spec.container_spec.image,
      /^registry\.internal:5000\/cdktf-mcp-gateway-test@\$\{docker_registry_image\.\S+\.sha256_digest\}$/,
    );
    assert.deepEqual(swarm.task_spec.placement, {
      constraints: ['node.labels.mcp == true'],
      max_replicas: 2,
      prefs: ['spread=node.id'],
    });
    assert.deepEqual(swarm.auth, {
      server_address: 'registry.internal:5000',
      username: 'ci',
      password: '${var.registry_password}',
    });
  });

  const refusals: [string, Partial<GatewayProps>, RegExp][] = [
    [
      'a registry with a scheme',
      { registry: { address: 'https://registry:5000' } },
      /registry\.address \('https:\/\/registry:5000'\) must be host or host:port/,
    ],
    [
      'a literal registry password',
      { registry: { address: 'r:5000', username: 'u', password: 'hunter2' } },
      /registry\.password must be a reference to a sensitive value/,
    ],
    [
      'a per-node limit of zero',
      { placement: { maxReplicasPerNode: 0 } },
      /placement\.maxReplicasPerNode \(0\) must be a positive integer/,
    ],
  ];
  for (const [what, props, message] of refusals) {
    it(`refuses ${what}`, () => {
      const err = thrown(() => replicated(props));
      assert.match(err.message, message);
      assert.doesNotMatch(err.message, /hunter2/);
    });
  }

  it('refuses a registry on a single-container gateway', () => {
    const stack = newStack();
    const service = new Service(stack, 'lookup', {
      endpoint: { url: 'http://desk:8080/lookup', method: 'GET' },
      input: {},
    });
    assert.match(
      thrown(() => new Gateway(stack, 'agents', { services: [service], auth, registry: { address: 'r:5000' } }))
        .message,
      /Gateway 'agents': registry applies to replicas only: set 'replicas', or drop it/,
    );
  });
});

describe('registry and placement in the manifest', () => {
  it('reads them, the registry password as a sensitive variable', () => {
    const dir = tempDir('registry-manifest-');
    const file = path.join(dir, 'desk.yaml');
    fs.writeFileSync(
      file,
      `services:
  lookup:
    endpoint: { url: "http://desk:8080/lookup", method: GET }
gateways:
  agents:
    services: [lookup]
    auth: { tokens: [{ id: bot, sha256: "${hashOf('t')}" }] }
    replicas: 3
    session_key: { variable: session_key }
    registry: { address: "registry.internal:5000", username: ci, password: { variable: registry_password }, insecure: true }
    placement: { constraints: ["node.labels.mcp == true"], max_replicas_per_node: 2 }
`,
    );
    const stack = newStack();
    new Manifest(stack, 'm', { path: file });
    const json = synth(stack);
    const [swarm] = resourcesOf(json, 'docker_service');
    assert.deepEqual(swarm.task_spec.placement, {
      constraints: ['node.labels.mcp == true'],
      max_replicas: 2,
      prefs: ['spread=node.id'],
    });
    assert.equal(swarm.auth.password, '${var.registry_password}');
    assert.equal(json.variable.registry_password.sensitive, true);
    const [pushed] = resourcesOf(json, 'docker_registry_image');
    assert.equal(pushed.auth_config.address, 'http://registry.internal:5000');
  });
});
