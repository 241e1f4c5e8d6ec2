import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Testing } from 'cdktf';
import { KubernetesExampleStack } from '../../examples/kubernetes/main';
import { hashOf, type Json, resourcesOf } from '../constructs/synth';

const EXAMPLE_DIR = path.join(__dirname, '..', '..', 'examples', 'kubernetes');
const BASE_ENV = { AGENT_TOKEN_SHA256: hashOf('agent-token'), GATEWAY_IMAGE: 'local/mcp-gateway:1' };

function synth(env: Record<string, string>): Json {
  return JSON.parse(Testing.synth(new KubernetesExampleStack(Testing.app(), 'kubernetes', env), true));
}

function gatewayConfig(json: Json): Json {
  const map = resourcesOf(json, 'kubernetes_config_map_v1').find((c: Json) => c.metadata.name === 'orders-config');
  return JSON.parse(map.data['gateway.json']);
}

describe('examples/kubernetes', () => {
  it('is one cdktf app with one stack, run by `cdktf deploy` in its folder', () => {
    const cdktf = JSON.parse(fs.readFileSync(path.join(EXAMPLE_DIR, 'cdktf.json'), 'utf8'));
    assert.match(cdktf.app, /main\.ts$/);
    const main = fs.readFileSync(path.join(EXAMPLE_DIR, 'main.ts'), 'utf8');
    assert.equal(main.match(/new KubernetesExampleStack\(/g)?.length, 1);
  });

  it('synthesizes offline: three pods behind node port 30080, validating, with a GET tool of required strings', () => {
    const json = synth(BASE_ENV);
    const config = gatewayConfig(json);
    assert.equal(config.gateway.validate_input, true);
    const [first] = config.tools;
    assert.equal(first.backend.method, 'GET');
    assert.ok(first.input_schema.required.length > 0);
    for (const name of first.input_schema.required) assert.equal(first.input_schema.properties[name].type, 'string');
    const gateway = resourcesOf(json, 'kubernetes_deployment_v1').find((d: Json) => d.metadata.name === 'orders');
    assert.equal(gateway.spec.replicas, '3');
    const service = resourcesOf(json, 'kubernetes_service_v1').find((s: Json) => s.metadata.name === 'orders');
    assert.equal(service.spec.port[0].node_port, 30080);
    assert.equal(service.spec.external_traffic_policy, 'Local');
    assert.equal(json.variable.backend_key.sensitive, true);
  });

  it("runs its backend on the gateway's image with its code mounted, so no other image is needed", () => {
    const json = synth(BASE_ENV);
    const backend = resourcesOf(json, 'kubernetes_daemon_set_v1').find((d: Json) => d.metadata?.name === 'orders-api');
    const c = backend.spec.template.spec.container[0];
    assert.equal(c.image, 'local/mcp-gateway:1');
    assert.equal(c.image_pull_policy, 'Never', 'GATEWAY_IMAGE is never pulled');
    assert.deepEqual(c.command, ['node', '/backend/server.js']);
    const code = resourcesOf(json, 'kubernetes_config_map_v1').find(
      (m: Json) => m.metadata?.name === 'orders-api-code',
    );
    assert.match(code.data['server.js'], /createServer/);
    assert.doesNotMatch(code.data['server.js'], /(^|[^$])\$\{/, "a file's ${ is escaped for Terraform");
  });

  it('reads its settings: VALIDATE_INPUT=false, WITH_SHIPPING=true, REGISTRY instead of GATEWAY_IMAGE', () => {
    const off = gatewayConfig(synth({ ...BASE_ENV, VALIDATE_INPUT: 'false', WITH_SHIPPING: 'true' }));
    assert.equal(off.gateway.validate_input, false);
    assert.deepEqual(
      off.tools.map((t: Json) => t.name),
      ['get_order', 'track_shipment'],
    );
    const pushed = synth({ AGENT_TOKEN_SHA256: BASE_ENV.AGENT_TOKEN_SHA256, REGISTRY: '127.0.0.1:15000' });
    assert.equal(resourcesOf(pushed, 'docker_registry_image').length, 1);
  });

  it('with STORE_IMAGE, runs a store in the cluster that the pods share, with a limit on track_shipment', () => {
    const json = synth({ ...BASE_ENV, WITH_SHIPPING: 'true', STORE_IMAGE: 'redis:7.4-alpine' });
    const config = gatewayConfig(json);
    assert.deepEqual(config.gateway.store, {
      url: 'redis://limit-store.mcp-store-limit-store.svc.cluster.local:6379',
      password: { secret: 'MCP_LIMIT_STORE_PASSWORD' },
    });
    assert.deepEqual(config.gateway.rate_limits, [{ tool: 'track_shipment', calls: 10, per: 'minute' }]);
    const store = resourcesOf(json, 'kubernetes_deployment_v1').find((d: Json) => d.metadata.name === 'limit-store');
    assert.equal(store.spec.template.spec.container[0].image, 'redis:7.4-alpine');
    assert.equal(json.variable.store_password.sensitive, true);
    const backend = resourcesOf(json, 'kubernetes_daemon_set_v1').find((d: Json) => d.metadata?.name === 'orders-api');
    assert.deepEqual(
      backend.spec.strategy.rolling_update,
      { max_surge: '1', max_unavailable: '0' },
      "a node's new backend pod is ready before its old one stops",
    );
  });

  it('with DASHBOARD_TOKEN_SHA256 too, runs the audit dashboard in the cluster, reading the store', () => {
    const json = synth({
      ...BASE_ENV,
      STORE_IMAGE: 'redis:7.4-alpine',
      DASHBOARD_TOKEN_SHA256: hashOf('ops-token'),
    });
    const dashboard = resourcesOf(json, 'kubernetes_deployment_v1').find((d: Json) => d.metadata.name === 'audit');
    assert.equal(dashboard.metadata.namespace, 'mcp-dashboard-audit');
    assert.equal(dashboard.spec.template.spec.container[0].image, 'local/mcp-gateway:1');
    assert.throws(
      () => synth({ ...BASE_ENV, DASHBOARD_TOKEN_SHA256: hashOf('ops-token') }),
      /DASHBOARD_TOKEN_SHA256 needs STORE_IMAGE/,
    );
  });

  it('refuses a missing token hash, both or neither image setting, and a flag that is not true or false', () => {
    assert.throws(() => synth({ GATEWAY_IMAGE: 'x:1' }), /AGENT_TOKEN_SHA256 is not set/);
    assert.throws(() => synth({ AGENT_TOKEN_SHA256: BASE_ENV.AGENT_TOKEN_SHA256 }), /set one of REGISTRY=host:port/);
    assert.throws(() => synth({ ...BASE_ENV, REGISTRY: 'r:5000' }), /set one of REGISTRY=host:port/);
    assert.throws(() => synth({ ...BASE_ENV, VALIDATE_INPUT: 'no' }), /VALIDATE_INPUT=no: use VALIDATE_INPUT=true/);
  });

  it('names its settings in the README as NAME=value lines', () => {
    const readme = fs.readFileSync(path.join(EXAMPLE_DIR, 'README.md'), 'utf8');
    for (const line of [
      'VALIDATE_INPUT=true',
      'VALIDATE_INPUT=false',
      'TF_VAR_backend_key=',
      'AGENT_TOKEN_SHA256=',
      'REGISTRY=',
      'GATEWAY_IMAGE=',
      'STORE_IMAGE=',
      'TF_VAR_store_password=',
      'DASHBOARD_TOKEN_SHA256=',
    ]) {
      assert.ok(readme.includes(line), `README.md names ${line}`);
    }
  });
});
