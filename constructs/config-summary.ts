import { type DataResource, Lazy, TerraformOutput } from 'cdktf';
import { Construct } from 'constructs';
import {
  configDigest,
  DEFAULT_VALIDATE_INPUT,
  DEFAULT_VALIDATE_OUTPUT,
  DEFAULT_VALIDATION_ERRORS,
  renderGatewayConfig,
  type GatewayConfig,
} from '../src/config';

/**
 * The fields of a gateway's config a reviewer looks for in a plan, as a stack output (`gateway_NAME_config`) that
 * Terraform diffs attribute by attribute under "Changes to Outputs": a toggled `validate_input` reads
 * `~ validate_input = true -> false`, an added tool is one line of `tools`. The config itself reaches the gateway
 * through its hand-over, whose plan shows only a digest; the digest here is the one the gateway reports on `/readyz` once it serves that config. Never a secret: tokens are
 * listed by id, secrets not at all.
 */
export class ConfigSummary extends Construct {
  private handover?: DataResource;

  /** @param outputId the output's name, e.g. `gateway_support_config` */
  public constructor(scope: Construct, id: string, outputId: string, config: () => GatewayConfig) {
    super(scope, id);
    new TerraformOutput(this, 'Resource', {
      value: Lazy.anyValue({
        produce: () => ({
          ...summaryOf(config()),
          ...(this.handover === undefined ? {} : { handover: this.handover.id }),
        }),
      }),
      description: 'What the gateway serves: the settings a review looks for, and the digest /readyz reports',
    }).overrideLogicalId(outputId);
  }

  /**
   * Ties the summary to the run that hands the gateway its config (its id, new at each run): Terraform records a
   * new summary only once that run succeeded, so after a deploy the gateway refused, the state still says what
   * serves and the next plan shows the change as pending. (An output's `depends_on` does not: its value is
   * recorded even when the resource it depends on failed.)
   */
  public after(handover: DataResource): void {
    this.handover = handover;
  }
}

function summaryOf(config: GatewayConfig): Record<string, unknown> {
  const g = config.gateway;
  const auth = g.auth === 'none' ? undefined : g.auth;
  return {
    validate_input: g.validate_input ?? DEFAULT_VALIDATE_INPUT,
    validate_output: g.validate_output ?? DEFAULT_VALIDATE_OUTPUT,
    validation_errors: g.validation_errors ?? DEFAULT_VALIDATION_ERRORS,
    tools: config.tools.map((t) => t.name),
    tokens: auth?.tokens?.map((t) => t.id) ?? [],
    oauth_issuer: auth?.oauth?.issuer ?? '',
    config_digest: configDigest(renderGatewayConfig(config)),
  };
}
