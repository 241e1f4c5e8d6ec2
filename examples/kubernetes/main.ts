/**
 * An MCP gateway on Kubernetes: three pods spread over the nodes, a NodePort Service (30080) for the team's load
 * balancer, and an order API in the cluster as its backend. README.md gives the commands and every setting.
 *
 *   cdktf deploy      # to the cluster KUBECONFIG names
 *   cdktf diff        # what a change of a setting below would do
 *
 * Settings (environment, read at synthesis):
 *   VALIDATE_INPUT=true        validate every tools/call before the backend runs (false turns it off)
 *   AGENT_TOKEN_SHA256=<hex>   the SHA-256 of the bearer token agents present (required)
 *   REGISTRY=host:port         build the gateway image and push it there; pods pull it by digest
 *   GATEWAY_IMAGE=<image>      or: an image already on every node, used as is and never pulled
 *   BASE_IMAGE=<image>         the image the gateway is built on (with REGISTRY), default node:22-bookworm-slim
 *   WITH_SHIPPING=true         a second tool, track_shipment
 *   STORE_IMAGE=<image>        a Redis image the nodes pull: a store in the cluster, where the pods share ended
 *                              sessions and limits (track_shipment: 10 calls a minute per agent)
 *   TF_VAR_store_password=<p>  with STORE_IMAGE: the store's password, a sensitive Terraform variable
 *   DASHBOARD_TOKEN_SHA256=<hex>  with STORE_IMAGE: the audit dashboard in the cluster, for this token's holder
 *   TF_VAR_backend_key=<key>   the backend's key, a sensitive Terraform variable (empty is refused)
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { App, TerraformResource, TerraformStack, TerraformVariable } from 'cdktf';
import { Construct } from 'constructs';
import { DockerProvider } from '@cdktf/provider-docker/lib/provider';
// Users write: import { AuditDashboard, Gateway, KubernetesCluster, … } from 'cdktf-mcp-gateway';
import {
  AuditDashboard,
  DEFAULT_BASE_IMAGE,
  Gateway,
  KubernetesCluster,
  LimitStore,
  Secret,
  Service,
} from '../../index';

/** Where the backend runs, and its Service's address from the gateway's pods. */
const BACKEND_NAMESPACE = 'mcp-example-backend';
const BACKEND_URL = `http://orders-api.${BACKEND_NAMESPACE}.svc.cluster.local:8080`;

/** The example's settings, read from the environment when the stack is built. */
interface Settings {
  readonly validateInput: boolean;
  readonly tokenSha256: string;
  readonly registry?: string;
  readonly gatewayImage?: string;
  readonly baseImage: string;
  readonly withShipping: boolean;
  readonly storeImage?: string;
  readonly dashboardTokenSha256?: string;
}

function settings(env: NodeJS.ProcessEnv): Settings {
  const flag = (name: string, dflt: boolean): boolean => {
    const v = env[name];
    if (v === undefined || v === '') return dflt;
    if (v !== 'true' && v !== 'false') throw new Error(`${name}=${v}: use ${name}=true or ${name}=false`);
    return v === 'true';
  };
  const tokenSha256 = env.AGENT_TOKEN_SHA256 ?? '';
  if (tokenSha256 === '') {
    throw new Error(
      'AGENT_TOKEN_SHA256 is not set: make a token and its hash with ' +
        'TOKEN=$(openssl rand -base64 32); AGENT_TOKEN_SHA256=$(printf %s "$TOKEN" | sha256sum | cut -d\' \' -f1)',
    );
  }
  const registry = env.REGISTRY || undefined;
  const gatewayImage = env.GATEWAY_IMAGE || undefined;
  if ((registry === undefined) === (gatewayImage === undefined)) {
    throw new Error(
      'set one of REGISTRY=host:port (the deploy builds the gateway image and pushes it there) or ' +
        'GATEWAY_IMAGE=<image already on every node>',
    );
  }
  if (env.DASHBOARD_TOKEN_SHA256 && !env.STORE_IMAGE) {
    throw new Error("DASHBOARD_TOKEN_SHA256 needs STORE_IMAGE: the dashboard reads the pods' audit from the store");
  }
  return {
    validateInput: flag('VALIDATE_INPUT', true),
    tokenSha256,
    ...(registry === undefined ? {} : { registry }),
    ...(gatewayImage === undefined ? {} : { gatewayImage }),
    baseImage: env.BASE_IMAGE || DEFAULT_BASE_IMAGE,
    withShipping: flag('WITH_SHIPPING', false),
    ...(env.STORE_IMAGE ? { storeImage: env.STORE_IMAGE } : {}),
    ...(env.DASHBOARD_TOKEN_SHA256 ? { dashboardTokenSha256: env.DASHBOARD_TOKEN_SHA256 } : {}),
  };
}

/** The example's stack: the cluster, the gateway and its backend. */
export class KubernetesExampleStack extends TerraformStack {
  public readonly gateway: Gateway;

  public constructor(scope: Construct, id: string, env: NodeJS.ProcessEnv = process.env) {
    super(scope, id);
    const s = settings(env);
    new KubernetesCluster(this, 'cluster', { ...(env.KUBECONFIG ? { configPath: env.KUBECONFIG } : {}) });
    // Docker builds the gateway image and pushes it to the registry; not needed with GATEWAY_IMAGE
    if (s.registry !== undefined) new DockerProvider(this, 'docker', {});
    const backendKey = new TerraformVariable(this, 'backend_key', {
      type: 'string',
      sensitive: true,
      description: 'The key the gateway presents to the order API (TF_VAR_backend_key)',
    });

    const services = [
      new Service(this, 'get_order', {
        description: 'Look up an order by its id.',
        endpoint: {
          url: `${BACKEND_URL}/orders/{order_id}`,
          method: 'GET',
          headers: { 'X-Backend-Key': Secret.env('BACKEND_KEY') },
        },
        input: {
          order_id: { type: 'string', required: true, pattern: '^ORD-[0-9]{4}$' },
          region: { type: 'string', required: true, enum: ['eu', 'us'] },
        },
        idempotent: true,
      }),
    ];
    if (s.withShipping) {
      services.push(
        new Service(this, 'track_shipment', {
          description: 'Track a shipment by its tracking number.',
          endpoint: {
            url: `${BACKEND_URL}/shipments/{tracking}`,
            method: 'GET',
            headers: { 'X-Backend-Key': Secret.env('BACKEND_KEY') },
          },
          input: {
            tracking: { type: 'string', required: true, minLength: 6, maxLength: 32 },
            carrier: { type: 'string', enum: ['dhl', 'ups', 'fedex'] },
          },
          idempotent: true,
        }),
      );
    }

    const store = s.storeImage === undefined ? undefined : createStore(this, s.storeImage);
    this.gateway = new Gateway(this, 'orders', {
      services,
      ...(store === undefined ? {} : { store }),
      // shared by every pod through the store
      ...(store !== undefined && s.withShipping
        ? { rateLimits: [{ tool: 'track_shipment', calls: 10, per: 'minute' as const }] }
        : {}),
      auth: { tokens: [{ id: 'agent', sha256: s.tokenSha256 }] },
      validateInput: s.validateInput,
      secrets: { BACKEND_KEY: backendKey.stringValue },
      replicas: 3,
      port: 8080,
      baseImage: s.baseImage,
      ...(s.registry === undefined ? {} : { registry: { address: s.registry, insecure: true } }),
      kubernetes: {
        namespace: 'mcp-example',
        service: { type: 'NodePort', nodePort: 30080 },
        ...(s.gatewayImage === undefined ? {} : { image: s.gatewayImage }),
      },
    });
    if (s.dashboardTokenSha256 !== undefined) {
      // every pod's audit, read from the store: `kubectl port-forward -n mcp-dashboard-audit service/audit 8090`
      new AuditDashboard(this, 'audit', {
        gateways: [this.gateway],
        auth: { tokens: [{ id: 'ops', sha256: s.dashboardTokenSha256 }] },
        kubernetes: {},
      });
    }
    createBackend(this, this.gateway.image!, s.registry !== undefined, backendKey.stringValue);
  }
}

/** A store in the cluster (namespace `mcp-store-limit-store`), its password the sensitive `store_password`. */
function createStore(scope: Construct, image: string): LimitStore {
  const password = new TerraformVariable(scope, 'store_password', {
    type: 'string',
    sensitive: true,
    description: "The store's password (TF_VAR_store_password)",
  });
  return new LimitStore(scope, 'Store', { image, password: password.stringValue, kubernetes: {} });
}

/**
 * The order API: a pod on every node (a DaemonSet) of the gateway's own image (it has Node) running
 * backend/server.js, mounted from a ConfigMap, behind a ClusterIP Service that keeps each call on its node. Written with cdktf's plain `TerraformResource`, as any Kubernetes object
 * can be without provider bindings.
 */
function createBackend(scope: Construct, image: string, pull: boolean, key: string): void {
  const object = (id: string, type: string, body: Record<string, unknown>, dependsOn: TerraformResource[] = []) => {
    const r = new TerraformResource(scope, id, { terraformResourceType: type, dependsOn });
    for (const [k, v] of Object.entries(body)) r.addOverride(k, v);
    return r;
  };
  const labels = { app: 'orders-api' };
  const meta = (name: string) => ({ name, namespace: BACKEND_NAMESPACE, labels });
  const ns = object('BackendNamespace', 'kubernetes_namespace_v1', { metadata: { name: BACKEND_NAMESPACE } });
  const code = object(
    'BackendCode',
    'kubernetes_config_map_v1',
    {
      metadata: meta('orders-api-code'),
      data: { 'server.js': literal(readFileSync(path.join(__dirname, 'backend', 'server.js'), 'utf8')) },
    },
    [ns],
  );
  const secret = object('BackendKey', 'kubernetes_secret_v1', { metadata: meta('orders-api-key'), data: { key } }, [
    ns,
  ]);
  object(
    'Backend',
    'kubernetes_daemon_set_v1',
    {
      metadata: meta('orders-api'),
      spec: {
        selector: { match_labels: labels },
        // a node's new pod is ready before its old one stops: the gateway pods there (which call only their own
        // node's) are never left without one
        strategy: { type: 'RollingUpdate', rolling_update: { max_surge: '1', max_unavailable: '0' } },
        template: {
          metadata: { labels },
          spec: {
            automount_service_account_token: false,
            security_context: {
              run_as_non_root: true,
              run_as_user: '1000',
              seccomp_profile: { type: 'RuntimeDefault' },
            },
            container: [
              {
                name: 'api',
                image,
                image_pull_policy: pull ? 'IfNotPresent' : 'Never',
                command: ['node', '/backend/server.js'],
                env: [
                  { name: 'BACKEND_KEY', value_from: { secret_key_ref: { name: 'orders-api-key', key: 'key' } } },
                  { name: 'NODE_NAME', value_from: { field_ref: { field_path: 'spec.nodeName' } } },
                ],
                port: [{ container_port: 8080 }],
                readiness_probe: { http_get: { path: '/healthz', port: '8080' }, period_seconds: 1 },
                lifecycle: { pre_stop: { exec: { command: ['node', '-e', 'setTimeout(() => {}, 3000)'] } } },
                security_context: {
                  allow_privilege_escalation: false,
                  read_only_root_filesystem: true,
                  capabilities: { drop: ['ALL'] },
                },
                volume_mount: [{ name: 'code', mount_path: '/backend', read_only: true }],
              },
            ],
            volume: [{ name: 'code', config_map: { name: 'orders-api-code' } }],
          },
        },
      },
      timeouts: { create: '3m', update: '3m' },
    },
    [code, secret],
  );
  object(
    'BackendService',
    'kubernetes_service_v1',
    {
      metadata: meta('orders-api'),
      // each gateway pod calls the order API on its own node: a node lost takes its gateway pod and its backend
      // together, and no gateway is left calling a backend that is gone
      spec: { selector: labels, internal_traffic_policy: 'Local', port: [{ port: 8080, target_port: '8080' }] },
    },
    [ns],
  );
}

/** Terraform reads every string as a template: `$${` and `%%{` keep a file's own `${` and `%{` as written. */
function literal(text: string): string {
  return text.replace(/\$\{/g, () => '$${').replace(/%\{/g, () => '%%{');
}

if (require.main === module) {
  const app = new App();
  new KubernetesExampleStack(app, 'kubernetes');
  app.synth();
}
