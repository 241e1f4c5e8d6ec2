import { Lazy, TerraformOutput } from 'cdktf';
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
 * `~ validate_input = true -> false`, an added tool is one line of `tools`. The config itself reaches the gateway as a sensitive upload, which plans do not print; the
 * digest here is the one the gateway reports on `/readyz` once it serves that config. Never a secret: tokens are
 * listed by id, secrets not at all.
 */
export class ConfigSummary extends Construct {
  /** @param outputId the output's name, e.g. `gateway_support_config` */
  public constructor(scope: Construct, id: string, outputId: string, config: () => GatewayConfig) {
    super(scope, id);
    new TerraformOutput(this, 'Resource', {
      value: Lazy.anyValue({ produce: () => summaryOf(config()) }),
      description: 'What the gateway serves: the settings a review looks for, and the digest /readyz reports',
    }).overrideLogicalId(outputId);
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
