import { AssetType, TerraformAsset, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { Image } from '@cdktf/provider-docker/lib/image';
import { requireDockerProvider } from './docker-provider-version';
import { gatewayImageContextPath } from './gateway-image-context';

/** The base image a gateway is built on unless `baseImage` says otherwise: the current Node LTS, slim. */
export const DEFAULT_BASE_IMAGE = 'node:22-bookworm-slim';

/**
 * The gateway runtime image of a stack, built by the Docker provider from the build context shipped in this
 * package (a `TerraformAsset`, copied into the synthesized output).
 *
 * One per stack (id `McpGatewayImage`), so that gateways share one build; one `docker_image` per distinct base
 * image. The tag carries the context's hash, so a package upgrade is a new image under a new name: it is built
 * before the old one is removed (`create_before_destroy`), and the old one goes only after every container and
 * task that ran it was replaced. `cdktf destroy` removes it (`keep_locally: false`; `force_remove` because a
 * Swarm keeps its stopped tasks' containers, which Docker counts as users of the image).
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
    requireDockerProvider(this);
    this.context = new TerraformAsset(this, 'ImageContext', {
      path: gatewayImageContextPath(),
      type: AssetType.DIRECTORY,
    });
  }

  /**
   * The name (repository:tag) of the image built on `baseImage`, under `registry` (`host:port`) when it is pushed
   * there; its tag carries the context's hash.
   */
  public nameFor(baseImage: string, registry?: string): string {
    const stackName = TerraformStack.of(this)
      .node.id.toLowerCase()
      .replace(/[^a-z0-9_.-]/g, '-');
    const repository = `${registry === undefined ? '' : `${registry}/`}cdktf-mcp-gateway-${stackName}`;
    return `${repository}:${tagOf(baseImage)}-${this.context.assetHash.slice(0, 12).toLowerCase()}`;
  }

  /** The `docker_image` built on `baseImage` (one per distinct base image and registry). */
  public imageFor(baseImage: string, registry?: string): Image {
    const key = `${registry ?? ''} ${baseImage}`;
    const existing = this.images.get(key);
    if (existing !== undefined) return existing;
    const tag = tagOf(baseImage);
    const id = baseImage === DEFAULT_BASE_IMAGE ? 'Resource' : `Image-${tag}`;
    const image = new Image(this, registry === undefined ? id : `${id}-${tagOf(registry)}`, {
      name: this.nameFor(baseImage, registry),
      buildAttribute: {
        context: this.context.path,
        buildArgs: { BASE_IMAGE: baseImage },
        // the context carries its dependencies: the build needs no network, so it gets none
        networkMode: 'none',
      },
      keepLocally: false,
      forceRemove: true,
      lifecycle: { createBeforeDestroy: true },
    });
    this.images.set(key, image);
    return image;
  }
}

/** A base image reference as a Docker tag part (`node:22-bookworm-slim` → `node-22-bookworm-slim`). */
function tagOf(baseImage: string): string {
  return baseImage
    .replace(/[^A-Za-z0-9_.-]/g, '-')
    .replace(/^[.-]+/, '')
    .slice(0, 100);
}
