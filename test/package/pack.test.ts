/**
 * The package as a user gets it (README.md): `npm pack` the build, install the tarball with its peers into a fresh
 * project, then require it, typecheck a stack against its declarations, run its bin, synthesize a stack and serve
 * the config that synthesis uploads. Build first (`npm run build`; `npm test` does).
 *
 * Installing uses `npm install --prefer-offline`: after `npm ci` every package is in the npm cache, so only a few
 * registry metadata requests may go out. The peers are pinned to the versions this repository tests with.
 */
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { listFiles, readSynthesizedGateway } from '../image/synthesized-gateway';
import {
  cleanEnv,
  CONSUMER_DEPS,
  exec,
  installedVersion,
  installFromCache,
  output,
  packPackage,
  type PackResult,
} from './npm-project';

/**
 * Packed size and file count a release may not exceed (today ≈ 730 kB and ≈ 750 files: the gateway's rooms, the
 * dashboard with its page assets, the OAuth modules, response controls and the OpenAPI import, each a .js and a
 * .d.ts, the image build context's copy of the runtime, and docs/ so that the README's links work). A guard
 * against shipping something by mistake (tests, sources, node_modules), not a budget.
 */
const MAX_PACKED_BYTES = 900_000;
const MAX_FILES = 900;

const STACK_TS = `import { App, TerraformStack } from 'cdktf';
import { DockerProvider } from '@cdktf/provider-docker/lib/provider';
import { Gateway, InferArgs, InputSpec, Manifest, Service } from 'cdktf-mcp-gateway';
import { startGateway, type GatewayConfig } from 'cdktf-mcp-gateway/runtime';

// the runtime entry point's declarations resolve too
const serve: (config: GatewayConfig) => Promise<unknown> = (config) => startGateway({ config, port: 0 });
void serve;

const input = {
  customer_id: { type: 'string', required: true },
  limit: { type: 'integer', minimum: 1, maximum: 100 },
} as const satisfies InputSpec;
const valid: InferArgs<typeof input> = { customer_id: 'C-0001', limit: 3 };
// @ts-expect-error InferArgs makes customer_id required
const missing: InferArgs<typeof input> = { limit: 3 };
// @ts-expect-error InferArgs types limit as a number
const wrongType: InferArgs<typeof input> = { customer_id: 'C-0001', limit: '3' };
void [valid, missing, wrongType];

const app = new App();
const stack = new TerraformStack(app, 'consumer');
new DockerProvider(stack, 'docker', {});
const getCustomer = new Service(stack, 'get_customer', {
  description: 'Look up a customer',
  endpoint: { url: 'http://crm:8080/customers/{customer_id}', method: 'GET' },
  input,
});
new Gateway(stack, 'support', {
  services: [getCustomer],
  auth: { tokens: [{ id: 'bot', sha256: '${'a'.repeat(64)}' }] },
});
new Manifest(stack, 'ops-manifest', { path: 'ops.yaml' });
app.synth();
`;

const OPS_YAML = `services:
  health:
    endpoint: { url: "http://api:8080/health", method: GET }
gateways:
  ops:
    services: [health]
    auth: { tokens: [{ id: ops-bot, sha256: "${'b'.repeat(64)}" }] }
    port: 8090
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'node16',
    moduleResolution: 'node16',
    strict: true,
    types: ['node'],
    outDir: 'build',
    noEmitOnError: true,
  },
  include: ['main.ts'],
};

describe('the npm package (npm pack, installed into a fresh project)', function () {
  // tsc and npm in child processes: generous, since the suite shares two cores with everything else
  this.timeout(180_000);
  let work: string;
  let project: string;
  let packed: PackResult;
  const installed = (): string => path.join(project, 'node_modules', 'cdktf-mcp-gateway');

  before(async function () {
    this.timeout(300_000);
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'cdktf-mcp-gateway-pack-'));
    packed = await packPackage(work);

    project = path.join(work, 'consumer');
    fs.mkdirSync(project);
    fs.writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }),
    );
    fs.writeFileSync(path.join(project, 'main.ts'), STACK_TS);
    fs.writeFileSync(path.join(project, 'ops.yaml'), OPS_YAML);
    fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    const specs = [path.join(work, packed.filename), ...CONSUMER_DEPS.map((d) => `${d}@${installedVersion(d)}`)];
    await installFromCache(project, specs);
  });

  after(() => {
    if (work !== undefined) fs.rmSync(work, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  });

  it('holds the build and the image context, and no tests, sources, maps, benchmarks or node_modules', () => {
    const files = packed.files.map((f) => f.path);
    for (const needed of [
      'package.json',
      'README.md',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/src/cli/main.js',
      'dist/constructs/gateway.d.ts',
      'dist/image-context/Dockerfile',
      'dist/image-context/.dockerignore',
      'dist/image-context/healthcheck.js',
      'dist/image-context/package.json',
      'dist/image-context/package-lock.json',
      'dist/image-context/dist/src/cli/main.js',
      'docs/constructs.md',
      'docs/gateway.md',
      'docs/deploy.md',
    ]) {
      assert.ok(files.includes(needed), `the tarball lacks ${needed}`);
    }
    const junk = files.filter(
      (f) =>
        /(^|\/)(node_modules|test|tests|__tests__|bench|examples|cdktf\.out|\.dev)\//.test(f) ||
        /\.(test\.[jt]s|map|tsbuildinfo|tgz)$/.test(f) ||
        (f.endsWith('.ts') && !f.endsWith('.d.ts')),
    );
    assert.deepEqual(junk, [], 'files a user does not need');
  });

  it(`is smaller than ${MAX_PACKED_BYTES / 1000} kB packed and ${MAX_FILES} files`, () => {
    assert.ok(packed.size < MAX_PACKED_BYTES, `packed size ${packed.size} bytes`);
    assert.ok(packed.entryCount < MAX_FILES, `${packed.entryCount} files`);
  });

  it('loads with require() and with an ESM import', async () => {
    const script =
      'const m = require("cdktf-mcp-gateway"); console.log([m.Service, m.Gateway, m.Manifest].map((c) => c.name).join(","))';
    assert.equal((await exec(process.execPath, ['-e', script], project)).stdout.trim(), 'Service,Gateway,Manifest');
    const esm =
      'import { Service, Gateway, Manifest } from "cdktf-mcp-gateway"; console.log([Service, Gateway, Manifest].map((c) => c.name).join(","))';
    assert.equal(
      (await exec(process.execPath, ['--input-type=module', '-e', esm], project)).stdout.trim(),
      'Service,Gateway,Manifest',
    );
  });

  it('serves the runtime entry point cdktf-mcp-gateway/runtime to require() and import, and hides internals', async () => {
    const names =
      '["startGateway", "loadGatewayConfig", "parseGatewayConfig", "ConfigError"].map((n) => typeof m[n]).join(",")';
    const cjs = `const m = require("cdktf-mcp-gateway/runtime"); console.log(${names})`;
    assert.equal(
      (await exec(process.execPath, ['-e', cjs], project)).stdout.trim(),
      'function,function,function,function',
    );
    const esm = `import * as m from "cdktf-mcp-gateway/runtime"; console.log(${names})`;
    const imported = await exec(process.execPath, ['--input-type=module', '-e', esm], project);
    assert.equal(imported.stdout.trim(), 'function,function,function,function');
    const front =
      'const m = require("cdktf-mcp-gateway"); console.log(["startGateway", "readManifest", "terraformLiteral", "IMAGE_CONTEXT_DIR"].filter((n) => n in m).join(",") || "none")';
    assert.equal((await exec(process.execPath, ['-e', front], project)).stdout.trim(), 'none');
    const deep =
      'try { require("cdktf-mcp-gateway/dist/src/gateway/start-gateway"); console.log("reachable") } catch (e) { console.log(e.code) }';
    assert.equal((await exec(process.execPath, ['-e', deep], project)).stdout.trim(), 'ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it('typechecks a stack that imports Service, Gateway, Manifest and InferArgs (declarations checked too)', async () => {
    try {
      await exec(
        process.execPath,
        [path.join(project, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
        project,
      );
    } catch (err) {
      assert.fail(`tsc failed in the consumer project:\n${output(err)}`);
    }
    assert.ok(fs.existsSync(path.join(project, 'build/main.js')));
  });

  it('runs its bin: cdktf-mcp-gateway serve --help', async () => {
    const { stdout } = await exec(
      path.join(project, 'node_modules/.bin/cdktf-mcp-gateway'),
      ['serve', '--help'],
      project,
    );
    assert.match(stdout, /^Usage: cdktf-mcp-gateway serve --config FILE/);
  });

  describe('a stack synthesized in that project', () => {
    let outdir: string;

    before(async function () {
      this.timeout(180_000);
      const compiled = path.join(project, 'build/main.js');
      if (!fs.existsSync(compiled)) {
        await exec(
          process.execPath,
          [path.join(project, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
          project,
        );
      }
      outdir = path.join(work, 'cdktf.out');
      await exec(process.execPath, [compiled], project, { CDKTF_OUTDIR: outdir, CHECKPOINT_DISABLE: '1' });
    });

    it('names an image build context copied from the installed package, with the installed copies of its dependencies (the build needs no network)', () => {
      const gateway = readSynthesizedGateway(outdir, 'support');
      const context = listFiles(gateway.contextDir);
      assert.ok(context.includes('Dockerfile'), `no Dockerfile in ${gateway.contextDir}`);
      const shipped = listFiles(path.join(installed(), 'dist/image-context'));
      assert.deepEqual(
        shipped.filter((f) => f.includes('node_modules/')),
        [],
        'the package ships no node_modules',
      );
      assert.deepEqual(
        context.filter((f) => !f.startsWith('node_modules/')),
        shipped,
      );
      const deps = Object.keys(
        JSON.parse(fs.readFileSync(path.join(installed(), 'dist/image-context/package.json'), 'utf8')).dependencies,
      );
      for (const dep of deps)
        assert.ok(context.includes(`node_modules/${dep}/package.json`), `no ${dep} in the context`);
      for (const devOnly of ['@modelcontextprotocol/sdk', 'typescript', 'cdktf', 'express', 'zod'])
        assert.ok(!context.includes(`node_modules/${devOnly}/package.json`), `${devOnly} in the context`);
      assert.equal(readSynthesizedGateway(outdir, 'ops').contextDir, gateway.contextDir);
    });

    it('uploads a config that the installed bin serves', async () => {
      const gateway = readSynthesizedGateway(outdir, 'support');
      const config = path.join(work, 'gateway.json');
      fs.writeFileSync(config, JSON.stringify(gateway.config));
      const bin = path.join(project, 'node_modules/.bin/cdktf-mcp-gateway');
      const args = [
        'serve',
        '--config',
        config,
        '--port',
        '0',
        '--host',
        '127.0.0.1',
        '--audit-log',
        path.join(work, 'audit.jsonl'),
      ];
      const child = spawn(bin, args, { cwd: project, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
      try {
        let out = '';
        const url = await new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no listening line within 10 s:\n${out}`)), 10_000);
          const onData = (chunk: Buffer): void => {
            out += chunk.toString('utf8');
            const m = /"msg":"listening".*"url":"([^"]+)"/.exec(out);
            if (m !== null) {
              clearTimeout(timer);
              resolve(m[1]);
            }
          };
          child.stdout.on('data', onData);
          child.stderr.on('data', onData);
          child.once('exit', (code) => {
            clearTimeout(timer);
            reject(new Error(`serve exited ${code}:\n${out}`));
          });
        });
        const res = await fetch(new URL('/readyz', url));
        assert.equal(res.status, 200);
      } finally {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGTERM');
          await exited;
        }
      }
    });
  });
});
