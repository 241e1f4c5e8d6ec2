/**
 * Where a gateway deployed to Kubernetes meets its objects: shared by the constructs that synthesize them and by
 * `apply-config --kubernetes`, the in-cluster job that hands each new config to the running pods.
 *
 * Two copies of the config: the one Terraform writes (the ConfigMap `NAME-config` and the Secret `NAME-secrets`,
 * what the plan shows) and the one the pods mount (`NAME-live`, a ConfigMap and a Secret of that name), which only
 * the job writes, after the gateway's own check passed. So a config the gateway refuses never reaches a pod, not
 * even one that starts later.
 */
import { handoffsUnder } from './config-handoff';

/** Where a pod mounts the live config (a projected volume of the live ConfigMap and Secret). */
export const K8S_CONFIG_DIR = '/etc/cdktf-mcp-gateway';

/** Where the apply job mounts the config Terraform wrote (the ConfigMap and Secret it checks). */
export const K8S_NEXT_DIR = '/etc/cdktf-mcp-gateway-next';

/** The config file's name in both directories, and its key in both ConfigMaps. */
export const K8S_CONFIG_KEY = 'gateway.json';

/** The folder of secret files under either directory (one file per secret, named as the config names it). */
export const K8S_SECRETS_SUBDIR = 'secrets';

/** The session key's name among the secrets: the user's `sessionKey`, else one the job generates once and keeps. */
export const K8S_SESSION_KEY = 'cdktf-mcp-gateway-session-key';

/** The annotation the apply job records its outcome in: `serving DIGEST`, `stored DIGEST` or `refused: REASON`. */
export const K8S_OUTCOME_ANNOTATION = 'mcp-gateway.cdktf.io/outcome';

/**
 * The annotation the apply job sets on each gateway pod to the digest it hands over. The pod's template does not
 * change (no restart); the update prompts the kubelet to refresh the pod's mounted config now rather than at its
 * next periodic sync.
 */
export const K8S_DIGEST_ANNOTATION = 'mcp-gateway.cdktf.io/config-digest';

/**
 * A gateway's name as Kubernetes object names and label values take it (a DNS label: lowercase letters, digits and
 * '-', starting with a letter), short enough for the suffixes below: `Support_Desk` → `support-desk`.
 */
export function k8sName(gateway: string): string {
  const name = gateway
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/^[^a-z]+/, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return name === '' ? 'gateway' : name;
}

/**
 * The labels every object the package makes on Kubernetes carries: `instance` is the gateway's (or the store's, the
 * dashboard's) name, and `component` tells a gateway's serving pods from its apply job.
 */
export function k8sLabels(
  name: string,
  component: 'gateway' | 'apply-config' | 'limit-store' | 'audit-dashboard',
): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'cdktf-mcp-gateway',
    'app.kubernetes.io/instance': k8sName(name),
    'app.kubernetes.io/component': component,
  };
}

/** The names of a gateway's objects in its namespace: the Deployment, Service and PDB take `gateway`. */
export function k8sNames(gateway: string): {
  readonly gateway: string;
  readonly config: string;
  readonly secrets: string;
  readonly live: string;
  readonly applier: string;
} {
  const name = k8sName(gateway);
  return {
    gateway: name,
    config: `${name}-config`,
    secrets: `${name}-secrets`,
    live: `${name}-live`,
    applier: `${name}-apply-config`,
  };
}

/**
 * Where synthesis leaves what a Kubernetes gateway's deploy runs to hand a config over (a
 * {@link KubernetesHandoff}): under this key of the `//` comment of its `terraform_data` in `cdk.tf.json`, which no
 * plan prints. `apply-config --kubectl` reads it there.
 */
export const K8S_HANDOFF_KEY = 'cdktf_mcp_gateway_kubernetes_handoff';

/**
 * The environment variable that carries the uid Terraform recorded for the gateway's namespace to
 * `apply-config --kubectl`, which checks that kubectl reaches the same cluster.
 */
export const K8S_NAMESPACE_UID_ENV = 'CDKTF_MCP_GATEWAY_NAMESPACE_UID';

/** The apply job of a config change, as `apply-config --kubectl` creates it with kubectl. */
export interface KubernetesHandoff {
  /** The gateway's name, for messages. */
  readonly gateway: string;
  readonly namespace: string;
  /** The provider's kubeconfig file and context, when the stack names them. */
  readonly kubeconfig?: string;
  readonly context?: string;
  /** The labels of this gateway's apply jobs: older ones are removed once a new config serves. */
  readonly labels: Record<string, string>;
  /** How long to wait for the job's outcome. */
  readonly timeout_seconds: number;
  /** The Job (`batch/v1`), but for its name and its container's image, which the deploy fills in. */
  readonly job: Record<string, unknown>;
}

/** Every Kubernetes hand-over of a synthesized stack (a parsed `cdk.tf.json`). */
export function kubernetesHandoffsOf(doc: unknown): KubernetesHandoff[] {
  return handoffsUnder(doc, K8S_HANDOFF_KEY) as KubernetesHandoff[];
}
