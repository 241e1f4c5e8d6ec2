import * as fs from 'node:fs';
import * as path from 'node:path';
import { packageRoot } from '../src/package-info';

/** Where `npm run build` assembles the image build context, relative to the package root. */
export const IMAGE_CONTEXT_DIR = path.join('dist', 'image-context');

/**
 * The absolute path of the gateway image's Docker build context: a dedicated directory that holds only the
 * `Dockerfile`, its `.dockerignore`, the healthcheck script, the compiled runtime (`dist/src/**` JavaScript)
 * and a `package.json` + `package-lock.json` naming the production dependencies alone (never `node_modules`,
 * never tests).
 *
 * One rule, whether this module runs from source (`constructs/`, via ts-node) or compiled (`dist/constructs/`,
 * also when installed under `node_modules/cdktf-mcp-gateway`): walk up from this file to the package root (the
 * nearest `package.json` named `cdktf-mcp-gateway`) and return `<root>/dist/image-context`, which
 * `npm run build` writes and `npm pack` ships (it is under `files: ["dist/"]`).
 *
 * @throws Error when the context has not been built, saying to run `npm run build`.
 * @example
 * const context = new TerraformAsset(this, 'ImageContext', {
 *   path: gatewayImageContextPath(),
 *   type: AssetType.DIRECTORY,
 * });
 */
export function gatewayImageContextPath(): string {
  const root = packageRoot(__dirname);
  const context = path.join(root, IMAGE_CONTEXT_DIR);
  if (!fs.existsSync(path.join(context, 'Dockerfile'))) {
    throw new Error(
      `The gateway image build context is missing (${context} has no Dockerfile): run npm run build in ${root}`,
    );
  }
  return context;
}
