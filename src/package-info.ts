/**
 * Where this package is installed and its version, found by walking up from the running file to the
 * `package.json` named `cdktf-mcp-gateway` (works from the sources, the build and the gateway image).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The npm name of this package. */
export const PACKAGE_NAME = 'cdktf-mcp-gateway';

/**
 * The directory of this package's `package.json` above `start`.
 * @throws Error when there is none (a broken installation), saying to reinstall
 */
export function packageRoot(start: string = __dirname): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const manifest = readManifest(path.join(dir, 'package.json'));
    if (manifest?.name === PACKAGE_NAME) return dir;
    if (path.dirname(dir) === dir) {
      throw new Error(`Cannot locate the ${PACKAGE_NAME} package root above ${start}: reinstall the package`);
    }
  }
}

/** The version of this package (server info, `--version`), `0.0.0` when its manifest cannot be found. */
export const PACKAGE_VERSION: string = findVersion();

function findVersion(): string {
  try {
    return readManifest(path.join(packageRoot(), 'package.json'))?.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

function readManifest(file: string): { name?: string; version?: string } | undefined {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? parsed : undefined;
  } catch {
    // missing, or an unreadable package.json on the way up that belongs to someone else: keep walking
    return undefined;
  }
}
