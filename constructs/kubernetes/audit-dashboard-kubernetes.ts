import { Construct } from 'constructs';
import {
  DASHBOARD_CONFIG_FILE,
  DASHBOARD_CONTAINER_PORT,
  k8sLabels,
  k8sName,
  terraformLiteral,
} from '../../src/config';
import { quote } from '../docker-names';
import { containerSecurity, podSecurity } from './gateway-pods';
import {
  createNamespace,
  createService,
  createSinglePod,
  KubernetesResource,
  requireKubernetesProvider,
} from './kubernetes-object';
import { checkNestedProps, type PropKeys } from '../known-props';
import { checkNamespace, checkService, type GatewayKubernetesService } from './kubernetes-props';

/** An `AuditDashboard` run in a Kubernetes cluster, reading gateways there that keep their audit in a store. */
export interface AuditDashboardKubernetes {
  /** The namespace the stack creates for the dashboard's objects. @default `mcp-dashboard-NAME` (NAME lowercased) */
  readonly namespace?: string;
  /**
   * How operators reach the page: inside the cluster only (`kubectl port-forward service/NAME 8090`), or a port on
   * every node.
   * @default { type: 'ClusterIP' }
   */
  readonly service?: GatewayKubernetesService;
}

/** What {@link createDashboardKubernetes} needs from the `AuditDashboard`. */
export interface DashboardKubernetesOptions {
  readonly name: string;
  readonly namespace: string;
  /** Whether `namespace` is the default (`kubernetes.namespace` not given). */
  readonly defaultNamespace: boolean;
  readonly service: GatewayKubernetesService;
  /** The gateway image the pods of the gateways it reads run (it holds the dashboard). */
  readonly image: string;
  /** The dashboard's config file (JSON). */
  readonly config: string;
  /** Files beside the config, each a secret: the stores' passwords, by file name. */
  readonly files: readonly (readonly [string, string])[];
}

const DASHBOARD_KUBERNETES_PROPS: PropKeys<AuditDashboardKubernetes> = { namespace: true, service: true };

/** The `kubernetes` prop of an `AuditDashboard` checked, with its defaults. */
export function checkDashboardKubernetes(
  name: string,
  k: AuditDashboardKubernetes,
  fail: (m: string) => never,
): { namespace: string; defaultNamespace: boolean; service: GatewayKubernetesService } {
  if (typeof k !== 'object' || k === null) {
    fail(`kubernetes (${quote(k)}) must be an object, e.g. { namespace: 'mcp-dashboard' }`);
  }
  checkNestedProps(k, DASHBOARD_KUBERNETES_PROPS, 'kubernetes', fail);
  const { namespace, defaultNamespace } = checkNamespace(k.namespace, fail, `mcp-dashboard-${k8sName(name)}`);
  return { namespace, defaultNamespace, service: checkService(k.service ?? { type: 'ClusterIP' }, fail) };
}

/**
 * The dashboard's objects in a namespace of its own: a Deployment of one pod running `dashboard` on the gateway
 * image, its config and the stores' passwords as one Secret, and a Service.
 */
export function createDashboardKubernetes(scope: Construct, options: DashboardKubernetesOptions): KubernetesResource {
  requireKubernetesProvider(scope);
  const name = k8sName(options.name);
  const labels = k8sLabels(name, 'audit-dashboard');
  const meta = { name, namespace: options.namespace, labels };
  const namespace = createNamespace(
    scope,
    options.namespace,
    `AuditDashboard '${options.name}'`,
    options.defaultNamespace,
  );
  const inNs = { dependsOn: [namespace] };
  const configDir = DASHBOARD_CONFIG_FILE.slice(0, DASHBOARD_CONFIG_FILE.lastIndexOf('/'));
  const configName = DASHBOARD_CONFIG_FILE.slice(configDir.length + 1);
  const secret = new KubernetesResource(
    scope,
    'Config',
    'kubernetes_secret_v1',
    {
      metadata: meta,
      data: { [configName]: terraformLiteral(`${options.config}\n`), ...Object.fromEntries(options.files) },
    },
    inNs,
  );
  const deployment = createSinglePod(scope, meta, dashboardPod(options.image, name, configDir), {
    dependsOn: [secret],
  });
  createService(
    scope,
    meta,
    {
      service: options.service,
      ports: [{ name: 'http', port: DASHBOARD_CONTAINER_PORT }],
      owner: `AuditDashboard '${options.name}'`,
    },
    inNs,
  );
  return deployment;
}

/** The dashboard's pod: the gateway image's `dashboard` command, as unprivileged as a gateway's pods. */
function dashboardPod(image: string, secretName: string, configDir: string): Record<string, unknown> {
  const probe = (period: number) => ({
    http_get: { path: '/healthz', port: 'http' },
    period_seconds: period,
    timeout_seconds: 2,
    failure_threshold: 3,
  });
  return {
    automount_service_account_token: false,
    enable_service_links: false,
    security_context: podSecurity(),
    container: [
      {
        name: 'dashboard',
        image,
        image_pull_policy: 'IfNotPresent',
        args: ['dashboard', '--config', DASHBOARD_CONFIG_FILE],
        port: [{ name: 'http', container_port: DASHBOARD_CONTAINER_PORT }],
        readiness_probe: probe(2),
        liveness_probe: probe(10),
        resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '512Mi' } },
        security_context: containerSecurity(),
        volume_mount: [
          { name: 'config', mount_path: configDir, read_only: true },
          { name: 'tmp', mount_path: '/tmp' },
        ],
      },
    ],
    volume: [
      { name: 'config', secret: { secret_name: secretName, default_mode: '0440' } },
      { name: 'tmp', empty_dir: { size_limit: '64Mi' } },
    ],
  };
}
