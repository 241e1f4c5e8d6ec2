import { Lazy } from 'cdktf';
import { Construct } from 'constructs';
import { K8S_CONFIG_KEY, k8sLabels, k8sNames, terraformLiteral } from '../../src/config';
import { createApplyConfig } from './apply-job';
import { podSpec } from './gateway-pods';
import { createNamespace, createService, KubernetesResource, requireKubernetesProvider } from './kubernetes-object';
import type { GatewayKubernetesOptions } from './kubernetes-props';

/**
 * A gateway's objects on Kubernetes. A config change is applied by a Job (run again whenever the config, a secret
 * or the image changes) that runs `apply-config --kubernetes`: it checks the config as the gateway would, copies it
 * into the live ConfigMap and Secret the pods mount, and waits until every ready pod serves it; the deploy reads
 * the outcome it records, so a refused config fails the deploy with the gateway's reason while the pods keep the
 * config they had. The Deployment itself changes only with the image or a setting of its own.
 */
export function createGatewayKubernetes(scope: Construct, options: GatewayKubernetesOptions): KubernetesResource {
  requireKubernetesProvider(scope);
  const { name, target } = options;
  const ns = target.namespace;
  const names = k8sNames(name);
  const labels = k8sLabels(name, 'gateway');
  const meta = (objectName: string, extra: Record<string, string> = {}) => ({
    name: objectName,
    namespace: ns,
    labels: { ...labels, ...extra },
  });

  const namespace = createNamespace(scope, ns, `Gateway '${name}'`, target.defaultNamespace);
  const inNs = { dependsOn: [namespace] };
  const config = new KubernetesResource(
    scope,
    'Config',
    'kubernetes_config_map_v1',
    {
      metadata: meta(names.config),
      data: { [K8S_CONFIG_KEY]: Lazy.stringValue({ produce: () => terraformLiteral(options.configText()) }) },
    },
    inNs,
  );
  const secrets = new KubernetesResource(
    scope,
    'Secrets',
    'kubernetes_secret_v1',
    {
      metadata: meta(names.secrets),
      // each value with a line break (which the gateway drops): the provider leaves an empty value out, and an
      // empty secret must reach the gateway's check, which refuses it by name
      data: Object.fromEntries(options.secrets.map(([n, v]) => [n, `${v}\n`])),
    },
    inNs,
  );
  // the live copy the pods mount: created empty here, written only by the apply job
  const live = (id: string, type: string) =>
    new KubernetesResource(
      scope,
      id,
      type,
      { metadata: meta(names.live) },
      { ...inNs, lifecycle: { ignoreChanges: ['data'] } },
    );
  const liveConfig = live('LiveConfig', 'kubernetes_config_map_v1');
  const liveSecret = live('LiveSecret', 'kubernetes_secret_v1');

  const apply = createApplyConfig(scope, options, namespace, [config, secrets, liveConfig, liveSecret]);
  options.summary.after(apply);

  const deployment = new KubernetesResource(
    scope,
    'Deployment',
    'kubernetes_deployment_v1',
    {
      metadata: meta(names.gateway),
      spec: {
        replicas: String(options.replicas),
        selector: { match_labels: labels },
        strategy: { type: 'RollingUpdate', rolling_update: { max_surge: '1', max_unavailable: '0' } },
        template: { metadata: { labels }, spec: podSpec(options) },
      },
      wait_for_rollout: true,
      timeouts: { create: '5m', update: '5m' },
    },
    { dependsOn: [apply] },
  );
  new KubernetesResource(
    scope,
    'DisruptionBudget',
    'kubernetes_pod_disruption_budget_v1',
    { metadata: meta(names.gateway), spec: { max_unavailable: '1', selector: { match_labels: labels } } },
    inNs,
  );
  createGatewayService(scope, options, meta(names.gateway), inNs);
  return deployment;
}

/** The Service agents call: every node forwards only to its own pods, so a load balancer's check sees a lost node. */
function createGatewayService(
  scope: Construct,
  options: GatewayKubernetesOptions,
  metadata: { name: string; namespace: string; labels: Record<string, string> },
  inNs: { dependsOn: KubernetesResource[] },
): void {
  const ports = [
    { name: 'mcp', port: options.port },
    ...(options.metricsPort === undefined ? [] : [{ name: 'metrics', port: options.metricsPort }]),
  ];
  createService(
    scope,
    metadata,
    { service: options.target.service, ports, localTraffic: true, owner: `Gateway '${options.name}'` },
    inNs,
  );
}
