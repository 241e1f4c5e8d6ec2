import { TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { Network } from '@cdktf/provider-docker/lib/network';
import { dockerName } from './docker-names';

/**
 * The stack's Docker network: every gateway container and every service container joins it, so a gateway
 * reaches a service's container under the host of the service's endpoint URL (its network alias).
 *
 * One per stack, created on first use under the stack with the id `McpNetwork`.
 */
export class GatewayNetwork extends Construct {
  /** The stack's network, created on first use. */
  public static of(scope: Construct): GatewayNetwork {
    const stack = TerraformStack.of(scope);
    const existing = stack.node.tryFindChild(GatewayNetwork.ID);
    return existing instanceof GatewayNetwork ? existing : new GatewayNetwork(stack, GatewayNetwork.ID);
  }

  private static readonly ID = 'McpNetwork';

  /** The `docker_network` resource. */
  public readonly resource: Network;

  private constructor(scope: Construct, id: string) {
    super(scope, id);
    this.resource = new Network(this, 'Resource', { name: dockerName(this, 'mcp') });
  }

  /** The network's name (what containers join). */
  public get name(): string {
    return this.resource.name;
  }
}
