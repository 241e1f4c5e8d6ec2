import { TerraformProvider } from 'cdktf';
import { Construct } from 'constructs';
import { KUBERNETES_PROVIDER_CONSTRAINT } from './kubernetes-object';

/** How the stack reaches a Kubernetes cluster. */
export interface KubernetesClusterProps {
  /**
   * The kubeconfig file, e.g. `process.env.KUBECONFIG`.
   * @default - the provider's own default: `KUBE_CONFIG_PATH`, else in-cluster credentials
   */
  readonly configPath?: string;
  /** The kubeconfig context to use. @default - the file's current context */
  readonly configContext?: string;
}

/**
 * The hashicorp/kubernetes provider of a stack whose gateways set `kubernetes`: the cluster they deploy to. A stack
 * that already configures that provider (e.g. with `@cdktf/provider-kubernetes`) does not need it.
 *
 * @example
 * new KubernetesCluster(stack, 'cluster', { configPath: process.env.KUBECONFIG });
 */
export class KubernetesCluster extends TerraformProvider {
  /** The kubeconfig file, when given: the deploy's kubectl uses it too. */
  public readonly configPath?: string;
  /** The kubeconfig context, when given. */
  public readonly configContext?: string;

  public constructor(scope: Construct, id: string, props: KubernetesClusterProps = {}) {
    super(scope, id, {
      terraformResourceType: 'kubernetes',
      terraformProviderSource: 'hashicorp/kubernetes',
      terraformGeneratorMetadata: {
        providerName: 'kubernetes',
        providerVersionConstraint: KUBERNETES_PROVIDER_CONSTRAINT,
      },
    });
    for (const [prop, value] of Object.entries(props)) {
      if (value !== undefined && (typeof value !== 'string' || value === '')) {
        throw new Error(`KubernetesCluster '${id}': ${prop} (${JSON.stringify(value)}) must be a non-empty string`);
      }
    }
    this.configPath = props.configPath;
    this.configContext = props.configContext;
  }

  protected synthesizeAttributes(): Record<string, unknown> {
    return {
      ...(this.configPath === undefined ? {} : { config_path: this.configPath }),
      ...(this.configContext === undefined ? {} : { config_context: this.configContext }),
    };
  }
}
