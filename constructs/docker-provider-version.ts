import { TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { providerSource } from './provider-source';

/**
 * The kreuzwerker/docker releases the synthesized resources need: an uploaded file's `owner` and `group`
 * (secrets readable by the gateway's user alone) arrived in 4.6.0. `@cdktf/provider-docker`'s bindings pin an
 * older release (3.6.2), which would refuse those attributes; a stack with a gateway or a dashboard asks for this
 * range instead. `npm run toolchain` builds a release inside it (toolchain/terraform/provider-docker/go.mod).
 */
export const DOCKER_PROVIDER_CONSTRAINT = '~> 4.6';

/**
 * Sets the stack's `required_providers.docker` to kreuzwerker/docker {@link DOCKER_PROVIDER_CONSTRAINT}, its source
 * as the engine names it ({@link providerSource}); idempotent.
 */
export function requireDockerProvider(scope: Construct): void {
  const stack = TerraformStack.of(scope);
  stack.addOverride('terraform.required_providers.docker.source', providerSource('kreuzwerker/docker'));
  stack.addOverride('terraform.required_providers.docker.version', DOCKER_PROVIDER_CONSTRAINT);
}
