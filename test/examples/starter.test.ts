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
import { deployTestRequirement, toolchainEnv } from '../deploy/toolchain';
import { dockerObjects } from '../deploy/host';
import { modernRequest, postModern } from '../helpers/modern';
import { reusePortNode } from '../helpers/reuse-port-node';
import { command, docker, ensureDockerDaemon, type StartedDaemon } from '../image/docker';
import { readSynthesizedGateway } from '../image/synthesized-gateway';
import { exec, installFromCache, output, packPackage, ROOT } from '../package/npm-project';

const STARTER = path.join(ROOT, 'examples', 'starter');
/** Built from this machine's Node by scripts/node-base-image.sh: no image registry is reachable here. */
const BASE_IMAGE = 'local/node-base:node22';
/** The token whose hash the starter uses when GREETER_TOKEN_SHA256 is unset. */
const DEV_TOKEN = 'starter-dev-token';
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

  describe('deployed with cdktf deploy, as its README says, on a host without Docker Hub', function () {
    const requirement = deployTestRequirement();
    if (requirement === undefined) {
      it('NOT RUN: needs a run that asks for it (CI=true or npm run test:deploy), the toolchain and Docker');
      return;
    }
    let env: NodeJS.ProcessEnv = {};
    let daemon: StartedDaemon | undefined;
    let deployed = false;
    const log = (line: string): void => void process.stdout.write(`      [starter] ${line}\n`);
    const cdktf = async (...args: string[]): Promise<string> => {
      try {
        const { stdout, stderr } = await exec('npx', ['--no-install', 'cdktf', ...args], project, env);
        return `${stdout}${stderr}`;
      } catch (err) {
        return assert.fail(
          `cdktf ${args.join(' ')} failed in the starter (${requirement}):\n${output(err).slice(-3000)}`,
        );
      }
    };
    const greet = async (args: Record<string, unknown>) => {
      const res = await postModern(
        'http://127.0.0.1:8080/mcp',
        modernRequest('tools/call', { name: 'greet', arguments: args }),
        DEV_TOKEN,
      );
      return (
        res.message as { result: { isError?: boolean; structuredContent?: unknown; content: { text: string }[] } }
      ).result;
    };

    before(async function () {
      this.timeout(30 * 60_000);
      env = { ...toolchainEnv(log), CHECKPOINT_DISABLE: '1', BASE_IMAGE, TF_VAR_greeter_api_key: 'starter-key' };
      daemon = await ensureDockerDaemon(log);
      const node = reusePortNode();
      const base = await command('bash', [path.join(ROOT, 'scripts', 'node-base-image.sh'), BASE_IMAGE], {
        timeoutMs: 300_000,
        env: { ...process.env, ...('path' in node ? { NODE_BIN: node.path } : {}) },
      });
      assert.equal(base.code, 0, `node-base-image.sh failed: ${base.stderr.trim().slice(-1000)}`);
    });

    after(async function () {
      this.timeout(10 * 60_000);
      if (deployed) await cdktf('destroy', '--auto-approve').catch((err: Error) => log(`clean-up: ${err.message}`));
      await daemon?.stop();
    });

    it('deploys, serves the tool, takes validate_input off in place, and destroys everything it made', async function () {
      this.timeout(20 * 60_000);
      deployed = true;
      await cdktf('deploy', '--auto-approve');
      assert.deepEqual((await greet({ name: 'Ada' })).structuredContent, { greeting: 'Hello, Ada!' });
      // the README's curl, as written
      const readme = fs.readFileSync(path.join(STARTER, 'README.md'), 'utf8');
      const curl = /^curl [\s\S]*?'\n/m.exec(readme);
      assert.ok(curl, 'the README shows a curl call');
      const asWritten = await command('bash', ['-c', curl[0]], { timeoutMs: 30_000 });
      assert.match(asWritten.stdout, /"structuredContent":\{"greeting":"Hello, Ada!"\}/, asWritten.stdout);
      const refused = await greet({ name: 'Ada', punctuation: '~' });
      assert.equal(refused.isError, true, JSON.stringify(refused));
      assert.match(refused.content[0].text, /punctuation/);
      const containerId = await docker(['inspect', '--format', '{{.Id}}', 'starter-greeter']);

      // the user's edit: validate_input off, then a deploy that changes the config in place
      const main = path.join(project, 'main.ts');
      const source = fs.readFileSync(main, 'utf8');
      assert.ok(source.includes('      validateInput: true,\n'), 'main.ts sets validateInput');
      fs.writeFileSync(main, source.replace('      validateInput: true,\n', '      validateInput: false,\n'));
      await cdktf('deploy', '--auto-approve');
      assert.equal(await docker(['inspect', '--format', '{{.Id}}', 'starter-greeter']), containerId, 'replaced');
      assert.deepEqual(
        (await greet({ name: 'Ada', punctuation: '~' })).structuredContent,
        { greeting: 'Hello, Ada~' },
        'forwarded unchecked',
      );

      await cdktf('destroy', '--auto-approve');
      deployed = false;
      for (const kind of ['container', 'volume', 'network'] as const) {
        assert.deepEqual(
          (await dockerObjects(kind)).filter((n) => n.startsWith('starter-')),
          [],
          `${kind}s left behind`,
        );
      }
    });
  });
});
