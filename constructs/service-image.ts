import * as fs from 'node:fs';
import { ENV_NAME_PATTERN, ENV_NAME_RE } from '../src/config';
import * as path from 'node:path';
import { AssetType, TerraformAsset, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { Image } from '@cdktf/provider-docker/lib/image';
import { dockerName, quote } from './docker-names';
import { checkNestedProps, type PropKeys } from './known-props';

/** How to build a backend image from a Docker build context. */
export interface ServiceContainerBuild {
  /**
   * The build context directory (relative to the directory the app runs in, or absolute). Synthesis copies it
   * into the output as an asset, so keep it small (`.dockerignore` is applied by Docker, not by the copy).
   */
  readonly context: string;
  /**
   * The Dockerfile, relative to `context`.
   * @default 'Dockerfile'
   */
  readonly dockerfile?: string;
  /**
   * Docker build arguments (`--build-arg NAME=value`).
   * @default - none
   */
  readonly args?: Readonly<Record<string, string>>;
}

const BUILD_PROPS: PropKeys<ServiceContainerBuild> = { context: true, dockerfile: true, args: true };

/** Checks a build block and returns it with the context made absolute. */
export function checkBuild(build: ServiceContainerBuild, fail: (m: string) => never): ServiceContainerBuild {
  checkNestedProps(build, BUILD_PROPS, 'container.build', fail);
  if (typeof build !== 'object' || build === null || typeof build.context !== 'string' || build.context === '') {
    return fail("container.build.context must be the path of a Docker build context directory, e.g. 'backend'");
  }
  const context = path.resolve(build.context);
  if (!fs.statSync(context, { throwIfNoEntry: false })?.isDirectory()) {
    fail(
      `container.build.context ${quote(build.context)} is not a directory (resolved to ${context}; relative paths start where the app runs)`,
    );
  }
  const dockerfile = build.dockerfile ?? 'Dockerfile';
  const file = path.resolve(context, dockerfile);
  if (typeof dockerfile !== 'string' || path.relative(context, file).startsWith('..') || !fs.existsSync(file)) {
    fail(`container.build.dockerfile ${quote(dockerfile)} is not a file inside the context ${context}`);
  }
  for (const [key, value] of Object.entries(build.args ?? {})) {
    if (!ENV_NAME_RE.test(key) || typeof value !== 'string') {
      fail(`container.build.args.${key} must be a string under a name matching ${ENV_NAME_PATTERN}`);
    }
  }
  return { context, dockerfile, args: build.args };
}

/**
 * The backend images a stack builds, each a `docker_image` with a build block built by the Docker provider from a
 * build context (a `TerraformAsset`), tagged with the context's hash as the gateway image is (a change is a new
 * image, built before the old one is removed; `cdktf destroy` removes it). One per stack (id `McpBackendImages`), so that an image's resources do not depend on
 * where in the construct tree its service is declared (TypeScript or a manifest synthesize the same).
 */
export class BackendImages extends Construct {
  /** The stack's backend images, created on first use. */
  public static of(scope: Construct): BackendImages {
    const stack = TerraformStack.of(scope);
    const existing = stack.node.tryFindChild(BackendImages.ID);
    return existing instanceof BackendImages ? existing : new BackendImages(stack, BackendImages.ID);
  }

  private static readonly ID = 'McpBackendImages';
  private readonly images = new Map<string, Image>();

  /**
   * The image built from `build` under `name` (e.g. the backend's host; the stack id is prefixed).
   * @param build checked by {@link checkBuild}
   */
  public imageFor(name: string, build: ServiceContainerBuild): Image {
    const repository = dockerName(this, name)
      .toLowerCase()
      .replace(/[^a-z0-9_.-]/g, '-');
    const existing = this.images.get(repository);
    if (existing !== undefined) return existing;
    const scope = new Construct(this, repository);
    const context = new TerraformAsset(scope, 'Context', { path: build.context, type: AssetType.DIRECTORY });
    // tagged with the context's hash: a changed backend is a new image, built before the old one goes
    const image = new Image(scope, 'Image', {
      name: `${repository}:${context.assetHash.slice(0, 12).toLowerCase()}`,
      buildAttribute: {
        context: context.path,
        dockerfile: build.dockerfile,
        ...(build.args !== undefined && Object.keys(build.args).length > 0 ? { buildArgs: { ...build.args } } : {}),
      },
      keepLocally: false,
      forceRemove: true,
      lifecycle: { createBeforeDestroy: true },
    });
    this.images.set(repository, image);
    return image;
  }
}
