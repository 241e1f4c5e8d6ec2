import * as fs from 'node:fs';
import * as path from 'node:path';

/** Files a running Node never loads (type declarations, TypeScript sources, source maps): left out of the image. */
const NOT_RUNTIME = /(\.d\.[cm]?ts|\.[cm]?ts|\.map|\.tsbuildinfo)$/;

/**
 * Copies an installed package's directory into the image build context, without its own nested `node_modules`
 * (those are placed as packages of their own) and without files a running Node never loads.
 * Used by `npm run build` (scripts/build-image-context.js) and by synthesis in an installed package.
 *
 * @returns how many files it copied
 */
export function copyRuntimePackage(from: string, to: string): number {
  let count = 0;
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') count += copyRuntimePackage(src, path.join(to, entry.name));
    } else if (entry.isFile() && !NOT_RUNTIME.test(entry.name)) {
      fs.copyFileSync(src, path.join(to, entry.name));
      count += 1;
    }
  }
  return count;
}
