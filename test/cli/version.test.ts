/** `cdktf-mcp-gateway --version` and `-v` (built CLI; `npm run build` first): the package version, exit 0. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../helpers/gateway-process';

const VERSION = (JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as { version: string })
  .version;

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
});
