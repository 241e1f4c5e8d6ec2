/**
 * A `LimitStore` with `kubernetes`: the store deployed in the cluster beside gateways deployed there, read from the
 * synthesized objects, and what it refuses.
 */
import * as assert from 'node:assert/strict';
import { TerraformStack, Testing, TerraformVariable } from 'cdktf';
import { Gateway, KubernetesCluster, LimitStore, type LimitStoreProps, Service } from '../../../constructs';
import { hashOf, type Json, resourcesOf, synth, thrown, warningsOf } from '../synth';

const auth = { tokens: [{ id: 'agent', sha256: hashOf('test-token-1') }] };

/** A stack with the cluster, a store on it (props override) and a gateway `orders` on it using the store. */
function storeStack(
  storeProps: Partial<LimitStoreProps> = {},
  gateway: 'kubernetes' | 'docker' = 'kubernetes',
): { stack: TerraformStack; store: LimitStore } {
  const stack = new TerraformStack(Testing.app(), 'k8s');
  new KubernetesCluster(stack, 'cluster');
  const password = new TerraformVariable(stack, 'store_password', { type: 'string', sensitive: true });
  const store = new LimitStore(stack, 'Limits', {
    password: password.stringValue,
    kubernetes: {},
    ...storeProps,
  });
  const service = new Service(stack, 'get_order', {
    description: 'Look up an order',
    endpoint: { url: 'http://orders.backend.svc:8080/orders/{order_id}', method: 'GET' },
    input: { order_id: { type: 'string', required: true } },
  });
  new Gateway(stack, 'orders', {
    services: [service],
    auth,
    rateLimits: [{ calls: 60, per: 'minute' }],
    store,
    ...(gateway === 'kubernetes' ? { kubernetes: { image: 'gw:1' }, replicas: 3 } : {}),
  });
  return { stack, store };
}

function named(json: Json, type: string, name: string): Json {
  const found = resourcesOf(json, type).find((r: Json) => r.metadata.name === name);
  assert.ok(found, `a ${type} named ${name}`);
  return found;
}

describe('LimitStore on Kubernetes (constructs/kubernetes)', () => {
  it('runs one pod in a namespace of its own, behind a ClusterIP Service, its config (with the password) a Secret', () => {
    const json = synth(storeStack().stack);
    assert.ok(named(json, 'kubernetes_namespace_v1', 'mcp-store-limit-store'));
    assert.equal(resourcesOf(json, 'docker_container').length, 0, 'nothing on Docker');
    const deployment = named(json, 'kubernetes_deployment_v1', 'limit-store');
    assert.equal(deployment.metadata.namespace, 'mcp-store-limit-store');
    assert.equal(deployment.spec.replicas, '1');
    assert.deepEqual(deployment.spec.strategy, { type: 'Recreate' }, 'never two servers on the same data');
    const pod = deployment.spec.template.spec;
    assert.equal(pod.security_context.run_as_non_root, true);
    assert.equal(pod.security_context.run_as_user, '999');
    assert.equal(pod.automount_service_account_token, false);
    const [container] = pod.container;
    assert.deepEqual(container.command, ['redis-server', '/etc/cdktf-mcp-gateway/store.conf']);
    assert.equal(container.image, 'redis:7.4-alpine');
    assert.equal(container.security_context.read_only_root_filesystem, true);
    assert.deepEqual(container.security_context.capabilities, { drop: ['ALL'] });
    assert.deepEqual(container.readiness_probe.tcp_socket, { port: 'redis' });
    assert.deepEqual(
      pod.volume.find((v: Json) => v.name === 'data'),
      { name: 'data', empty_dir: {} },
      'the data lives with the pod unless storage is set',
    );
    const conf = named(json, 'kubernetes_secret_v1', 'limit-store').data['store.conf'] as string;
    assert.match(conf, /appendonly yes/);
    assert.match(conf, /requirepass "\$\{var\.store_password\}"/);
    const service = named(json, 'kubernetes_service_v1', 'limit-store');
    assert.equal(service.spec.type, 'ClusterIP');
    assert.deepEqual(service.spec.port, [{ name: 'redis', port: 6379, target_port: 'redis' }]);
  });

  it("gives the gateway the store's in-cluster URL, and its password as a secret its pods mount", () => {
    const json = synth(storeStack().stack);
    const config = JSON.parse(named(json, 'kubernetes_config_map_v1', 'orders-config').data['gateway.json']);
    assert.deepEqual(config.gateway.store, {
      url: 'redis://limit-store.mcp-store-limit-store.svc.cluster.local:6379',
      password: { secret: 'MCP_LIMIT_STORE_PASSWORD' },
    });
    assert.equal(config.gateway.audit_log, 'store');
    const secrets = named(json, 'kubernetes_secret_v1', 'orders-secrets');
    assert.equal(secrets.data.MCP_LIMIT_STORE_PASSWORD, '${var.store_password}\n');
    const live = named(json, 'kubernetes_deployment_v1', 'orders').spec.template.spec.volume[0].projected.sources[1];
    assert.deepEqual(live, { secret: { name: 'orders-live' } }, 'every key of the live copy, the password among them');
  });

  it('keeps its data in a PersistentVolumeClaim when storage is set', () => {
    const json = synth(storeStack({ kubernetes: { storage: { size: '2Gi', storageClassName: 'fast-ssd' } } }).stack);
    const claim = named(json, 'kubernetes_persistent_volume_claim_v1', 'limit-store-data');
    assert.deepEqual(claim.spec, {
      access_modes: ['ReadWriteOnce'],
      resources: { requests: { storage: '2Gi' } },
      storage_class_name: 'fast-ssd',
    });
    const pod = named(json, 'kubernetes_deployment_v1', 'limit-store').spec.template.spec;
    assert.deepEqual(
      pod.volume.find((v: Json) => v.name === 'data'),
      { name: 'data', persistent_volume_claim: { claim_name: 'limit-store-data' } },
    );
  });

  it('warns that a store without a password is open to every pod of the cluster', () => {
    const { store } = storeStack({ password: undefined });
    assert.deepEqual(warningsOf(store), [
      'no password: any pod in the cluster that reaches the store can change rate-limit counts and end sessions. Set password',
    ]);
  });

  describe('refuses what cannot work, naming the prop and the fix', () => {
    const cases: [string, Partial<LimitStoreProps>, RegExp][] = [
      ['a Docker port', { hostPort: 6380 }, /^LimitStore 'limit-store': hostPort applies to Docker only/],
      [
        'a bad namespace',
        { kubernetes: { namespace: 'Store_NS' } },
        /kubernetes\.namespace \('Store_NS'\) must be a DNS label/,
      ],
      [
        'a bad storage size',
        { kubernetes: { storage: { size: 'big' } } },
        /kubernetes\.storage\.size \('big'\) must be a quantity of storage, e.g. '1Gi'/,
      ],
      [
        'a bad storage class',
        { kubernetes: { storage: { size: '1Gi', storageClassName: 'Fast SSD' } } },
        /kubernetes\.storage\.storageClassName \('Fast SSD'\) must be a storage class's name/,
      ],
      [
        'a bad quantity',
        { kubernetes: { limits: { memory: 'lots' } } },
        /kubernetes\.limits\.memory \('lots'\) must be a quantity/,
      ],
      [
        'a request above the default limit',
        { kubernetes: { requests: { memory: '512Mi' } } },
        /kubernetes\.requests\.memory \('512Mi'\) is above kubernetes\.limits\.memory \('256Mi', the default\)/,
      ],
      [
        'a request above a limit by less than a float can tell',
        { kubernetes: { requests: { cpu: '1.0000000000000000001' }, limits: { cpu: '1' } } },
        /kubernetes\.requests\.cpu \('1\.0000000000000000001'\) is above kubernetes\.limits\.cpu \('1'\)/,
      ],
      [
        'an exponent Kubernetes cannot hold',
        { kubernetes: { limits: { cpu: '1e400' } } },
        /kubernetes\.limits\.cpu \('1e400'\) must be a quantity/,
      ],
      [
        'an empty claim',
        { kubernetes: { storage: { size: '0' } } },
        /kubernetes\.storage\.size \('0'\) must be a quantity of storage, e.g. '1Gi'/,
      ],
      [
        'a name ending with -',
        { name: 'store-', kubernetes: { namespace: 'mcp-store' } },
        /name \('store-'\) must be a host name: lower-case letters, digits and -, starting with a letter and not ending with -/,
      ],
      [
        'a name too long for the default namespace',
        { name: `s${'x'.repeat(59)}` },
        /the default kubernetes\.namespace, 'mcp-store-sx+', is longer than 63 characters: give a shorter name, or set kubernetes\.namespace/,
      ],
      [
        'the namespace default',
        { kubernetes: { namespace: 'default' } },
        /kubernetes\.namespace \('default'\) is one every cluster has/,
      ],
    ];
    for (const [what, props, message] of cases) {
      it(what, () => assert.match(thrown(() => storeStack(props)).message, message));
    }

    it('takes every quantity Kubernetes does (1Pi, 1e3, .5), and a request equal to its limit however written', () => {
      for (const [request, limit] of [
        ['700m', '0.7'],
        ['.5', '500m'],
        ['1k', '1e3'],
        ['+1', '1.'],
      ]) {
        synth(storeStack({ kubernetes: { requests: { cpu: request }, limits: { cpu: limit } } }).stack);
      }
      synth(storeStack({ kubernetes: { requests: { memory: '1Gi' }, limits: { memory: '1073741824' } } }).stack);
      const json = synth(
        storeStack({ kubernetes: { storage: { size: '1Pi' }, requests: { cpu: '0.5' }, limits: { cpu: '1e3' } } })
          .stack,
      );
      assert.equal(
        named(json, 'kubernetes_persistent_volume_claim_v1', 'limit-store-data').spec.resources.requests.storage,
        '1Pi',
      );
    });

    it("a namespace the gateway's own objects are in, before the cluster would", () => {
      assert.equal(
        thrown(() => storeStack({ kubernetes: { namespace: 'mcp-gateway-orders' } })).message,
        "Gateway 'orders': the default kubernetes.namespace, 'mcp-gateway-orders', is also the namespace of " +
          "LimitStore 'limit-store'; each gateway, store and dashboard creates its own namespace and deletes it with " +
          'its objects: set kubernetes.namespace to another one',
      );
    });

    it('a store on Kubernetes for a gateway on Docker', () => {
      assert.match(
        thrown(() => storeStack({}, 'docker')).message,
        /^Gateway 'orders': store: LimitStore 'limit-store' runs on Kubernetes, which a Docker gateway does not reach: drop its kubernetes prop, or deploy the gateway to Kubernetes too$/,
      );
    });
  });
});
