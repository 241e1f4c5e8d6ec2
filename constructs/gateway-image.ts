import { AssetType, TerraformAsset, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { Image } from '@cdktf/provider-docker/lib/image';
import { gatewayImageContextPath } from './gateway-image-context';

/** The base image a gateway is built on unless `baseImage` says otherwise: the current Node LTS, slim. */
export const DEFAULT_BASE_IMAGE = 'node:22-bookworm-slim';

/**
 * The gateway runtime image of a stack, built by the Docker provider from the build context shipped in this
 * package (a `TerraformAsset`, copied into the synthesized output).
 *
 * One per stack (id `McpGatewayImage`), so that gateways share one build; one `docker_image` per distinct base
 * image. The image is rebuilt when the context changes, through a `triggers` entry on the context's hash.
 */
export class GatewayImage extends Construct {
  /** The stack's gateway image, created on first use. */
  public static of(scope: Construct): GatewayImage {
    const stack = TerraformStack.of(scope);
    const existing = stack.node.tryFindChild(GatewayImage.ID);
    return existing instanceof GatewayImage ? existing : new GatewayImage(stack, GatewayImage.ID);
  }

  private static readonly ID = 'McpGatewayImage';

  /** The build context asset. */
  public readonly context: TerraformAsset;
  private readonly images = new Map<string, Image>();

  private constructor(scope: Construct, id: string) {
    super(scope, id);
    this.context = new TerraformAsset(this, 'ImageContext', {
      path: gatewayImageContextPath(),
      type: AssetType.DIRECTORY,
    });
  }

  /** The `docker_image` built on `baseImage` (one per distinct base image). */
  public imageFor(baseImage: string): Image {
    const existing = this.images.get(baseImage);
    if (existing !== undefined) return existing;
    const tag = baseImage
      .replace(/[^A-Za-z0-9_.-]/g, '-')
      .replace(/^[.-]+/, '')
      .slice(0, 128);
    const stackName = TerraformStack.of(this)
      .node.id.toLowerCase()
      .replace(/[^a-z0-9_.-]/g, '-');
    const image = new Image(this, baseImage === DEFAULT_BASE_IMAGE ? 'Resource' : `Image-${tag}`, {
      name: `cdktf-mcp-gateway-${stackName}:${tag}`,
      buildAttribute: {
        context: this.context.path,
        buildArgs: { BASE_IMAGE: baseImage },
      },
      triggers: { context_sha: this.context.assetHash },
      keepLocally: false,
    });
    this.images.set(baseImage, image);
    return image;
  }
}
