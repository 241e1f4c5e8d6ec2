import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gatewayImageContextPath } from '../../constructs/gateway-image-context';
import { listFiles } from './synthesized-gateway';

const REPO = path.resolve(__dirname, '../..');
const SCRIPT = path.join(REPO, 'scripts', 'build-image-context.js');

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runScript(script: string, outDir: string): Run {
  const r = spawnSync(process.execPath, [script, outDir], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function readJson(file: string): any {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** A miniature package: the script, image/ files, a manifest, a lockfile and a compiled runtime. */
function fixture(files: Record<string, string>): { root: string; script: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'image-context-fixture-'));
  const all: Record<string, string> = {
    'image/Dockerfile': 'FROM scratch\n',
    'image/.dockerignore': '**/node_modules\n',
    'image/healthcheck.js': '',
    'package.json': JSON.stringify({
      name: 'cdktf-mcp-gateway',
      version: '1.2.3',
      license: 'MIT',
      dependencies: { left: '^1.0.0' },
      devDependencies: { tool: '^2.0.0' },
    }),
    'package-lock.json': JSON.stringify({
      lockfileVersion: 3,
      packages: {
        '': {
          name: 'cdktf-mcp-gateway',
          version: '1.2.3',
          dependencies: { left: '^1.0.0' },
          devDependencies: { tool: '^2.0.0' },
        },
        'node_modules/left': { version: '1.0.1', dependencies: { pad: '^1.0.0' } },
        'node_modules/pad': { version: '1.4.0' },
        'node_modules/tool': { version: '2.0.0', dev: true, dependencies: { pad: '^1.0.0' } },
      },
    }),
    'dist/src/cli/main.js': "require('./serve-command');\n",
    'dist/src/cli/serve-command.js': "require('left'); require('node:http'); require('../../../package.json');\n",
    'dist/src/cli/main.d.ts': '',
    'dist/src/cli/main.js.map': '',
    'dist/constructs/gateway.js': "require('cdktf');\n",
    // the root's installed packages, which the context bundles (production ones only, without types and maps)
    'node_modules/left/package.json': JSON.stringify({ name: 'left', version: '1.0.1' }),
    'node_modules/left/index.js': "module.exports = require('pad');\n",
    'node_modules/left/index.d.ts': 'export {};\n',
    'node_modules/left/lib/util.js': '',
    'node_modules/left/lib/util.js.map': '{}',
    'node_modules/left/lib/util.d.mts': '',
    'node_modules/left/src/util.ts': '',
    'node_modules/left/tsconfig.tsbuildinfo': '{}',
    'node_modules/left/node_modules/stray/package.json': JSON.stringify({ name: 'stray', version: '0.0.1' }),
    'node_modules/pad/package.json': JSON.stringify({ name: 'pad', version: '1.4.0' }),
    'node_modules/pad/index.cjs': '',
    'node_modules/tool/package.json': JSON.stringify({ name: 'tool', version: '2.0.0' }),
    'node_modules/tool/index.js': '',
    ...files,
  };
  for (const [rel, text] of Object.entries(all)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  const script = path.join(root, 'scripts', 'build-image-context.js');
  fs.mkdirSync(path.dirname(script), { recursive: true });
  fs.copyFileSync(SCRIPT, script);
  // the copy rule the script shares with synthesis, compiled by npm run build
  const shared = path.join('dist', 'constructs', 'runtime-package-files.js');
  fs.mkdirSync(path.dirname(path.join(root, shared)), { recursive: true });
  fs.copyFileSync(path.join(REPO, shared), path.join(root, shared));
  return { root, script };
}

describe('image build context (scripts/build-image-context.js)', () => {
  const made: string[] = [];
  const make = (files: Record<string, string> = {}) => {
    const f = fixture(files);
    made.push(f.root);
    return f;
  };
  after(() => {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('holds the image files, the runtime JavaScript and production manifests only', () => {
    const { root, script } = make();
    const out = path.join(root, 'ctx');
    const run = runScript(script, out);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(listFiles(out), [
      '.dockerignore',
      'Dockerfile',
      'dist/src/cli/main.js',
      'dist/src/cli/serve-command.js',
      'healthcheck.js',
      'node_modules/left/index.js',
      'node_modules/left/lib/util.js',
      'node_modules/left/package.json',
      'node_modules/pad/index.cjs',
      'node_modules/pad/package.json',
      'package-lock.json',
      'package.json',
    ]);
    assert.equal(run.stdout, 'build-image-context: ctx (2 runtime files, 5 dependency files)\n');
    assert.deepEqual(readJson(path.join(out, 'package.json')), {
      name: 'cdktf-mcp-gateway',
      version: '1.2.3',
      private: true,
      description: 'cdktf-mcp-gateway gateway runtime (image build context)',
      license: 'MIT',
      dependencies: { left: '^1.0.0' },
    });
  });

  it('derives the lockfile from the root lockfile without dev-only packages', () => {
    const { root, script } = make();
    const out = path.join(root, 'ctx');
    assert.equal(runScript(script, out).code, 0);
    const lock = readJson(path.join(out, 'package-lock.json'));
    assert.deepEqual(Object.keys(lock.packages), ['', 'node_modules/left', 'node_modules/pad']);
    assert.deepEqual(lock.packages[''].dependencies, { left: '^1.0.0' });
    assert.equal(lock.packages['node_modules/pad'].version, '1.4.0');
    assert.equal(lock.lockfileVersion, 3);
  });

  it('fails when compiled code requires a file outside the runtime', () => {
    const { root, script } = make({ 'dist/src/cli/serve-command.js': "require('../../constructs/gateway');\n" });
    const run = runScript(script, path.join(root, 'ctx'));
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      "build-image-context: dist/src/cli/serve-command.js requires '../../constructs/gateway', which is not part of the compiled runtime (dist/src)\n",
    );
  });

  it('bundles the locked production packages, not the dev-only ones, nested ones or type declarations', () => {
    const { root, script } = make({
      'node_modules/left/node_modules/pad/package.json': JSON.stringify({ name: 'pad', version: '0.9.0' }),
      'node_modules/left/node_modules/pad/old.js': '',
    });
    const lock = readJson(path.join(root, 'package-lock.json'));
    lock.packages['node_modules/left/node_modules/pad'] = { version: '0.9.0' };
    fs.writeFileSync(path.join(root, 'package-lock.json'), JSON.stringify(lock));
    const out = path.join(root, 'ctx');
    const run = runScript(script, out);
    assert.equal(run.code, 0, run.stderr);
    // a nested package is copied as its own lock entry; an unlocked stray one is not; the top-level pad is not
    // reachable (left finds its own copy first), so it stays out
    assert.deepEqual(listFiles(path.join(out, 'node_modules')), [
      'left/index.js',
      'left/lib/util.js',
      'left/node_modules/pad/old.js',
      'left/node_modules/pad/package.json',
      'left/package.json',
    ]);
    assert.deepEqual(Object.keys(readJson(path.join(out, 'package-lock.json')).packages), [
      '',
      'node_modules/left',
      'node_modules/left/node_modules/pad',
    ]);
  });

  it('skips an optional package that is not installed (another platform) and a peer one', () => {
    const { root, script } = make();
    const lock = readJson(path.join(root, 'package-lock.json'));
    lock.packages['node_modules/left'].optionalDependencies = { 'left-win32': '1.0.1' };
    lock.packages['node_modules/left'].peerDependencies = { host: '*' };
    lock.packages['node_modules/left-win32'] = { version: '1.0.1', optional: true, os: ['win32'] };
    lock.packages['node_modules/host'] = { version: '3.0.0', peer: true };
    fs.writeFileSync(path.join(root, 'package-lock.json'), JSON.stringify(lock));
    const out = path.join(root, 'ctx');
    const run = runScript(script, out);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(fs.readdirSync(path.join(out, 'node_modules')).sort(), ['left', 'pad']);
  });

  it('fails when a locked production package is not installed, or installed at another version', () => {
    const missing = make();
    fs.rmSync(path.join(missing.root, 'node_modules', 'pad'), { recursive: true });
    const run = runScript(missing.script, path.join(missing.root, 'ctx'));
    assert.equal(run.code, 1);
    assert.equal(run.stderr, 'build-image-context: node_modules/pad@1.4.0 is locked but not installed: run npm ci\n');
    const stale = make({ 'node_modules/pad/package.json': JSON.stringify({ name: 'pad', version: '1.3.9' }) });
    const staleRun = runScript(stale.script, path.join(stale.root, 'ctx'));
    assert.equal(staleRun.code, 1);
    assert.equal(
      staleRun.stderr,
      'build-image-context: node_modules/pad@1.4.0 is locked but not installed: run npm ci\n',
    );
  });

  it('fails when the root lockfile is out of sync with package.json', () => {
    const { root, script } = make();
    const pkg = readJson(path.join(root, 'package.json'));
    pkg.dependencies.left = '^1.1.0';
    fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify(pkg));
    const run = runScript(script, path.join(root, 'ctx'));
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      "build-image-context: package-lock.json is out of sync with package.json for 'left': run npm install\n",
    );
  });

  it('fails when a production package depends on one that is locked as dev-only', () => {
    const { root, script } = make();
    const lock = readJson(path.join(root, 'package-lock.json'));
    lock.packages['node_modules/pad'].dev = true;
    fs.writeFileSync(path.join(root, 'package-lock.json'), JSON.stringify(lock));
    const run = runScript(script, path.join(root, 'ctx'));
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      "build-image-context: derived lockfile: 'node_modules/left' needs 'pad', which is not locked: run npm install\n",
    );
  });

  it('leaves out synthesis-only code and the dependencies only it names', () => {
    const { root, script } = make({
      'dist/src/openapi/load.js': "require('parser');\n",
      'node_modules/parser/package.json': JSON.stringify({ name: 'parser', version: '9.0.0' }),
      'node_modules/parser/index.js': "require('helper');\n",
      'node_modules/helper/package.json': JSON.stringify({ name: 'helper', version: '1.0.0' }),
    });
    const pkg = readJson(path.join(root, 'package.json'));
    pkg.dependencies.parser = '^9.0.0';
    fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify(pkg));
    const lock = readJson(path.join(root, 'package-lock.json'));
    lock.packages[''].dependencies.parser = '^9.0.0';
    lock.packages['node_modules/parser'] = { version: '9.0.0', dependencies: { helper: '^1.0.0' } };
    lock.packages['node_modules/helper'] = { version: '1.0.0' };
    fs.writeFileSync(path.join(root, 'package-lock.json'), JSON.stringify(lock));
    const out = path.join(root, 'ctx');
    const run = runScript(script, out);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.split('\n')[0], 'build-image-context: left out (no runtime file names them): parser');
    assert.deepEqual(readJson(path.join(out, 'package.json')).dependencies, { left: '^1.0.0' });
    assert.deepEqual(Object.keys(readJson(path.join(out, 'package-lock.json')).packages), [
      '',
      'node_modules/left',
      'node_modules/pad',
    ]);
    assert.deepEqual(fs.readdirSync(path.join(out, 'node_modules')).sort(), ['left', 'pad']);
    assert.equal(fs.existsSync(path.join(out, 'dist', 'src', 'openapi')), false);
  });

  it('fails when a runtime file requires synthesis-only code', () => {
    const { root, script } = make({
      'dist/src/openapi/load.js': '',
      'dist/src/cli/serve-command.js': "require('../openapi/load');\n",
    });
    const run = runScript(script, path.join(root, 'ctx'));
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      "build-image-context: dist/src/cli/serve-command.js requires '../openapi/load', which is synthesis-only code (dist/src/openapi is left out of the image)\n",
    );
  });

  it('fails with a hint when the runtime is not compiled', () => {
    const { root, script } = make();
    fs.rmSync(path.join(root, 'dist'), { recursive: true });
    const run = runScript(script, path.join(root, 'ctx'));
    assert.equal(run.code, 1);
    assert.equal(run.stderr, 'build-image-context: dist/src/cli/main.js is missing: run tsc -p tsconfig.json first\n');
  });

  it('warns about a bare require of a package that is not a runtime dependency', () => {
    const { root, script } = make({ 'dist/src/cli/dev-command.js': "require('cdktf');\n" });
    const run = runScript(script, path.join(root, 'ctx'));
    assert.equal(run.code, 0);
    assert.equal(
      run.stderr,
      "build-image-context: warning: dist/src/cli/dev-command.js requires 'cdktf', not a runtime dependency (absent from the image)\n",
    );
  });

  it('does not warn about ts-node, which only runtime code run from its TypeScript source requires', () => {
    const { root, script } = make({
      'dist/src/gateway/body-thread.js': "if (file.endsWith('.ts')) require('ts-node/register/transpile-only');\n",
    });
    const run = runScript(script, path.join(root, 'ctx'));
    assert.equal(run.code, 0);
    assert.equal(run.stderr, '');
  });

  it('locks every runtime dependency of this package at the version the root lockfile pins', function () {
    const built = path.join(REPO, 'dist', 'src', 'cli', 'main.js');
    assert.ok(fs.existsSync(built), `${built} is missing: run npm run build first`);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'image-context-real-'));
    made.push(out);
    const run = runScript(SCRIPT, out);
    assert.equal(run.code, 0, run.stderr);
    const rootLock = readJson(path.join(REPO, 'package-lock.json'));
    const lock = readJson(path.join(out, 'package-lock.json'));
    // the OpenAPI parser is synthesis-only: the constructs read documents, the image never does
    assert.equal(
      run.stdout.split('\n')[0],
      'build-image-context: left out (no runtime file names them): @readme/openapi-parser',
    );
    assert.equal(lock.packages['node_modules/@readme/openapi-parser'], undefined);
    assert.equal(fs.existsSync(path.join(out, 'node_modules', '@readme')), false);
    assert.equal(fs.existsSync(path.join(out, 'dist', 'src', 'openapi')), false);
    const imageDeps = Object.keys(readJson(path.join(out, 'package.json')).dependencies);
    for (const dep of imageDeps) {
      assert.equal(
        lock.packages[`node_modules/${dep}`]?.version,
        rootLock.packages[`node_modules/${dep}`].version,
        dep,
      );
    }
    const devOnly = Object.keys(lock.packages).filter((k) => lock.packages[k].dev);
    assert.deepEqual(devOnly, []);
    assert.equal(lock.packages['node_modules/typescript'], undefined);
    assert.equal(lock.packages['node_modules/cdktf'], undefined);
    // the bundled node_modules: every runtime dependency at its locked version, no dev tool (the MCP SDK and its
    // web frameworks are dev dependencies), no type declarations, TypeScript sources or maps
    const pkg = readJson(path.join(REPO, 'package.json'));
    assert.equal(pkg.dependencies['@modelcontextprotocol/sdk'], undefined);
    assert.ok(pkg.devDependencies['@modelcontextprotocol/sdk']);
    const modules = path.join(out, 'node_modules');
    for (const dep of imageDeps) {
      assert.equal(
        readJson(path.join(modules, dep, 'package.json')).version,
        lock.packages[`node_modules/${dep}`].version,
      );
    }
    for (const absent of ['express', 'fastmcp', 'zod', '@modelcontextprotocol/sdk', 'typescript', 'cdktf']) {
      assert.equal(fs.existsSync(path.join(modules, absent)), false, `${absent} in the context's node_modules`);
    }
    const bundled = listFiles(modules);
    assert.ok(bundled.length > 0);
    assert.deepEqual(
      bundled.filter((f) => /(\.d\.[cm]?ts|\.[cm]?ts|\.map)$/.test(f)),
      [],
    );
    assert.match(run.stdout, new RegExp(`\\(\\d+ runtime files, ${bundled.length} dependency files\\)\\n$`));
  });

  it('ships a one-stage Dockerfile that copies the bundled node_modules and installs nothing', () => {
    const dockerfile = fs.readFileSync(path.join(gatewayImageContextPath(), 'Dockerfile'), 'utf8');
    const instructions = dockerfile.split('\n').filter((l) => /^[A-Z]+ /.test(l));
    assert.deepEqual(
      instructions.filter((l) => l.startsWith('FROM ')),
      ['FROM ${BASE_IMAGE}'],
    );
    assert.ok(instructions.includes('COPY node_modules ./node_modules'), instructions.join('\n'));
    assert.doesNotMatch(dockerfile, /npm (ci|install)/);
    assert.equal(instructions.filter((l) => l.startsWith('COPY --from')).length, 0);
    // the context's node_modules is what the image needs, so .dockerignore must not drop it
    const dockerignore = fs.readFileSync(path.join(gatewayImageContextPath(), '.dockerignore'), 'utf8');
    assert.doesNotMatch(dockerignore, /^[^#]*node_modules/m);
  });
});

describe('gatewayImageContextPath', () => {
  it('returns the absolute dist/image-context of the package root, holding the Dockerfile', () => {
    const context = gatewayImageContextPath();
    assert.equal(context, path.join(REPO, 'dist', 'image-context'));
    assert.ok(fs.existsSync(path.join(context, 'Dockerfile')));
  });
});
