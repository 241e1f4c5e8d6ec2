import * as assert from 'node:assert/strict';
import { TerraformStack, Testing, TerraformVariable, Token } from 'cdktf';
import { DockerProvider } from '@cdktf/provider-docker/lib/provider';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  Gateway,
  type GatewayProps,
  KubernetesCluster,
  LimitStore,
  Manifest,
  ManifestError,
  Secret,
  Service,
} from '../../../constructs';
import { configDigest, K8S_HANDOFF_KEY } from '../../../src/config';
import { hashOf, type Json, resourcesOf, synth, thrown } from '../synth';
import { tempDir } from '../../helpers/temp-dir';

const auth = { tokens: [{ id: 'agent', sha256: hashOf('test-token-1') }] };

/** A stack with the cluster and one gateway `orders` on Kubernetes (props override the defaults). */
function k8sStack(props: Partial<GatewayProps> = {}): { stack: TerraformStack; gateway: Gateway } {
  const stack = new TerraformStack(Testing.app(), 'k8s');
  new KubernetesCluster(stack, 'cluster', { configPath: '/home/me/.kube/config' });
  const key = new TerraformVariable(stack, 'backend_key', { type: 'string', sensitive: true });
  const service = new Service(stack, 'get_order', {
    description: 'Look up an order',
    endpoint: {
      url: 'http://orders.backend.svc:8080/orders/{order_id}',
      method: 'GET',
      headers: { 'X-Backend-Key': Secret.env('BACKEND_KEY') },
    },
    input: { order_id: { type: 'string', required: true } },
  });
  const gateway = new Gateway(stack, 'orders', {
    services: [service],
    auth,
    secrets: { BACKEND_KEY: key.stringValue },
    kubernetes: { image: 'registry.internal/mcp-gateway:1' },
    ...props,
  });
  return { stack, gateway };
}

function only(json: Json, type: string): Json {
  const all = resourcesOf(json, type);
  assert.equal(all.length, 1, `one ${type}`);
  return all[0];
}

/** The config hand-over's terraform_data. */
function applyConfig(json: Json): Json {
  const id = Object.keys(json.resource.terraform_data).find((k) => k.startsWith('orders_ApplyConfig_'));
  assert.ok(id, Object.keys(json.resource.terraform_data).join(', '));
  return json.resource.terraform_data[id];
}

function configMap(json: Json, name: string): Json {
  const found = resourcesOf(json, 'kubernetes_config_map_v1').find((c: Json) => c.metadata.name === name);
  assert.ok(found, `a ConfigMap ${name}`);
  return found;
}

describe('Gateway on Kubernetes (constructs/kubernetes)', () => {
  it('synthesizes a namespace of its own with a Deployment, a Service, a PDB, the config and its secrets', () => {
    const json = synth(k8sStack().stack);
    assert.deepEqual(json.terraform.required_providers.kubernetes, {
      source: 'hashicorp/kubernetes',
      version: '~> 3.2',
    });
    assert.equal(json.provider.kubernetes[0].config_path, '/home/me/.kube/config');
    assert.equal(only(json, 'kubernetes_namespace_v1').metadata.name, 'mcp-gateway-orders');
    const deployment = only(json, 'kubernetes_deployment_v1');
    assert.equal(deployment.metadata.namespace, 'mcp-gateway-orders');
    assert.equal(deployment.spec.replicas, '2', 'two pods unless replicas says otherwise');
    assert.deepEqual(deployment.spec.strategy.rolling_update, { max_surge: '1', max_unavailable: '0' });
    assert.equal(only(json, 'kubernetes_pod_disruption_budget_v1').spec.max_unavailable, '1');
    // nothing Docker: no provider, no container
    assert.equal(json.provider.docker, undefined);
    assert.equal(json.resource.docker_container, undefined);
  });

  it('runs the pods non-root on a read-only root with no capabilities, probed, drained and spread over nodes', () => {
    const pod = only(synth(k8sStack().stack), 'kubernetes_deployment_v1').spec.template.spec;
    assert.deepEqual(pod.security_context, {
      run_as_non_root: true,
      run_as_user: '1000',
      run_as_group: '1000',
      fs_group: '1000',
      seccomp_profile: { type: 'RuntimeDefault' },
    });
    assert.equal(pod.automount_service_account_token, false);
    const [c] = pod.container;
    assert.deepEqual(c.security_context, {
      allow_privilege_escalation: false,
      read_only_root_filesystem: true,
      run_as_non_root: true,
      capabilities: { drop: ['ALL'] },
    });
    assert.equal(c.readiness_probe.http_get.path, '/readyz');
    assert.equal(c.liveness_probe.http_get.path, '/healthz');
    assert.match(c.lifecycle.pre_stop.exec.command.join(' '), /setTimeout\(\(\) => \{\}, 5000\)/);
    assert.equal(pod.termination_grace_period_seconds, 35);
    assert.deepEqual(c.resources, { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } });
    assert.equal(c.image, 'registry.internal/mcp-gateway:1');
    assert.equal(c.image_pull_policy, 'Never', 'an image named as present is never pulled');
    assert.deepEqual(c.args, ['serve', '--config', '/etc/cdktf-mcp-gateway/gateway.json', '--watch']);
    const [spread] = pod.topology_spread_constraint;
    assert.equal(spread.topology_key, 'kubernetes.io/hostname');
    assert.deepEqual(spread.match_label_keys, ['pod-template-hash']);
    assert.equal(spread.node_taints_policy, 'Honor');
  });

  it('mounts the live copy as one projected volume: the config, and every secret whatever the config names', () => {
    const pod = only(synth(k8sStack().stack), 'kubernetes_deployment_v1').spec.template.spec;
    const volume = pod.volume.find((v: Json) => v.name === 'config');
    const [cm, secret] = volume.projected.sources;
    assert.equal(cm.config_map.name, 'orders-live');
    assert.deepEqual(cm.config_map.items, [{ key: 'gateway.json', path: 'gateway.json' }]);
    // no list of keys: a secret a later config adds reaches the pods without a new pod template
    assert.deepEqual(secret, { secret: { name: 'orders-live' } });
    const env = pod.container[0].env.find((e: Json) => e.name === 'CDKTF_MCP_GATEWAY_SECRETS_DIR');
    assert.equal(env?.value, '/etc/cdktf-mcp-gateway');
    const withAnother = only(
      synth(k8sStack({ secrets: { BACKEND_KEY: 'x', OTHER: 'y' } }).stack),
      'kubernetes_deployment_v1',
    );
    assert.deepEqual(
      withAnother.spec.template,
      only(synth(k8sStack().stack), 'kubernetes_deployment_v1').spec.template,
    );
  });

  it('writes the config into a ConfigMap the plan diffs field by field, and no secret value into it', () => {
    const json = synth(k8sStack({ validateInput: false }).stack);
    const text = configMap(json, 'orders-config').data['gateway.json'];
    const config = JSON.parse(text);
    assert.equal(config.gateway.validate_input, false);
    assert.equal(config.gateway.session_key_file, '/etc/cdktf-mcp-gateway/cdktf-mcp-gateway-session-key');
    assert.deepEqual(config.tools[0].backend.headers, { 'X-Backend-Key': { secret: 'BACKEND_KEY' } });
    const secrets = resourcesOf(json, 'kubernetes_secret_v1').find((s: Json) => s.metadata.name === 'orders-secrets');
    assert.equal(secrets.data.BACKEND_KEY, '${var.backend_key}\n', 'with a line break: an empty value stays in');
    // the live copy is the job's to write: Terraform creates it empty and leaves its data alone
    const live = configMap(json, 'orders-live');
    assert.equal(live.data, undefined);
    assert.deepEqual(live.lifecycle.ignore_changes, ['data']);
  });

  it('hands a config over through a job the deploy creates with kubectl, named after it, and reads its outcome', () => {
    const json = synth(k8sStack().stack);
    assert.deepEqual(resourcesOf(json, 'kubernetes_job_v1'), []);
    assert.equal(json.data, undefined, 'no data source reads the outcome: the deploy does');
    const apply = applyConfig(json);
    const jobName: string = apply.triggers_replace.job;
    assert.match(jobName, /^orders-apply-[0-9a-f]{10}-\$\{substr\(replace\(terraform_data\./);
    const exec = apply.provisioner[0]['local-exec'];
    assert.deepEqual(exec.interpreter.slice(2), ['apply-config', '--kubectl', 'mcp-gateway-orders/orders', '--job']);
    assert.equal(exec.command, jobName);
    assert.equal(exec.quiet, true);
    const [namespaceId] = Object.keys(json.resource.kubernetes_namespace_v1);
    assert.deepEqual(exec.environment, {
      CDKTF_MCP_GATEWAY_HANDOFF_IMAGE: 'registry.internal/mcp-gateway:1',
      // the deploy checks that kubectl reaches the cluster Terraform deployed to
      CDKTF_MCP_GATEWAY_NAMESPACE_UID: `\${kubernetes_namespace_v1.${namespaceId}.metadata.0.uid}`,
    });
    // the reviewer's summary records a new config only once the pods serve it
    const applyId = Object.keys(json.resource.terraform_data).find((k) => k.startsWith('orders_ApplyConfig_'));
    assert.equal(json.output.gateway_orders_config.value.handover, `\${terraform_data.${applyId}.id}`);
    const handoff = apply['//'][K8S_HANDOFF_KEY];
    assert.deepEqual(
      { ...handoff, job: undefined },
      {
        gateway: 'orders',
        namespace: 'mcp-gateway-orders',
        kubeconfig: '/home/me/.kube/config',
        labels: {
          'app.kubernetes.io/name': 'cdktf-mcp-gateway',
          'app.kubernetes.io/instance': 'orders',
          'app.kubernetes.io/component': 'apply-config',
        },
        timeout_seconds: 210,
        job: undefined,
      },
    );
    const job = handoff.job;
    assert.equal(job.kind, 'Job');
    assert.equal(job.spec.backoffLimit, 0);
    const [container] = job.spec.template.spec.containers;
    const args: string[] = container.args;
    assert.deepEqual(args.slice(0, 5), [
      'apply-config',
      '--kubernetes',
      'mcp-gateway-orders/orders',
      '--job',
      '$(JOB_NAME)',
    ]);
    // the job learns its own name from the label Kubernetes gives its pods
    assert.deepEqual(container.env, [
      { name: 'JOB_NAME', valueFrom: { fieldRef: { fieldPath: "metadata.labels['batch.kubernetes.io/job-name']" } } },
    ]);
    const text = configMap(json, 'orders-config').data['gateway.json'];
    assert.equal(args[args.indexOf('--expect-digest') + 1], configDigest(text));
    assert.equal(container.imagePullPolicy, 'Never');
    assert.deepEqual(job.spec.template.spec.securityContext, {
      runAsNonRoot: true,
      runAsUser: 1000,
      runAsGroup: 1000,
      fsGroup: 1000,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    assert.deepEqual(container.securityContext.capabilities, { drop: ['ALL'] });
    assert.equal(container.securityContext.readOnlyRootFilesystem, true);
    // the Deployment waits for the first config to be in place
    assert.ok(
      only(json, 'kubernetes_deployment_v1').depends_on.some((d: string) =>
        d.startsWith('terraform_data.orders_ApplyConfig_'),
      ),
    );
    // the job may touch only its gateway's live copy by name
    const role = only(json, 'kubernetes_role_v1');
    assert.deepEqual(role.rule[0].resource_names, ['orders-live']);
  });

  it('renames the job when the config changes, and keeps the name when it does not', () => {
    const name = (props: Partial<GatewayProps>) => applyConfig(synth(k8sStack(props).stack)).triggers_replace.job;
    assert.equal(name({}), name({}));
    assert.notEqual(name({ validateInput: false }), name({ validateInput: true }));
  });

  it('names its objects after the gateway as Kubernetes takes names, and refuses two gateways on one name', () => {
    const { stack } = k8sStack({ name: 'Orders_Desk.v2' });
    const json = synth(stack);
    assert.equal(only(json, 'kubernetes_namespace_v1').metadata.name, 'mcp-gateway-orders-desk-v2');
    const deployment = only(json, 'kubernetes_deployment_v1');
    assert.equal(deployment.metadata.name, 'orders-desk-v2');
    assert.equal(deployment.spec.selector.match_labels['app.kubernetes.io/instance'], 'orders-desk-v2');
    const apply = Object.values(json.resource.terraform_data).find((r: Json) => r['//'] !== undefined) as Json;
    assert.match(apply.triggers_replace.job, /^orders-desk-v2-apply-/);
    assert.equal(
      json.output.gateway_Orders_Desk_v2_url.value,
      'http://orders-desk-v2.mcp-gateway-orders-desk-v2.svc.cluster.local:8080/mcp',
    );
    assert.deepEqual(only(json, 'kubernetes_role_v1').rule[0].resource_names, ['orders-desk-v2-live']);

    const clash = k8sStack({ name: 'a_b', kubernetes: { image: 'gw:1', namespace: 'agents' } }).stack;
    const other = new Service(clash, 'ping', {
      description: 'Ping',
      endpoint: { url: 'http://ping.backend.svc:8080/ping', method: 'GET' },
      input: {},
    });
    // the second gateway's objects would be named as the first's, in the namespace the first creates
    assert.equal(
      thrown(
        () =>
          new Gateway(clash, 'second', {
            name: 'a-b',
            services: [other],
            auth,
            kubernetes: { image: 'gw:1', namespace: 'agents' },
          }),
      ).message,
      "Gateway 'a-b': kubernetes.namespace 'agents' is also the namespace of Gateway 'a_b'; each gateway, store and " +
        'dashboard creates its own namespace and deletes it with its objects: give this one another namespace',
    );
  });

  it('serves agents through a NodePort with externalTrafficPolicy Local by default, or ClusterIP', () => {
    const svc = only(
      synth(k8sStack({ kubernetes: { image: 'gw:1', service: { type: 'NodePort', nodePort: 30080 } } }).stack),
      'kubernetes_service_v1',
    );
    assert.equal(svc.spec.type, 'NodePort');
    assert.equal(svc.spec.external_traffic_policy, 'Local');
    assert.deepEqual(svc.spec.port[0], { name: 'mcp', port: 8080, target_port: 'mcp', node_port: 30080 });
    const internal = only(
      synth(k8sStack({ kubernetes: { image: 'gw:1', service: { type: 'ClusterIP' } } }).stack),
      'kubernetes_service_v1',
    );
    assert.equal(internal.spec.type, 'ClusterIP');
    assert.equal(internal.spec.external_traffic_policy, undefined);
  });

  it('builds the image and pushes it to the registry, and the pods pull it by digest', () => {
    const stack = new TerraformStack(Testing.app(), 'k8s');
    new KubernetesCluster(stack, 'cluster');
    new DockerProvider(stack, 'docker', {});
    const service = new Service(stack, 'ping', {
      description: 'Ping',
      endpoint: { url: 'http://ping.backend.svc:8080/ping', method: 'GET' },
      input: {},
    });
    const gateway = new Gateway(stack, 'orders', {
      services: [service],
      auth,
      registry: { address: '127.0.0.1:15000', insecure: true },
      kubernetes: {},
    });
    const json = synth(stack);
    const pushed = only(json, 'docker_registry_image');
    assert.match(pushed.name, /^127\.0\.0\.1:15000\/cdktf-mcp-gateway-k8s:/);
    const c = only(json, 'kubernetes_deployment_v1').spec.template.spec.container[0];
    assert.match(
      c.image,
      /^127\.0\.0\.1:15000\/cdktf-mcp-gateway-k8s@\$\{docker_registry_image\.\w+\.sha256_digest\}$/,
    );
    assert.equal(c.image_pull_policy, 'IfNotPresent');
    // the pushed digest is known at deploy only
    assert.ok(gateway.image !== undefined && Token.isUnresolved(gateway.image));
  });

  describe('refuses what cannot work, naming the prop and the fix', () => {
    const cases: [string, Partial<GatewayProps>, RegExp][] = [
      [
        'no image',
        { kubernetes: {} },
        /reaches the nodes through a registry: set registry: \{ address: 'host:port' \}/,
      ],
      [
        'a bad namespace',
        { kubernetes: { image: 'gw:1', namespace: 'Orders_NS' } },
        /kubernetes\.namespace \('Orders_NS'\) must be a DNS label/,
      ],
      [
        'a node port out of range',
        { kubernetes: { image: 'gw:1', service: { type: 'NodePort', nodePort: 8080 } } },
        /nodePort \(8080\) must be in the cluster's node port range/,
      ],
      [
        'a bad quantity',
        { kubernetes: { image: 'gw:1', limits: { memory: 'lots' } } },
        /kubernetes\.limits\.memory \('lots'\) must be a quantity/,
      ],
      [
        'a node port on a ClusterIP Service (from JavaScript)',
        { kubernetes: { image: 'gw:1', service: { type: 'ClusterIP', nodePort: 30001 } as never } },
        /kubernetes\.service\.nodePort \(30001\) applies to type 'NodePort' only; leave it out for 'ClusterIP'/,
      ],
      [
        'a namespace every cluster has',
        { kubernetes: { image: 'gw:1', namespace: 'kube-system' } },
        /kubernetes\.namespace \('kube-system'\) is one every cluster has: the stack creates a namespace of its own/,
      ],
      [
        'requests above the default limit',
        { kubernetes: { image: 'gw:1', requests: { memory: '1Gi' } } },
        /kubernetes\.requests\.memory \('1Gi'\) is above kubernetes\.limits\.memory \('512Mi', the default\), which Kubernetes refuses: raise the limit or lower the request/,
      ],
      [
        'a limit below the default request',
        { kubernetes: { image: 'gw:1', limits: { cpu: '50m' } } },
        /kubernetes\.requests\.cpu \('100m', the default\) is above kubernetes\.limits\.cpu \('50m'\)/,
      ],
      [
        'memory in thousandths of a byte',
        { kubernetes: { image: 'gw:1', limits: { memory: '512m' } } },
        /kubernetes\.limits\.memory \('512m'\) is in thousandths of a byte: write Mi for mebibytes, e\.g\. '512Mi'/,
      ],
      [
        'memory in bytes',
        { kubernetes: { image: 'gw:1', requests: { memory: '2' } } },
        /kubernetes\.requests\.memory \('2'\) is less than a mebibyte \(a bare number counts bytes\): write Mi or Gi/,
      ],
      [
        'memory under a mebibyte with a suffix',
        { kubernetes: { image: 'gw:1', requests: { memory: '1000Ki' } } },
        /kubernetes\.requests\.memory \('1000Ki'\) is less than a mebibyte: write Mi or Gi/,
      ],
      [
        'cpu with a suffix of bytes',
        { kubernetes: { image: 'gw:1', requests: { cpu: '256Mi' } } },
        /kubernetes\.requests\.cpu \('256Mi'\) has a suffix of bytes: cpu counts cores or thousandths of one/,
      ],
      ['placement', { placement: { constraints: ['node.role == manager'] } }, /placement applies to Docker only/],
      ['zero replicas', { replicas: 0 }, /replicas \(0\) must be an integer 1-1000/],
      ['a literal session key', { sessionKey: 'hunter2' }, /sessionKey must be a reference to a sensitive value/],
    ];
    for (const [what, props, message] of cases) {
      it(what, () => {
        const err = thrown(() => synth(k8sStack(props).stack));
        assert.match(err.message, /^Gateway 'orders': /);
        assert.match(err.message, message);
        assert.doesNotMatch(err.message, /hunter2/);
      });
    }

    it('a LimitStore (a Docker container the pods cannot reach)', () => {
      const stack = new TerraformStack(Testing.app(), 'k8s');
      const store = new LimitStore(stack, 'store', {});
      const err = thrown(() => k8sStackWith(stack, { store }));
      assert.match(
        err.message,
        /LimitStore 'limit-store' runs as a Docker container, which pods cannot reach: give it kubernetes: \{\} to run it in the cluster, or pass store: \{ url \}/,
      );
    });

    it('a service whose backend is a Docker container', () => {
      const stack = new TerraformStack(Testing.app(), 'k8s');
      new KubernetesCluster(stack, 'cluster');
      const service = new Service(stack, 'greet', {
        description: 'Greet',
        endpoint: { url: 'http://greeter:8080/greet', method: 'GET' },
        input: {},
        container: { image: 'greeter:1', port: 8080 },
      });
      new Gateway(stack, 'orders', { services: [service], auth, kubernetes: { image: 'gw:1' } });
      const err = thrown(() => synth(stack));
      assert.match(err.message, /service 'greet' deploys its backend as a docker_container, which pods cannot reach/);
    });

    it('a stack that names no cluster, with the construct that does', () => {
      const stack = new TerraformStack(Testing.app(), 'k8s');
      k8sStackWith(stack, {});
      assert.match(
        thrown(() => synth(stack)).message,
        /the stack deploys to Kubernetes but names no cluster: add new KubernetesCluster\(stack, 'cluster', \{ configPath: process\.env\.KUBECONFIG \}\)/,
      );
    });
  });
});

function k8sStackWith(stack: TerraformStack, props: Partial<GatewayProps>): Gateway {
  const service = new Service(stack, 'ping', {
    description: 'Ping',
    endpoint: { url: 'http://ping.backend.svc:8080/ping', method: 'GET' },
    input: {},
  });
  return new Gateway(stack, 'orders', { services: [service], auth, kubernetes: { image: 'gw:1' }, ...props });
}

describe('a manifest gateway on Kubernetes', () => {
  const manifest = (kubernetes: string): string => {
    const dir = tempDir('k8s-manifest-');
    const file = path.join(dir, 'gateways.yaml');
    fs.writeFileSync(
      file,
      `services:
  get_order:
    description: Look up an order
    endpoint: { url: 'http://orders.backend.svc:8080/orders/{order_id}', method: GET }
    input:
      order_id: { type: string, required: true }
gateways:
  orders:
    services: [get_order]
    auth: { tokens: [{ id: agent, sha256: ${hashOf('test-token-1')} }] }
    replicas: 3
    kubernetes:
${kubernetes}
`,
    );
    return file;
  };

  it('runs a dashboard of it in the cluster with the dashboard kubernetes block, reading its store', () => {
    const file = manifest(`      image: registry.internal/gw:1
    store: { url: 'redis://limits.store.svc:6379' }
dashboards:
  audit:
    gateways: [orders]
    auth: { tokens: [{ id: ops, sha256: ${hashOf('ops-token')} }] }
    kubernetes: { namespace: ops, service: { type: NodePort, node_port: 30090 } }`);
    const stack = new TerraformStack(Testing.app(), 'k8s');
    new KubernetesCluster(stack, 'cluster');
    new Manifest(stack, 'm', { path: file });
    const json = synth(stack);
    const dashboard = resourcesOf(json, 'kubernetes_deployment_v1').find((d: Json) => d.metadata.name === 'audit');
    assert.equal(dashboard.metadata.namespace, 'ops');
    assert.equal(dashboard.spec.template.spec.container[0].image, 'registry.internal/gw:1');
    const service = resourcesOf(json, 'kubernetes_service_v1').find((d: Json) => d.metadata.name === 'audit');
    assert.equal(service.spec.port[0].node_port, 30090);
  });

  it('targets Kubernetes with the kubernetes block (snake_case, as the rest of the manifest)', () => {
    const stack = new TerraformStack(Testing.app(), 'k8s');
    new KubernetesCluster(stack, 'cluster');
    new Manifest(stack, 'm', {
      path: manifest(`      namespace: agents
      image: registry.internal/gw:1
      service: { type: NodePort, node_port: 30080 }
      limits: { memory: 1Gi }
      drain_seconds: 10`),
    });
    const json = synth(stack);
    const deployment = only(json, 'kubernetes_deployment_v1');
    assert.equal(deployment.metadata.namespace, 'agents');
    assert.equal(deployment.spec.replicas, '3');
    const pod = deployment.spec.template.spec;
    assert.deepEqual(pod.container[0].resources.limits, { memory: '1Gi' });
    assert.equal(pod.termination_grace_period_seconds, 40);
    assert.equal(only(json, 'kubernetes_service_v1').spec.port[0].node_port, 30080);
  });

  it('takes quantities written as YAML numbers, as Kubernetes manifests do, and a limit store in the cluster', () => {
    const stack = new TerraformStack(Testing.app(), 'k8s');
    new KubernetesCluster(stack, 'cluster');
    new Manifest(stack, 'm', {
      path: manifest(`      image: registry.internal/gw:1
      requests: { cpu: 0.5, memory: 128Mi }
      limits: { cpu: 1, memory: 1Gi }
    store: { limit_store: limits }
limit_stores:
  limits:
    kubernetes: { requests: { cpu: 700m }, limits: { cpu: 0.7 }, storage: { size: 1e9 } }`),
    });
    const json = synth(stack);
    const gateway = resourcesOf(json, 'kubernetes_deployment_v1').find((d: Json) => d.metadata.name === 'orders');
    assert.deepEqual(gateway.spec.template.spec.container[0].resources, {
      requests: { cpu: '0.5', memory: '128Mi' },
      limits: { cpu: '1', memory: '1Gi' },
    });
    const claim = only(json, 'kubernetes_persistent_volume_claim_v1');
    assert.equal(claim.spec.resources.requests.storage, '1000000000');
  });

  it('refuses a bad kubernetes block with its line and what is expected', () => {
    const stack = new TerraformStack(Testing.app(), 'k8s');
    const err = thrown(() => new Manifest(stack, 'm', { path: manifest('      service: { type: Ingress }') }));
    assert.ok(err instanceof ManifestError, err.message);
    assert.match(err.message, /gateways\.orders\.kubernetes\.service\.type/);
  });
});
