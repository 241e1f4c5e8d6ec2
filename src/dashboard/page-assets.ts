import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './gateway-shared';

/** A file the page needs, held in memory. */
export interface PageAsset {
  readonly body: Buffer;
  readonly contentType: string;
}

/** The page's own files: next to this module (`npm run build` copies them into dist). */
const OWN_ASSETS: Readonly<Record<string, [file: string, contentType: string]>> = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/assets/dashboard.css': ['dashboard.css', 'text/css; charset=utf-8'],
  '/assets/dashboard.js': ['dashboard.js', 'text/javascript; charset=utf-8'],
  '/assets/favicon.svg': ['favicon.svg', 'image/svg+xml'],
};

/** The charting library, from the installed `uplot` package (no CDN: the page works offline). */
const UPLOT_ASSETS: Readonly<Record<string, [module: string, contentType: string]>> = {
  '/assets/uPlot.iife.min.js': ['uplot/dist/uPlot.iife.min.js', 'text/javascript; charset=utf-8'],
  '/assets/uPlot.min.css': ['uplot/dist/uPlot.min.css', 'text/css; charset=utf-8'],
};

/**
 * Reads every asset once, at start-up, into a map from URL path to content.
 * @throws ConfigError naming the missing file (a broken install fails at start, not on the first page view)
 */
export function loadPageAssets(dir: string = join(__dirname, 'assets')): Map<string, PageAsset> {
  const assets = new Map<string, PageAsset>();
  const read = (file: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new ConfigError(
        `dashboard: cannot read the page asset ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'} (reinstall the package, or run npm run build)`,
      );
    }
  };
  for (const [url, [file, contentType]] of Object.entries(OWN_ASSETS)) {
    assets.set(url, { body: read(join(dir, file)), contentType });
  }
  for (const [url, [module, contentType]] of Object.entries(UPLOT_ASSETS)) {
    let file: string;
    try {
      file = require.resolve(module);
    } catch {
      throw new ConfigError(`dashboard: cannot find ${module} (the uplot package is a dependency: run npm install)`);
    }
    assets.set(url, { body: read(file), contentType });
  }
  return assets;
}
