import {
  TerraformProvider,
  TerraformResource,
  TerraformStack,
  type ITerraformDependable,
  type TerraformMetaArguments,
} from 'cdktf';
import { Construct } from 'constructs';
import { providerSource } from '../provider-source';
import type { GatewayKubernetesService } from './kubernetes-props';

/**
 * The hashicorp/kubernetes releases the synthesized objects need: `match_label_keys` and `node_taints_policy` in a
 * topology spread constraint. `npm run toolchain` builds 3.2.1 into its provider mirror.
 */
export const KUBERNETES_PROVIDER_CONSTRAINT = '~> 3.2';

/**
 * Sets the stack's `required_providers.kubernetes` to hashicorp/kubernetes {@link KUBERNETES_PROVIDER_CONSTRAINT},
 * its source as the engine names it ({@link providerSource}).
 */
export function requireKubernetesProvider(scope: Construct): void {
  const stack = TerraformStack.of(scope);
  stack.addOverride('terraform.required_providers.kubernetes.source', providerSource('hashicorp/kubernetes'));
  stack.addOverride('terraform.required_providers.kubernetes.version', KUBERNETES_PROVIDER_CONSTRAINT);
  if (checkedForCluster.has(stack)) return;
  checkedForCluster.add(stack);
  // cdktf's own refusal names only the provider; this one says which construct is the cluster (a manifest cannot)
  stack.node.addValidation({
    validate: () =>
      stack.node.findAll().some((c) => c instanceof TerraformProvider && c.terraformResourceType === 'kubernetes')
        ? []
        : [
            'the stack deploys to Kubernetes but names no cluster: add ' +
              "new KubernetesCluster(stack, 'cluster', { configPath: process.env.KUBECONFIG }) to it " +
              '(or a hashicorp/kubernetes provider of your own)',
          ],
  });
}

/** The stacks given the check that a cluster is named. */
const checkedForCluster = new WeakSet<TerraformStack>();

/** A Terraform body in the provider's own (snake_case) names; nested blocks are objects or lists of objects. */
export type KubernetesBody = Record<string, unknown>;

/**
 * One hashicorp/kubernetes resource written as the provider's schema names it. The package synthesizes the few
 * Kubernetes resources a gateway needs directly rather than through generated bindings: those pin a provider
 * release older than the one the objects need and weigh more than the rest of the package.
 */
export class KubernetesResource extends TerraformResource {
  public constructor(
    scope: Construct,
    id: string,
    type: string,
    private readonly body: KubernetesBody,
    meta: TerraformMetaArguments = {},
  ) {
    super(scope, id, {
      terraformResourceType: type,
      terraformGeneratorMetadata: { providerName: 'kubernetes' },
      ...meta,
    });
  }

  protected synthesizeAttributes(): Record<string, unknown> {
    return this.body;
  }
}

/** What the constructs of each stack took that a cluster has once (`namespace mcp`, `node port 30080`): by whom. */
const claims = new WeakMap<TerraformStack, Map<string, string>>();

/** Records that `owner` takes `what` in `scope`'s stack; the owner that took it already, if any. */
function claim(scope: Construct, what: string, owner: string): string | undefined {
  const stack = TerraformStack.of(scope);
  const taken = claims.get(stack) ?? new Map<string, string>();
  claims.set(stack, taken);
  const other = taken.get(what);
  if (other === undefined) taken.set(what, owner);
  return other;
}

/**
 * A namespace the stack creates for `owner`'s objects, labelled as this package's. Each construct owns its own and
 * deletes it with its objects, so a namespace another construct of the stack already owns is refused here, rather
 * than by the cluster in the middle of a deploy.
 * @param owner the construct as its errors name it, e.g. `LimitStore 'limits'`
 * @param isDefault whether `name` is the construct's default, not one its props give
 */
export function createNamespace(scope: Construct, name: string, owner: string, isDefault: boolean): KubernetesResource {
  const other = claim(scope, `namespace ${name}`, owner);
  if (other !== undefined) {
    const which = isDefault ? `the default kubernetes.namespace, '${name}',` : `kubernetes.namespace '${name}'`;
    const fix = isDefault ? 'set kubernetes.namespace to another one' : 'give this one another namespace';
    throw new Error(
      `${owner}: ${which} is also the namespace of ${other}; each gateway, store and dashboard creates its own ` +
        `namespace and deletes it with its objects: ${fix}`,
    );
  }
  return new KubernetesResource(scope, 'Namespace', 'kubernetes_namespace_v1', {
    metadata: { name, labels: { 'app.kubernetes.io/managed-by': 'cdktf-mcp-gateway' } },
  });
}

/**
 * A Deployment of one pod (a store, a dashboard), waited for until it is ready; `recreate` stops the old pod before
 * the new one starts, for a server two of which must never share its data.
 */
export function createSinglePod(
  scope: Construct,
  metadata: { name: string; namespace: string; labels: Record<string, string> },
  pod: KubernetesBody,
  options: { recreate?: boolean; dependsOn: ITerraformDependable[] },
): KubernetesResource {
  return new KubernetesResource(
    scope,
    'Deployment',
    'kubernetes_deployment_v1',
    {
      metadata,
      spec: {
        replicas: '1',
        selector: { match_labels: metadata.labels },
        ...(options.recreate === true ? { strategy: { type: 'Recreate' } } : {}),
        template: { metadata: { labels: metadata.labels }, spec: pod },
      },
      wait_for_rollout: true,
      timeouts: { create: '5m', update: '5m' },
    },
    { dependsOn: options.dependsOn },
  );
}

/**
 * The Service in front of a stack's pods, selecting them by their labels (`metadata.labels`); each port forwards to
 * the container port of its name, and a `NodePort` Service's node port is the first port's. With `localTraffic`, a
 * `NodePort` or `LoadBalancer` Service forwards only to pods on the node a client reached.
 */
export function createService(
  scope: Construct,
  metadata: { name: string; namespace: string; labels: Record<string, string> },
  options: {
    service: GatewayKubernetesService;
    ports: readonly { readonly name: string; readonly port: number }[];
    localTraffic?: boolean;
    /** The construct as its errors name it, e.g. `Gateway 'support'`. */
    owner: string;
  },
  meta: TerraformMetaArguments,
): KubernetesResource {
  const { service, owner } = options;
  const nodePort = service.type === 'NodePort' ? service.nodePort : undefined;
  const other = nodePort === undefined ? undefined : claim(scope, `node port ${nodePort}`, owner);
  if (other !== undefined) {
    throw new Error(
      `${owner}: kubernetes.service.nodePort (${nodePort}) is also the node port of ${other}; a node port is ` +
        "the cluster's, on every node: give each its own, or leave it out and Kubernetes picks a free one",
    );
  }
  const port = options.ports.map((p, i) => ({
    name: p.name,
    port: p.port,
    target_port: p.name,
    ...(i === 0 && nodePort !== undefined ? { node_port: nodePort } : {}),
  }));
  const local = options.localTraffic === true && service.type !== 'ClusterIP';
  return new KubernetesResource(
    scope,
    'Service',
    'kubernetes_service_v1',
    {
      metadata,
      spec: {
        type: service.type,
        selector: metadata.labels,
        port,
        ...(local ? { external_traffic_policy: 'Local' } : {}),
      },
    },
    meta,
  );
}
