/**
 * `examples/starter/` as a user starts from it: a copy of the folder (without node_modules or build output) gets
 * the packed package in `vendor/`, where its package.json names it, and `npm install` as written (from the npm
 * cache), then runs its own scripts:
 * `npm run synth` (cdktf's App writes cdktf.out/) and `npm test` (its Testing.synth test). Build first
 * (`npm run build`; `npm test` does).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readSynthesizedGateway } from '../image/synthesized-gateway';
import { exec, installFromCache, output, packPackage, ROOT } from '../package/npm-project';

const STARTER = path.join(ROOT, 'examples', 'starter');
const NOT_COPIED = new Set(['node_modules', 'build', 'cdktf.out', '.dev', 'package-lock.json', 'vendor']);

describe('examples/starter, installed from the packed package', function () {
  this.timeout(60_000);
  let work: string;
  let project: string;

  before(async function () {
    this.timeout(180_000);
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'starter-'));
    project = path.join(work, 'starter');
    fs.cpSync(STARTER, project, { recursive: true, filter: (src) => !NOT_COPIED.has(path.basename(src)) });
    const vendor = path.join(project, 'vendor');
    fs.mkdirSync(vendor);
    const packed = await packPackage(vendor);
    const manifest = JSON.parse(fs.readFileSync(path.join(project, 'package.json'), 'utf8'));
    assert.equal(
      manifest.dependencies['cdktf-mcp-gateway'],
      `file:vendor/${packed.filename}`,
      'the starter names the tarball npm pack makes of this version',
    );
    await installFromCache(project, []);
  });

  after(() => {
    if (work !== undefined) fs.rmSync(work, { recursive: true, force: true });
  });

  it('pins typescript to ~5.9 and says why, and names the package and its peers', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(STARTER, 'package.json'), 'utf8'));
    assert.equal(manifest.devDependencies.typescript, '~5.9');
    assert.match(manifest['//'].join(' '), /typescript is pinned to ~5\.9: /);
    for (const dep of ['cdktf-mcp-gateway', 'cdktf', 'constructs', '@cdktf/provider-docker']) {
      assert.ok(manifest.dependencies[dep], `the starter does not depend on ${dep}`);
    }
  });

  it('has the cdktf command once installed (cdktf-cli is a dev dependency)', async () => {
    const { stdout } = await exec('npx', ['--no-install', 'cdktf', '--version'], project, { CHECKPOINT_DISABLE: '1' });
    // the first line is the version; cdktf may log its Terraform CLI configuration's problems after it
    assert.match(stdout.split('\n')[0], /^0\.21\.\d+$/);
  });

  it('synthesizes with npm run synth: the gateway, its config and the backend build', async () => {
    try {
      await exec('npm', ['run', 'synth'], project, { CHECKPOINT_DISABLE: '1' });
    } catch (err) {
      assert.fail(`npm run synth failed in the starter:\n${output(err)}`);
    }
    const gateway = readSynthesizedGateway(path.join(project, 'cdktf.out'), 'greeter');
    assert.deepEqual(
      gateway.config.tools.map((t) => t.name),
      ['greet'],
    );
    assert.ok(fs.existsSync(path.join(gateway.contextDir, 'Dockerfile')));
  });

  it('passes its own test (npm test: Testing.synth)', async () => {
    try {
      const { stdout } = await exec('npm', ['test'], project, { CHECKPOINT_DISABLE: '1' });
      assert.match(stdout, /# pass 1/);
      assert.match(stdout, /# fail 0/);
    } catch (err) {
      assert.fail(`npm test failed in the starter:\n${output(err)}`);
    }
  });
});
