#!/usr/bin/env node
// @ts-check
/**
 * Assembles the gateway image's Docker build context in dist/image-context (run by `npm run build`, after tsc):
 *
 *   Dockerfile, .dockerignore, healthcheck.js   from image/
 *   dist/src/**.js                              the compiled runtime (no .d.ts, no maps, no tests, no constructs)
 *   package.json                                the root package's runtime `dependencies` only
 *   package-lock.json                           derived from the root package-lock.json: its non-dev entries
 *   node_modules/                               those entries, copied from the root's node_modules (no type
 *                                               declarations, maps or TypeScript sources): the image build needs
 *                                               no network, and runs exactly the versions the tests ran with
 *
 * The layout mirrors the package (package.json next to dist/), so a relative require such as
 * `../../../package.json` from dist/src/cli resolves the same way in the image as in the repository.
 * Usage: node scripts/build-image-context.js [OUT_DIR]   (default dist/image-context)
 * Fails (exit 1, one line) when the runtime is not compiled, when a compiled file requires something outside
 * dist/src, when the root lockfile is out of sync with package.json, or when a locked production dependency is
 * not installed (run npm ci).
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { builtinModules } = require('node:module');

const root = path.resolve(__dirname, '..');
/** Where to write: dist/image-context, or the folder given as the first argument (tests use a temp dir). */
const out = path.resolve(process.argv[2] ?? path.join(root, 'dist', 'image-context'));
const compiled = path.join(root, 'dist', 'src');
/**
 * Folders of dist/src that only synthesis uses (the constructs import them; no command of the image runs them):
 * left out of the image, with the dependencies only they need. A runtime file that requires one fails the build.
 */
const SYNTHESIS_ONLY = new Set(['openapi']);

/**
 * Requires that run only when the runtime runs from its TypeScript source (the tests, under ts-node), never from
 * dist/ as the image does: not runtime dependencies, and no warning.
 */
const SOURCE_ONLY_REQUIRES = new Set(['ts-node/register/transpile-only']);

class BuildError extends Error {}

function main() {
  if (!fs.existsSync(path.join(compiled, 'cli', 'main.js'))) {
    throw new BuildError(`${path.relative(root, compiled)}/cli/main.js is missing: run tsc -p tsconfig.json first`);
  }
  const pkg = readJson(path.join(root, 'package.json'));
  const rootLock = readJson(path.join(root, 'package-lock.json'));

  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  for (const file of ['Dockerfile', '.dockerignore', 'healthcheck.js']) {
    fs.copyFileSync(path.join(root, 'image', file), path.join(out, file));
  }
  const files = copyRuntime(compiled, path.join(out, 'dist', 'src'));
  const { used, unused } = usedDependencies(files, Object.keys(pkg.dependencies ?? {}));
  const manifest = runtimeManifest(pkg, used);
  writeJson(path.join(out, 'package.json'), manifest);
  const lock = runtimeLock(manifest, rootLock);
  writeJson(path.join(out, 'package-lock.json'), lock);
  const bundled = bundleDependencies(lock, out);
  const warnings = checkRequires(files, used);
  if (unused.length > 0) {
    process.stdout.write(`build-image-context: left out (no runtime file names them): ${unused.join(', ')}\n`);
  }

  for (const w of warnings) process.stderr.write(`build-image-context: warning: ${w}\n`);
  process.stdout.write(
    `build-image-context: ${path.relative(root, out)} (${files.length} runtime files, ${bundled} dependency files)\n`,
  );
}

/**
 * Copies every .js file under `from` (tests excluded), and everything in an `assets` folder (the dashboard page,
 * put there by scripts/copy-assets.js), keeping the tree; returns the copies.
 */
function copyRuntime(from, to, inAssets = false) {
  /** @type {string[]} */
  const copied = [];
  for (const entry of fs.readdirSync(from, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === 'test' || entry.name === '__tests__') continue;
      if (from === compiled && SYNTHESIS_ONLY.has(entry.name)) continue;
      copied.push(...copyRuntime(src, dst, inAssets || entry.name === 'assets'));
    } else if (entry.isFile() && (inAssets || (entry.name.endsWith('.js') && !entry.name.endsWith('.test.js')))) {
      fs.mkdirSync(to, { recursive: true });
      fs.copyFileSync(src, dst);
      copied.push(dst);
    }
  }
  return copied;
}

/**
 * Copies every package of the derived lockfile from the root's node_modules into the context, each without its
 * own nested node_modules (those are entries of their own); returns how many files it copied.
 */
function bundleDependencies(lock, to) {
  // the one copy rule, shared with synthesis in an installed package (tsc compiles it before this script runs)
  const { copyRuntimePackage } = require(path.join(root, 'dist', 'constructs', 'runtime-package-files.js'));
  let count = 0;
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key === '' || entry.peer) continue;
    const from = path.join(root, key);
    const pkgJson = path.join(from, 'package.json');
    // an optional dependency for another platform is not installed here, and not needed
    if (entry.optional && !fs.existsSync(pkgJson)) continue;
    if (!fs.existsSync(pkgJson) || readJson(pkgJson).version !== entry.version) {
      throw new BuildError(`${key}@${entry.version} is locked but not installed: run npm ci`);
    }
    count += copyRuntimePackage(from, path.join(to, key));
  }
  return count;
}

/**
 * The runtime dependencies the image's files name as a module (`require('x')`, `import('x')`,
 * `require.resolve('x/dist/file')` or a specifier kept in a table): a quoted `x` or `x/…` in a copied file.
 * The others (used by synthesis only) stay out of the image.
 */
function usedDependencies(files, deps) {
  const texts = files.filter((f) => f.endsWith('.js')).map((f) => fs.readFileSync(f, 'utf8'));
  const names = (dep) =>
    texts.some((t) => ['"', "'"].some((q) => t.includes(`${q}${dep}${q}`) || t.includes(`${q}${dep}/`)));
  return { used: deps.filter(names), unused: deps.filter((d) => !names(d)) };
}

/**
 * Every relative require must land inside the context (else the image would crash at start); a bare one must be
 * a Node builtin or a runtime dependency. The latter is only a warning: `dev` may lazily load dev tools (cdktf)
 * that the image never runs.
 */
function checkRequires(files, deps) {
  const builtins = new Set(builtinModules);
  /** @type {string[]} */
  const warnings = [];
  const requireRe = /\brequire\(\s*["']([^"']+)["']\s*\)/g;
  // tsc (module node16) keeps `import()` in CommonJS output; Node resolves it as ESM: no extension guessing
  const importRe = /\bimport\(\s*["'](\.[^"']*)["']\s*\)/g;
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(importRe)) {
      const target = path.resolve(path.dirname(file), match[1]);
      if (!fs.existsSync(target) || !fs.statSync(target).isFile()) {
        // a warning, not an error: tsc reports it too (TS2834), and the context must still exist for synthesis
        warnings.push(
          `${path.relative(out, file)} has import('${match[1]}'), which Node cannot resolve at run time (ESM resolution needs the exact file, e.g. '${match[1]}.js')`,
        );
      }
    }
    for (const match of text.matchAll(requireRe)) {
      const spec = match[1];
      const where = path.relative(out, file);
      if (spec.startsWith('.') || spec.startsWith('/')) {
        const target = resolveLocal(path.resolve(path.dirname(file), spec));
        const inRuntime = path.relative(path.join(out, 'dist', 'src'), path.resolve(path.dirname(file), spec));
        if (SYNTHESIS_ONLY.has(inRuntime.split(path.sep)[0])) {
          throw new BuildError(
            `${where} requires '${spec}', which is synthesis-only code (dist/src/${inRuntime.split(path.sep)[0]} is left out of the image)`,
          );
        }
        if (!target || path.relative(out, target).startsWith('..')) {
          throw new BuildError(`${where} requires '${spec}', which is not part of the compiled runtime (dist/src)`);
        }
        continue;
      }
      const name = spec.startsWith('node:') ? spec.slice(5) : spec;
      if (builtins.has(name) || builtins.has(name.split('/')[0]) || SOURCE_ONLY_REQUIRES.has(spec)) continue;
      const pkgName = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
      if (!deps.includes(pkgName)) {
        warnings.push(`${where} requires '${spec}', not a runtime dependency (absent from the image)`);
      }
    }
  }
  return warnings;
}

function resolveLocal(p) {
  for (const candidate of [p, `${p}.js`, `${p}.json`, path.join(p, 'index.js')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

function runtimeManifest(pkg, used) {
  return {
    name: pkg.name,
    version: pkg.version,
    private: true,
    description: `${pkg.name} gateway runtime (image build context)`,
    license: pkg.license,
    engines: pkg.engines,
    dependencies: sortKeys(Object.fromEntries(used.map((d) => [d, pkg.dependencies[d]]))),
  };
}

/**
 * The root lockfile's entries that the image's dependencies need, and theirs: the production tree exactly as
 * installed and tested here, without what only synthesis or the tests use.
 */
function runtimeLock(manifest, rootLock) {
  if (rootLock.lockfileVersion < 2 || !rootLock.packages) {
    throw new BuildError('package-lock.json must be lockfileVersion 2 or 3: run npm install with npm >= 7');
  }
  const lockedRoot = rootLock.packages[''] ?? {};
  for (const [dep, range] of Object.entries(manifest.dependencies)) {
    if (lockedRoot.dependencies?.[dep] !== range) {
      throw new BuildError(`package-lock.json is out of sync with package.json for '${dep}': run npm install`);
    }
  }
  /** @type {Record<string, any>} */
  const packages = {
    '': {
      name: manifest.name,
      version: manifest.version,
      license: manifest.license,
      dependencies: manifest.dependencies,
      engines: manifest.engines,
    },
  };
  // the entries reachable from the image's dependencies, each found as Node finds it from the package needing it
  const pending = [''];
  while (pending.length > 0) {
    const key = /** @type {string} */ (pending.pop());
    const entry = key === '' ? packages[''] : rootLock.packages[key];
    const wanted = [
      ...Object.keys(entry.dependencies ?? {}).map((dep) => [dep, false]),
      ...Object.keys(entry.optionalDependencies ?? {}).map((dep) => [dep, true]),
      ...Object.keys(entry.peerDependencies ?? {}).map((dep) => [dep, true]),
    ];
    for (const [dep, optional] of wanted) {
      const found = locate(rootLock.packages, key, dep);
      // a dev-only entry is not installed by `npm ci --omit=dev`: the lockfile disagrees with itself
      if (!found || rootLock.packages[found].link || rootLock.packages[found].dev) {
        if (optional) continue;
        throw new BuildError(
          `derived lockfile: '${key || 'root'}' needs '${dep}', which is not locked: run npm install`,
        );
      }
      if (packages[found]) continue;
      packages[found] = rootLock.packages[found];
      pending.push(found);
    }
  }
  return { name: manifest.name, version: manifest.version, lockfileVersion: 3, requires: true, packages };
}

/** Node's lookup: node_modules/dep next to `from`, then in each enclosing node_modules. */
function locate(packages, from, dep) {
  let base = from;
  for (;;) {
    const candidate = base ? `${base}/node_modules/${dep}` : `node_modules/${dep}`;
    if (packages[candidate]) return candidate;
    if (!base) return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

function sortKeys(obj) {
  return Object.fromEntries(
    Object.keys(obj)
      .sort()
      .map((k) => [k, obj[k]]),
  );
}

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function writeJson(file, value) {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

try {
  main();
} catch (err) {
  if (!(err instanceof BuildError)) throw err;
  process.stderr.write(`build-image-context: ${err.message}\n`);
  process.exitCode = 1;
}
