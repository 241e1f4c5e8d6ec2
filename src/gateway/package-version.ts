import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The version of this package (serverInfo), found by walking up to its package.json (works from src/ and dist/). */
export const PACKAGE_VERSION: string = findVersion();

function findVersion(): string {
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'cdktf-mcp-gateway' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not here: keep walking up
    }
    dir = dirname(dir);
  }
  return '0.0.0';
}
