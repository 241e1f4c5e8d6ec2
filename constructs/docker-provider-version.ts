import { TerraformStack } from 'cdktf';
import { Construct } from 'constructs';

/**
 * The kreuzwerker/docker releases the synthesized resources need: an uploaded file's `owner` and `group`
 * (secrets readable by the gateway's user alone) arrived in 4.6.0. `@cdktf/provider-docker`'s bindings pin an
 * older release (3.6.2), which would refuse those attributes; a stack with a gateway or a dashboard asks for this
 * range instead. `npm run toolchain` builds a release inside it (tools/terraform/provider-docker/go.mod).
 */
export const DOCKER_PROVIDER_CONSTRAINT = '~> 4.6';

/** Sets the stack's `required_providers.docker.version` to {@link DOCKER_PROVIDER_CONSTRAINT} (idempotent). */
export function requireDockerProvider(scope: Construct): void {
  TerraformStack.of(scope).addOverride('terraform.required_providers.docker.version', DOCKER_PROVIDER_CONSTRAINT);
}
