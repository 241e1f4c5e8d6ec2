import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { packageRoot } from '../src/package-info';
import { copyRuntimePackage } from './runtime-package-files';

/** Where `npm run build` assembles the image build context, relative to the package root. */
export const IMAGE_CONTEXT_DIR = path.join('dist', 'image-context');

/**
 * The absolute path of the gateway image's Docker build context: the `Dockerfile`, its `.dockerignore`, the
 * healthcheck script, the compiled runtime (`dist/src/**` JavaScript), a `package.json` naming the production
 * dependencies, and those dependencies in `node_modules`, so that the image builds with no network.
 *
 * In this repository `npm run build` bundles the dependencies into `<root>/dist/image-context` from the tested
 * lockfile. An installed package ships the context without them (they would double its size): the first
 * synthesis copies the context and the installed copies of its dependencies (resolved from the package, as Node
 * resolves them) into a directory of the system's temporary folder named after their contents, and reuses it.
 *
 * @throws Error when the context has not been built, saying to run `npm run build`; or when a dependency the
 * context names is not installed, saying to reinstall.
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
  if (fs.existsSync(path.join(context, 'node_modules'))) return context;
  return withInstalledDependencies(context, root);
}

/** A package directory to copy, and where it goes in the context's node_modules. */
interface Placement {
  readonly from: string;
  readonly to: string;
}

/** The context plus its dependencies' installed copies, assembled once per content (see above). */
function withInstalledDependencies(context: string, root: string): string {
  const placements = placeDependencies(context, root);
  const hash = createHash('sha256');
  for (const file of listFiles(context)) hash.update(file).update(fs.readFileSync(path.join(context, file)));
  for (const p of placements) hash.update(`${p.to}@${readJson(path.join(p.from, 'package.json')).version}`);
  const target = path.join(os.tmpdir(), `cdktf-mcp-gateway-image-context-${hash.digest('hex').slice(0, 16)}`);
  if (fs.existsSync(target)) return target;
  const draft = `${target}.${process.pid}.tmp`;
  fs.rmSync(draft, { recursive: true, force: true });
  fs.cpSync(context, draft, { recursive: true });
  for (const p of placements) copyRuntimePackage(p.from, path.join(draft, p.to));
  try {
    fs.renameSync(draft, target);
  } catch (err) {
    // another synthesis assembled the same context first
    fs.rmSync(draft, { recursive: true, force: true });
    if (!fs.existsSync(target)) throw err;
  }
  return target;
}

/**
 * Where each dependency of the context goes: its production dependencies and theirs, found as Node finds them
 * from the package that needs them; the first copy of a name sits at the top, another version nests under the
 * package that needs it.
 */
function placeDependencies(context: string, root: string): Placement[] {
  const placements: Placement[] = [];
  const top = new Map<string, string>();
  const visit = (names: readonly string[], from: string, parentTo: string): void => {
    for (const name of names) {
      const manifest = findPackage(name, from);
      if (manifest === undefined) {
        throw new Error(
          `The gateway image needs ${name}, which is not installed next to cdktf-mcp-gateway (${root}): reinstall it`,
        );
      }
      const dir = path.dirname(fs.realpathSync(manifest));
      const placedAt = top.get(name);
      if (placedAt === dir) continue;
      const to = placedAt === undefined ? path.join('node_modules', name) : path.join(parentTo, 'node_modules', name);
      if (placedAt === undefined) top.set(name, dir);
      else if (placements.some((p) => p.to === to)) continue;
      placements.push({ from: dir, to });
      const pkg = readJson(path.join(dir, 'package.json'));
      visit(Object.keys(pkg.dependencies ?? {}), dir, to);
    }
  };
  visit(Object.keys(readJson(path.join(context, 'package.json')).dependencies ?? {}), root, '');
  return placements;
}

/**
 * `name`'s package.json as Node's lookup finds it from `from`: `node_modules/name` in `from` and each directory
 * above. (Not `require.resolve('name/package.json')`: a package whose `exports` omit it cannot be resolved so.)
 */
function findPackage(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name, 'package.json');
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

function listFiles(dir: string, prefix = ''): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) =>
      e.isDirectory() ? listFiles(path.join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
    );
}

function readJson(file: string): { version?: string; dependencies?: Record<string, string> } {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: string; dependencies?: Record<string, string> };
}
