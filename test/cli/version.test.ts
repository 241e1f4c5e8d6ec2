/** `cdktf-mcp-gateway --version` and `-v` (built CLI; `npm run build` first): the package version, exit 0. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../helpers/gateway-process';

const ROOT = path.resolve(__dirname, '../..');
const PACKAGE = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
};
const VERSION = PACKAGE.version;

describe('cdktf-mcp-gateway --version', () => {
  for (const flag of ['--version', '-v']) {
    it(`prints the package version for ${flag}`, async () => {
      const result = await runCli([flag]);
      assert.equal(result.code, 0);
      assert.equal(result.stdout, `${VERSION}\n`);
      assert.equal(result.stderr, '');
    });
  }

  it('lists --version in the usage', async () => {
    assert.match((await runCli(['--help'])).stdout, /cdktf-mcp-gateway --version {13}\(or -v\)/);
  });

  it('answers `npx cdktf-mcp-gateway --version` in a clone after the build, as the README shows', () => {
    // npx runs the bin file itself: the build must leave it executable, which tsc alone does not
    const bin = path.join(ROOT, PACKAGE.bin['cdktf-mcp-gateway']);
    assert.equal(statSync(bin).mode & 0o111, 0o111, `${bin} is not executable`);
    const result = spawnSync('npx', ['cdktf-mcp-gateway', '--version'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, `${VERSION}\n`);
  });
});
