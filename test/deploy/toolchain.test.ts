import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DOCKER_PROVIDER_CONSTRAINT } from '../../constructs/docker-provider-version';
import { tempDir } from '../helpers/temp-dir';
import { deployTestRequirement, toolchainDir } from './toolchain';

const REPO = path.resolve(__dirname, '../..');

describe('the deploy toolchain (npm run toolchain)', () => {
  it('builds a provider release inside the range the constructs require', () => {
    const goMod = fs.readFileSync(path.join(REPO, 'toolchain/terraform/provider-docker/go.mod'), 'utf8');
    const version = /^\/\/ mirror-version: (\d+)\.(\d+)\.(\d+)$/m.exec(goMod);
    assert.ok(version, 'toolchain/terraform/provider-docker/go.mod names its mirror-version');
    const range = /^~> (\d+)\.(\d+)$/.exec(DOCKER_PROVIDER_CONSTRAINT);
    assert.ok(range, DOCKER_PROVIDER_CONSTRAINT);
    assert.equal(version[1], range[1], 'same major version');
    assert.ok(Number(version[2]) >= Number(range[2]), `${version[0]} is below ${DOCKER_PROVIDER_CONSTRAINT}`);
  });

  it('pins OpenTofu and the provider in wrapper modules with their sums, never a binary', () => {
    for (const dir of ['tofu', 'provider-docker']) {
      const files = fs.readdirSync(path.join(REPO, 'toolchain/terraform', dir)).sort();
      assert.deepEqual(files, ['go.mod', 'go.sum', 'tools.go'], dir);
    }
    assert.match(
      fs.readFileSync(path.join(REPO, 'toolchain/terraform/tofu/go.mod'), 'utf8'),
      /^replace github\.com\/hashicorp\/hcl\/v2 => github\.com\/opentofu\/hcl\/v2 /m,
    );
  });

  it('builds outside the clone, in the per-user cache, unless told otherwise', () => {
    assert.equal(
      toolchainDir({ HOME: '/home/u', XDG_CACHE_HOME: '/c' }),
      path.join('/c', 'cdktf-mcp-gateway', 'toolchain'),
    );
    assert.equal(toolchainDir({ CDKTF_MCP_GATEWAY_TOOLCHAIN: '/opt/tc' }), '/opt/tc');
  });

  it('makes the deploy tests required under CI and with npm run test:deploy only', () => {
    assert.equal(deployTestRequirement({ CI: 'true' }), 'CI=true');
    assert.equal(deployTestRequirement({ CDKTF_MCP_GATEWAY_DEPLOY_TEST: 'required' }), 'npm run test:deploy');
    assert.equal(deployTestRequirement({}), undefined);
    assert.equal(deployTestRequirement({ CI: 'false' }), undefined);
  });
});

describe('the provider build is reproducible', function () {
  const requirement = deployTestRequirement();
  const built = path.join(toolchainDir(), 'build', `terraform-provider-docker_v${mirrorVersion()}`);
  if (requirement === undefined || !fs.existsSync(built)) {
    it(
      `NOT RUN: needs the provider from \`npm run toolchain\` and a run that asks for it (CI=true or npm run test:deploy)`,
    );
    return;
  }

  it('builds the same bytes again from another directory with an empty Go build cache', function () {
    this.timeout(30 * 60_000);
    // a copy of the script and the wrapper modules elsewhere: another absolute path for every source
    const elsewhere = path.join(tempDir('provider-rebuild-'), 'another', 'checkout');
    fs.cpSync(path.join(REPO, 'scripts/toolchain.sh'), path.join(elsewhere, 'scripts/toolchain.sh'));
    fs.cpSync(path.join(REPO, 'toolchain/terraform'), path.join(elsewhere, 'toolchain/terraform'), { recursive: true });
    const out = path.join(elsewhere, 'provider');
    const result = spawnSync('bash', [path.join(elsewhere, 'scripts/toolchain.sh'), 'rebuild-docker-provider', out], {
      encoding: 'utf8',
      env: { ...process.env, GOCACHE: path.join(elsewhere, 'gocache') },
      timeout: 30 * 60_000,
    });
    assert.equal(result.status, 0, `the rebuild failed: ${(result.stderr ?? '').slice(-2000)}`);
    assert.equal(sha256Of(out), sha256Of(built), `${out} differs from ${built}`);
  });
});

function mirrorVersion(): string {
  const goMod = fs.readFileSync(path.join(REPO, 'toolchain/terraform/provider-docker/go.mod'), 'utf8');
  return /^\/\/ mirror-version: (.+)$/m.exec(goMod)![1];
}

function sha256Of(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}
