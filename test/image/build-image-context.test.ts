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
    ...files,
  };
  for (const [rel, text] of Object.entries(all)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  const script = path.join(root, 'scripts', 'build-image-context.js');
  fs.mkdirSync(path.dirname(script), { recursive: true });
  fs.copyFileSync(SCRIPT, script);
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
      'package-lock.json',
      'package.json',
    ]);
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

  it('locks every runtime dependency of this package at the version the root lockfile pins', function () {
    const built = path.join(REPO, 'dist', 'src', 'cli', 'main.js');
    assert.ok(fs.existsSync(built), `${built} is missing: run npm run build first`);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'image-context-real-'));
    made.push(out);
    const run = runScript(SCRIPT, out);
    assert.equal(run.code, 0, run.stderr);
    const rootLock = readJson(path.join(REPO, 'package-lock.json'));
    const lock = readJson(path.join(out, 'package-lock.json'));
    for (const dep of Object.keys(readJson(path.join(REPO, 'package.json')).dependencies)) {
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
  });
});

describe('gatewayImageContextPath', () => {
  it('returns the absolute dist/image-context of the package root, holding the Dockerfile', () => {
    const context = gatewayImageContextPath();
    assert.equal(context, path.join(REPO, 'dist', 'image-context'));
    assert.ok(fs.existsSync(path.join(context, 'Dockerfile')));
  });
});
