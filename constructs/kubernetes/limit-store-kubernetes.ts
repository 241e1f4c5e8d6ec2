import { Construct } from 'constructs';
import { k8sLabels, terraformLiteral } from '../../src/config';
import { quote } from '../docker-names';
import { containerSecurity } from './gateway-pods';
import {
  createNamespace,
  createService,
  createSinglePod,
  KubernetesResource,
  requireKubernetesProvider,
} from './kubernetes-object';
import { checkNestedProps, type PropKeys } from '../known-props';
import { checkNamespace, checkResources, checkWithinLimits, type KubernetesResources } from './kubernetes-props';
import { compareQuantities, isQuantity } from './quantity';

/** A `LimitStore` run in a Kubernetes cluster, beside gateways deployed there. */
export interface LimitStoreKubernetes {
  /** The namespace the stack creates for the store's objects. @default `mcp-store-NAME` */
  readonly namespace?: string;
  /**
   * A PersistentVolumeClaim for the store's data (its append-only file), so counts, quotas and ended sessions
   * survive the store's pod moving to another node. Without one the data lives as long as the pod.
   * @default - an `emptyDir`: the data is lost when the pod is replaced
   */
  readonly storage?: {
    /** The claim's size, a Kubernetes quantity. */
    readonly size: string;
    /** @default - the cluster's default storage class */
    readonly storageClassName?: string;
  };
  /** @default { cpu: '50m', memory: '64Mi' } */
  readonly requests?: KubernetesResources;
  /** @default { memory: '256Mi' } */
  readonly limits?: KubernetesResources;
}

/** The `kubernetes` prop of a `LimitStore` as checked, with its defaults. */
export interface LimitStoreKubernetesTarget {
  readonly namespace: string;
  /** Whether `namespace` is the default (`kubernetes.namespace` not given). */
  readonly defaultNamespace: boolean;
  readonly storage?: { readonly size: string; readonly storageClassName?: string };
  readonly requests: KubernetesResources;
  readonly limits: KubernetesResources;
}

const STORE_KUBERNETES_PROPS: PropKeys<LimitStoreKubernetes> = {
  namespace: true,
  storage: true,
  requests: true,
  limits: true,
};
const STORAGE_PROPS: PropKeys<NonNullable<LimitStoreKubernetes['storage']>> = { size: true, storageClassName: true };

/** The `kubernetes` prop of a `LimitStore` checked: a bad value fails naming the field, the value and the fix. */
export function checkLimitStoreKubernetes(
  name: string,
  k: LimitStoreKubernetes,
  fail: (m: string) => never,
): LimitStoreKubernetesTarget {
  if (typeof k !== 'object' || k === null) {
    fail(`kubernetes (${quote(k)}) must be an object, e.g. { namespace: 'mcp-store' }`);
  }
  checkNestedProps(k, STORE_KUBERNETES_PROPS, 'kubernetes', fail);
  const { namespace, defaultNamespace } = checkNamespace(k.namespace, fail, `mcp-store-${name}`);
  const storage = k.storage;
  if (storage !== undefined) {
    if (typeof storage !== 'object' || storage === null) {
      fail(`kubernetes.storage (${quote(storage)}) must be { size, storageClassName? }, e.g. { size: '1Gi' }`);
    }
    checkNestedProps(storage, STORAGE_PROPS, 'kubernetes.storage', fail);
    if (!isQuantity(storage.size) || compareQuantities(storage.size, '0') <= 0) {
      fail(`kubernetes.storage.size (${quote(storage.size)}) must be a quantity of storage, e.g. '1Gi'`);
    }
    if (
      storage.storageClassName !== undefined &&
      (typeof storage.storageClassName !== 'string' ||
        !/^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/.test(storage.storageClassName))
    ) {
      fail(`kubernetes.storage.storageClassName (${quote(storage.storageClassName)}) must be a storage class's name`);
    }
  }
  checkResources('requests', k.requests, fail);
  checkResources('limits', k.limits, fail);
  const resources = { requests: k.requests ?? { cpu: '50m', memory: '64Mi' }, limits: k.limits ?? { memory: '256Mi' } };
  checkWithinLimits(resources, { requests: k.requests !== undefined, limits: k.limits !== undefined }, fail);
  return {
    namespace,
    defaultNamespace,
    ...(storage === undefined ? {} : { storage }),
    ...resources,
  };
}

/** The directory of the store's config file in its pod (a Secret: it holds the password). */
const CONFIG_DIR = '/etc/cdktf-mcp-gateway';
/** The uid the official image and the one `scripts/redis-image.sh` builds run the server as. */
const REDIS_UID = '999';

/** What {@link createLimitStoreKubernetes} needs from the `LimitStore`. */
export interface LimitStoreKubernetesOptions {
  readonly name: string;
  readonly image: string;
  /** The port the server listens on (its settings say so), in its pod and on its Service. */
  readonly port: number;
  readonly target: LimitStoreKubernetesTarget;
  /** The server's settings, one per line (the password is added apart, as a sensitive value). */
  readonly settings: readonly string[];
  readonly password?: string;
}

/**
 * The store's objects in a namespace of its own: a Deployment of one pod (replaced by stopping the old one first,
 * so two servers never share the data), a ClusterIP Service the gateways reach it at, its config as a Secret, and
 * a PersistentVolumeClaim when `storage` is set.
 * @returns the store's URL from inside the cluster
 */
export function createLimitStoreKubernetes(scope: Construct, options: LimitStoreKubernetesOptions): string {
  requireKubernetesProvider(scope);
  const { name, target } = options;
  const ns = target.namespace;
  const labels = k8sLabels(name, 'limit-store');
  const meta = { name, namespace: ns, labels };
  const namespace = createNamespace(scope, ns, `LimitStore '${name}'`, target.defaultNamespace);
  const inNs = { dependsOn: [namespace] };
  // a sensitive password keeps the whole file out of plans
  const password = options.password === undefined ? '' : `requirepass "${options.password}"\n`;
  const config = new KubernetesResource(
    scope,
    'Config',
    'kubernetes_secret_v1',
    { metadata: meta, data: { 'store.conf': `${terraformLiteral(options.settings.join('\n'))}\n${password}` } },
    inNs,
  );
  const claim =
    target.storage === undefined
      ? undefined
      : new KubernetesResource(
          scope,
          'Data',
          'kubernetes_persistent_volume_claim_v1',
          {
            metadata: { ...meta, name: `${name}-data` },
            spec: {
              access_modes: ['ReadWriteOnce'],
              resources: { requests: { storage: target.storage.size } },
              ...(target.storage.storageClassName === undefined
                ? {}
                : { storage_class_name: target.storage.storageClassName }),
            },
            wait_until_bound: false,
          },
          inNs,
        );
  createSinglePod(scope, meta, storePod(options, claim !== undefined), {
    recreate: true,
    dependsOn: [config, ...(claim === undefined ? [] : [claim])],
  });
  createService(
    scope,
    meta,
    { service: { type: 'ClusterIP' }, ports: [{ name: 'redis', port: options.port }], owner: `LimitStore '${name}'` },
    inNs,
  );
  return `redis://${name}.${ns}.svc.cluster.local:${options.port}`;
}

/** The store's pod: non-root, read-only root, no capabilities; its data on the claim when there is one. */
function storePod(options: LimitStoreKubernetesOptions, claimed: boolean): Record<string, unknown> {
  const tcp = (period: number) => ({
    tcp_socket: { port: 'redis' },
    period_seconds: period,
    timeout_seconds: 2,
    failure_threshold: 3,
  });
  return {
    automount_service_account_token: false,
    enable_service_links: false,
    security_context: {
      run_as_non_root: true,
      run_as_user: REDIS_UID,
      run_as_group: REDIS_UID,
      fs_group: REDIS_UID,
      seccomp_profile: { type: 'RuntimeDefault' },
    },
    container: [
      {
        name: 'store',
        image: options.image,
        image_pull_policy: 'IfNotPresent',
        command: ['redis-server', `${CONFIG_DIR}/store.conf`],
        port: [{ name: 'redis', container_port: options.port }],
        readiness_probe: tcp(1),
        liveness_probe: tcp(10),
        resources: { requests: { ...options.target.requests }, limits: { ...options.target.limits } },
        security_context: containerSecurity(),
        volume_mount: [
          { name: 'config', mount_path: CONFIG_DIR, read_only: true },
          { name: 'data', mount_path: '/data' },
        ],
      },
    ],
    volume: [
      { name: 'config', secret: { secret_name: options.name, default_mode: '0440' } },
      claimed
        ? { name: 'data', persistent_volume_claim: { claim_name: `${options.name}-data` } }
        : { name: 'data', empty_dir: {} },
    ],
  };
}
