import {
  AUDIT_LOG_DIR,
  AUDIT_NODE_ENV,
  GATEWAY_CONTAINER_PORT,
  K8S_CONFIG_DIR,
  K8S_CONFIG_KEY,
  k8sLabels,
  k8sNames,
  SECRETS_DIR_ENV,
} from '../../src/config';
import { GATEWAY_UID } from '../container-files';
import type { GatewayKubernetesOptions } from './kubernetes-props';

/** The pod: non-root, read-only root, no capabilities, spread over nodes, drained before it stops. */
export function podSpec(options: GatewayKubernetesOptions): Record<string, unknown> {
  const { target } = options;
  const names = k8sNames(options.name);
  const ports = [
    { name: 'mcp', container_port: GATEWAY_CONTAINER_PORT },
    ...(options.metricsPort === undefined ? [] : [{ name: 'metrics', container_port: options.metricsPort }]),
  ];
  const probe = (path: string, period: number, failures: number) => ({
    http_get: { path, port: 'mcp' },
    period_seconds: period,
    timeout_seconds: 2,
    failure_threshold: failures,
  });
  return {
    automount_service_account_token: false,
    enable_service_links: false,
    security_context: podSecurity(),
    termination_grace_period_seconds: target.drainSeconds + 30,
    topology_spread_constraint: [
      {
        max_skew: 1,
        topology_key: 'kubernetes.io/hostname',
        when_unsatisfiable: 'DoNotSchedule',
        // only this version's pods count (a rolling update starts them beside the old), and a lost node's taint
        // takes it out of the count so its pods can move
        match_label_keys: ['pod-template-hash'],
        node_taints_policy: 'Honor',
        label_selector: { match_labels: k8sLabels(options.name, 'gateway') },
      },
    ],
    container: [
      {
        name: 'gateway',
        image: options.image.reference,
        image_pull_policy: options.image.pull ? 'IfNotPresent' : 'Never',
        args: ['serve', '--config', `${K8S_CONFIG_DIR}/${K8S_CONFIG_KEY}`, '--watch'],
        env: [
          { name: SECRETS_DIR_ENV, value: K8S_CONFIG_DIR },
          { name: AUDIT_NODE_ENV, value_from: { field_ref: { field_path: 'spec.nodeName' } } },
        ],
        port: ports,
        readiness_probe: probe('/readyz', 1, 2),
        liveness_probe: probe('/healthz', 10, 3),
        lifecycle: {
          // the pod is out of the Service's endpoints while this waits; SIGTERM then lets calls in flight finish
          pre_stop: { exec: { command: ['node', '-e', `setTimeout(() => {}, ${target.drainSeconds * 1000})`] } },
        },
        resources: { requests: { ...target.requests }, limits: { ...target.limits } },
        security_context: containerSecurity(),
        volume_mount: [
          { name: 'config', mount_path: K8S_CONFIG_DIR, read_only: true },
          { name: 'tmp', mount_path: '/tmp' },
          { name: 'audit', mount_path: AUDIT_LOG_DIR },
        ],
      },
    ],
    volume: [
      {
        name: 'config',
        // one volume for the config and its secrets: the kubelet swaps both in one step
        projected: {
          default_mode: '0440',
          sources: [
            { config_map: { name: names.live, items: [{ key: K8S_CONFIG_KEY, path: K8S_CONFIG_KEY }] } },
            // every key, each a file named as the config names it: a secret a later config adds reaches the pods
            // with it, in place (a list of keys here would need a new pod template first)
            { secret: { name: names.live } },
          ],
        },
      },
      { name: 'tmp', empty_dir: { size_limit: '64Mi' } },
      // there whatever `audit_log` says, so that changing it (a store added) changes the config, not the pods
      { name: 'audit', empty_dir: { size_limit: '1Gi' } },
    ],
  };
}

/** What every pod of a gateway runs as, as the Kubernetes API spells it (the apply job's manifest takes it so). */
export const POD_SECURITY = {
  runAsNonRoot: true,
  runAsUser: GATEWAY_UID,
  runAsGroup: GATEWAY_UID,
  fsGroup: GATEWAY_UID,
  seccompProfile: { type: 'RuntimeDefault' },
} as const;

/** What every container of a gateway may do, as the Kubernetes API spells it. */
export const CONTAINER_SECURITY = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  runAsNonRoot: true,
  capabilities: { drop: ['ALL'] },
} as const;

/** {@link POD_SECURITY} as the Terraform provider spells it. */
export function podSecurity(): Record<string, unknown> {
  return providerForm(POD_SECURITY);
}

/** {@link CONTAINER_SECURITY} as the Terraform provider spells it. */
export function containerSecurity(): Record<string, unknown> {
  return providerForm(CONTAINER_SECURITY);
}

/** The provider's spelling of API settings: snake_case names, and ids as strings. */
function providerForm(settings: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(settings).map(([k, v]) => [
      k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
      typeof v === 'number' ? String(v) : v,
    ]),
  );
}
