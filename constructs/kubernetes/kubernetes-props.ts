import type { ITerraformDependable } from 'cdktf';
import { k8sName } from '../../src/config';
import { quote } from '../docker-names';
import { checkNestedProps, type PropKeys } from '../known-props';
import { compareQuantities, isQuantity } from './quantity';
import type { ConfigSummary } from '../config-summary';
import type { SecretsRevision } from '../secrets-revision';

/** How agents reach a gateway on Kubernetes. */
export type GatewayKubernetesService =
  /** A port on every node, for the team's load balancer in front; each node serves only its own pods. */
  | { readonly type: 'NodePort'; /** @default - one Kubernetes picks */ readonly nodePort?: number }
  /** The cluster's load balancer, as the cloud provides it; each node serves only its own pods. */
  | { readonly type: 'LoadBalancer' }
  /** Inside the cluster only, for agents that run there. */
  | { readonly type: 'ClusterIP' };

/** CPU and memory, as Kubernetes quantities (`'250m'`, `'256Mi'`). */
export interface KubernetesResources {
  readonly cpu?: string;
  readonly memory?: string;
}

/**
 * A gateway deployed to Kubernetes instead of Docker: a namespace of its own holding a Deployment, a Service, a
 * PodDisruptionBudget, the config (a ConfigMap) and its secrets (a Secret). A config change reaches every pod in
 * place, after the gateway's own check, with no restart.
 */
export interface GatewayKubernetes {
  /** The namespace the stack creates for the gateway's objects. @default `mcp-gateway-NAME` (NAME lowercased) */
  readonly namespace?: string;
  /** @default { type: 'NodePort' } */
  readonly service?: GatewayKubernetesService;
  /**
   * An image already present on every node (a team's pipeline built and pushed it), used as is and never pulled.
   * @default - the stack builds the gateway image with Docker and pushes it to the gateway's `registry`; pods pull
   * it by digest
   */
  readonly image?: string;
  /** @default { cpu: '100m', memory: '128Mi' } */
  readonly requests?: KubernetesResources;
  /** @default { memory: '512Mi' } (no CPU limit: a throttled gateway answers late, not less) */
  readonly limits?: KubernetesResources;
  /**
   * Seconds a pod keeps serving after it is taken out of the Service, before it is asked to stop: the time load
   * balancers and kube-proxy need to stop sending it new calls. Its calls in flight then finish.
   * @default 5
   */
  readonly drainSeconds?: number;
  /** How long a deploy waits for the pods to serve a new config. @default 90 */
  readonly applyTimeoutSeconds?: number;
}

/** The `kubernetes` prop as checked, with its defaults. */
export interface KubernetesTarget {
  readonly namespace: string;
  /** Whether `namespace` is the default (`kubernetes.namespace` not given). */
  readonly defaultNamespace: boolean;
  readonly service: GatewayKubernetesService;
  readonly image?: string;
  readonly requests: KubernetesResources;
  readonly limits: KubernetesResources;
  readonly drainSeconds: number;
  readonly applyTimeoutSeconds: number;
}

const NAMESPACE_RE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

const GATEWAY_KUBERNETES_PROPS: PropKeys<GatewayKubernetes> = {
  namespace: true,
  service: true,
  image: true,
  requests: true,
  limits: true,
  drainSeconds: true,
  applyTimeoutSeconds: true,
};
/** Every kind of {@link GatewayKubernetesService} at once: the keys any of them takes. */
interface AnyKubernetesService {
  readonly type: string;
  readonly nodePort?: number;
}
const SERVICE_PROPS: PropKeys<AnyKubernetesService> = { type: true, nodePort: true };

/** The `kubernetes` prop checked: each bad value fails naming the field, the value and what is allowed. */
export function checkKubernetes(gateway: string, k: GatewayKubernetes, fail: (m: string) => never): KubernetesTarget {
  if (typeof k !== 'object' || k === null)
    fail(`kubernetes (${quote(k)}) must be an object, e.g. { namespace: 'mcp' }`);
  checkNestedProps(k, GATEWAY_KUBERNETES_PROPS, 'kubernetes', fail);
  const { namespace, defaultNamespace } = checkNamespace(k.namespace, fail, `mcp-gateway-${k8sName(gateway)}`);
  const service = checkService(k.service ?? { type: 'NodePort' }, fail);
  if (k.image !== undefined && (typeof k.image !== 'string' || !/^\S+$/.test(k.image))) {
    fail(`kubernetes.image (${quote(k.image)}) must be an image reference such as 'registry.internal/mcp-gateway:1'`);
  }
  checkResources('requests', k.requests, fail);
  checkResources('limits', k.limits, fail);
  const seconds = (prop: 'drainSeconds' | 'applyTimeoutSeconds', dflt: number, max: number): number => {
    const v = k[prop] ?? dflt;
    if (!Number.isInteger(v) || v < 0 || v > max) fail(`kubernetes.${prop} (${quote(v)}) must be an integer 0-${max}`);
    return v;
  };
  const resources = {
    requests: k.requests ?? { cpu: '100m', memory: '128Mi' },
    limits: k.limits ?? { memory: '512Mi' },
  };
  checkWithinLimits(resources, { requests: k.requests !== undefined, limits: k.limits !== undefined }, fail);
  return {
    namespace,
    defaultNamespace,
    service,
    ...(k.image === undefined ? {} : { image: k.image }),
    ...resources,
    drainSeconds: seconds('drainSeconds', 5, 300),
    applyTimeoutSeconds: seconds('applyTimeoutSeconds', 90, 3600),
  };
}

/** `kubernetes.service` checked: its type, and a node port in the cluster's default range. */
export function checkService(service: GatewayKubernetesService, fail: (m: string) => never): GatewayKubernetesService {
  if (typeof service !== 'object' || !['NodePort', 'LoadBalancer', 'ClusterIP'].includes(service.type)) {
    fail(`kubernetes.service (${quote(service)}) must be { type: 'NodePort' | 'LoadBalancer' | 'ClusterIP' }`);
  }
  checkNestedProps<AnyKubernetesService>(service, SERVICE_PROPS, 'kubernetes.service', fail);
  const nodePort = (service as { nodePort?: unknown }).nodePort;
  if (service.type !== 'NodePort' && nodePort !== undefined) {
    fail(
      `kubernetes.service.nodePort (${quote(nodePort)}) applies to type 'NodePort' only; leave it out for '${service.type}'`,
    );
  }
  if (service.type === 'NodePort' && service.nodePort !== undefined) {
    const p = service.nodePort;
    if (!Number.isInteger(p) || p < 30000 || p > 32767) {
      fail(
        `kubernetes.service.nodePort (${quote(p)}) must be in the cluster's node port range, 30000-32767 by default`,
      );
    }
  }
  return service;
}

/** Namespaces every cluster has: the stack could not create one of them as its own. */
const CLUSTER_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/**
 * `kubernetes.namespace` checked: a DNS label the stack may create. When it is not given, `fallback` (`mcp-store-`
 * and the construct's name) is the namespace (`defaultNamespace`), and a name too long for it is said as such.
 */
export function checkNamespace(
  namespace: unknown,
  fail: (m: string) => never,
  fallback?: string,
): { namespace: string; defaultNamespace: boolean } {
  if (namespace === undefined && fallback !== undefined && fallback.length > 63) {
    fail(
      `the default kubernetes.namespace, '${fallback}', is longer than 63 characters: give a shorter name, or set ` +
        'kubernetes.namespace',
    );
  }
  const ns = namespace ?? fallback;
  if (typeof ns !== 'string' || !NAMESPACE_RE.test(ns)) {
    fail(`kubernetes.namespace (${quote(ns)}) must be a DNS label: lowercase letters, digits and '-', at most 63`);
  }
  if (CLUSTER_NAMESPACES.includes(ns)) {
    fail(
      `kubernetes.namespace ('${ns}') is one every cluster has: the stack creates a namespace of its own (and ` +
        'deletes it with its objects), so give one no other object uses',
    );
  }
  return { namespace: ns, defaultNamespace: ns !== namespace };
}

/** `kubernetes.requests` or `kubernetes.limits` checked: cpu and memory, each a Kubernetes quantity. */
export function checkResources(
  prop: 'requests' | 'limits',
  value: KubernetesResources | undefined,
  fail: (m: string) => never,
): void {
  if (value !== undefined && (typeof value !== 'object' || value === null)) {
    fail(`kubernetes.${prop} (${quote(value)}) must be { cpu?, memory? }, e.g. { cpu: '250m', memory: '256Mi' }`);
  }
  for (const [name, q] of Object.entries(value ?? {})) {
    if (!['cpu', 'memory'].includes(name) || !isQuantity(q)) {
      fail(`kubernetes.${prop}.${name} (${quote(q)}) must be a quantity of cpu or memory, e.g. '250m' or '256Mi'`);
    }
  }
}

/**
 * Requests and limits as the pod will have them (the defaults filled in) checked against each other, since Kubernetes
 * refuses a request above its limit; and no memory in thousandths of a byte (`m`), a slip for `Mi`.
 */
export function checkWithinLimits(
  resources: { readonly requests: KubernetesResources; readonly limits: KubernetesResources },
  given: { readonly requests: boolean; readonly limits: boolean },
  fail: (m: string) => never,
): void {
  const shown = (prop: 'requests' | 'limits', name: 'cpu' | 'memory'): string =>
    `kubernetes.${prop}.${name} (${quote(resources[prop][name])}${given[prop] ? '' : ', the default'})`;
  for (const prop of ['requests', 'limits'] as const) {
    const memory = resources[prop].memory;
    if (memory !== undefined && memory.endsWith('m')) {
      fail(
        `${shown(prop, 'memory')} is in thousandths of a byte: write Mi for mebibytes, e.g. '${memory.slice(0, -1)}Mi'`,
      );
    }
    // a bare number counts bytes: a container is given too little to start (or is never scheduled, for cpu)
    if (memory !== undefined && compareQuantities(memory, '1Mi') < 0) {
      const bytes = /^[0-9.eE+-]+$/.test(memory) ? ' (a bare number counts bytes)' : '';
      fail(`${shown(prop, 'memory')} is less than a mebibyte${bytes}: write Mi or Gi, e.g. '256Mi'`);
    }
    const cpu = resources[prop].cpu;
    if (cpu !== undefined && /[KMGTPE]i$/.test(cpu)) {
      fail(`${shown(prop, 'cpu')} has a suffix of bytes: cpu counts cores or thousandths of one, e.g. '250m' or 0.5`);
    }
  }
  for (const name of ['cpu', 'memory'] as const) {
    const request = resources.requests[name];
    const limit = resources.limits[name];
    if (request !== undefined && limit !== undefined && compareQuantities(request, limit) > 0) {
      fail(
        `${shown('requests', name)} is above ${shown('limits', name)}, which Kubernetes refuses: raise the limit or lower the request`,
      );
    }
  }
}

/** What `createGatewayKubernetes` needs from the `Gateway`. */
export interface GatewayKubernetesOptions {
  readonly name: string;
  readonly target: KubernetesTarget;
  readonly replicas: number;
  /** The port agents use (the Service's). */
  readonly port: number;
  /** A metrics port of its own, when metrics have one. */
  readonly metricsPort?: number;
  /**
   * The image reference pods run, whether nodes may pull it, and a name that changes with it (known at synthesis:
   * a pushed image's digest is not).
   */
  readonly image: { readonly reference: string; readonly pull: boolean; readonly name: string };
  /** The config as synthesized (JSON). */
  readonly configText: () => string;
  /** The secrets the config names (name, sensitive value), the user's session key among them when given. */
  readonly secrets: readonly (readonly [string, string])[];
  readonly revision?: SecretsRevision;
  /** Resources to create first (the image's push). */
  readonly dependsOn?: readonly ITerraformDependable[];
  /** The stack output that reports the config: it records a new one only once the hand-over gave it. */
  readonly summary: ConfigSummary;
}
