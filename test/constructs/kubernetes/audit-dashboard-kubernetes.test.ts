/**
 * An `AuditDashboard` with `kubernetes`: one pod on the gateways' image reading every pod's audit from the store,
 * read from the synthesized objects, and what it refuses.
 */
import * as assert from 'node:assert/strict';
import { TerraformStack, Testing, TerraformVariable } from 'cdktf';
import {
  AuditDashboard,
  type AuditDashboardProps,
  Gateway,
  type GatewayProps,
  KubernetesCluster,
  LimitStore,
  Service,
} from '../../../constructs';
import { hashOf, type Json, resourcesOf, synth, thrown } from '../synth';

const auth = { tokens: [{ id: 'agent', sha256: hashOf('test-token-1') }] };
const ops = { tokens: [{ id: 'ops', sha256: hashOf('ops-token') }] };

/** A stack with a store and a gateway `orders` on Kubernetes, and a dashboard of it (props override both). */
function dashboardStack(
  dashboard: Partial<AuditDashboardProps> = {},
  gateway: Partial<GatewayProps> = {},
): { stack: TerraformStack; dashboard: () => AuditDashboard } {
  const stack = new TerraformStack(Testing.app(), 'k8s');
  new KubernetesCluster(stack, 'cluster');
  const password = new TerraformVariable(stack, 'store_password', { type: 'string', sensitive: true });
  const store = new LimitStore(stack, 'Limits', { password: password.stringValue, kubernetes: {} });
  const service = new Service(stack, 'get_order', {
    description: 'Look up an order',
    endpoint: { url: 'http://orders.backend.svc:8080/orders/{order_id}', method: 'GET' },
    input: { order_id: { type: 'string', required: true } },
  });
  const orders = new Gateway(stack, 'orders', {
    services: [service],
    auth,
    store,
    replicas: 3,
    kubernetes: { image: 'registry.internal/mcp-gateway:1' },
    ...gateway,
  });
  return {
    stack,
    dashboard: () =>
      new AuditDashboard(stack, 'audit', { gateways: [orders], auth: ops, kubernetes: {}, ...dashboard }),
  };
}

function named(json: Json, type: string, name: string): Json {
  const found = resourcesOf(json, type).find((r: Json) => r.metadata.name === name);
  assert.ok(found, `a ${type} named ${name}`);
  return found;
}

describe('AuditDashboard on Kubernetes (constructs/kubernetes)', () => {
  it('refuses a misspelt key of kubernetes, naming the one meant', () => {
    const { dashboard } = dashboardStack({
      kubernetes: { servce: { type: 'ClusterIP' } } as AuditDashboardProps['kubernetes'],
    });
    assert.match(
      thrown(dashboard).message,
      /^AuditDashboard 'audit': unknown prop 'kubernetes\.servce' \(did you mean 'kubernetes\.service'\?\); the props of kubernetes are namespace, service$/,
    );
  });

  it("runs one pod on the gateways' image, reading their store, behind a ClusterIP Service", () => {
    const { stack, dashboard } = dashboardStack();
    const made = dashboard();
    const json = synth(stack);
    assert.equal(resourcesOf(json, 'docker_container').length, 0, 'nothing on Docker');
    assert.ok(named(json, 'kubernetes_namespace_v1', 'mcp-dashboard-audit'));
    const pod = named(json, 'kubernetes_deployment_v1', 'audit').spec.template.spec;
    const [container] = pod.container;
    assert.equal(container.image, 'registry.internal/mcp-gateway:1');
    assert.deepEqual(container.args, ['dashboard', '--config', '/etc/cdktf-mcp-gateway/dashboard.json']);
    assert.equal(container.security_context.read_only_root_filesystem, true);
    assert.equal(pod.security_context.run_as_non_root, true);
    assert.deepEqual(container.readiness_probe.http_get, { path: '/healthz', port: 'http' });

    const files = named(json, 'kubernetes_secret_v1', 'audit').data;
    const config = JSON.parse(files['dashboard.json']);
    assert.deepEqual(config.audit_stores, [
      {
        gateway: 'orders',
        url: 'redis://limit-store.mcp-store-limit-store.svc.cluster.local:6379',
        password_file: '/etc/cdktf-mcp-gateway/audit-store-0',
      },
    ]);
    assert.deepEqual(config.audit_dirs, []);
    assert.equal(files['audit-store-0'], '${var.store_password}', 'the password as a file beside the config');
    const mount = container.volume_mount.find((m: Json) => m.name === 'config');
    assert.equal(mount.mount_path, '/etc/cdktf-mcp-gateway', 'the directory the config names the password in');

    const service = named(json, 'kubernetes_service_v1', 'audit');
    assert.equal(service.spec.type, 'ClusterIP');
    assert.equal(service.spec.port[0].port, 8090);
    assert.equal(made.url, 'http://audit.mcp-dashboard-audit.svc.cluster.local:8090/');
  });

  describe('refuses what cannot work, naming the prop and the fix', () => {
    it('a gateway whose audit is a file in each pod', () => {
      const { dashboard } = dashboardStack({}, { auditLog: true });
      assert.match(
        thrown(dashboard).message,
        /^AuditDashboard 'audit': gateway 'orders' keeps its audit in a file in each pod, which a dashboard cannot read: give the gateway a store/,
      );
    });

    it('a Docker gateway', () => {
      const { dashboard } = dashboardStack({}, { kubernetes: undefined, store: undefined, replicas: undefined });
      assert.match(thrown(dashboard).message, /gateway 'orders' runs on Docker: a dashboard on Kubernetes reads/);
    });

    it('a Kubernetes gateway read by a dashboard on Docker', () => {
      const { dashboard } = dashboardStack({ kubernetes: undefined });
      assert.match(
        thrown(dashboard).message,
        /gateway 'orders' runs on Kubernetes: give the dashboard kubernetes: \{\} to run it there too/,
      );
    });

    it("the gateway's node port", () => {
      const { dashboard } = dashboardStack(
        { kubernetes: { service: { type: 'NodePort', nodePort: 30080 } } },
        { kubernetes: { image: 'registry.internal/mcp-gateway:1', service: { type: 'NodePort', nodePort: 30080 } } },
      );
      assert.equal(
        thrown(dashboard).message,
        "AuditDashboard 'audit': kubernetes.service.nodePort (30080) is also the node port of Gateway 'orders'; a " +
          "node port is the cluster's, on every node: give each its own, or leave it out and Kubernetes picks a free one",
      );
    });

    for (const prop of ['port', 'hostIp'] as const) {
      it(`Docker's ${prop}`, () => {
        const { dashboard } = dashboardStack({ [prop]: prop === 'port' ? 8091 : '127.0.0.1' });
        assert.match(thrown(dashboard).message, new RegExp(`${prop} applies to Docker only`));
      });
    }
  });
});
