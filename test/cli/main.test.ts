import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const CLI = path.resolve(__dirname, '../../dist/src/cli/main.js');

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 15_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('cdktf-mcp-gateway (the built CLI)', () => {
  it('prints the usage of both subcommands for --help and exits 0', () => {
    const { code, stdout } = run('--help');
    assert.equal(code, 0);
    assert.match(stdout, /cdktf-mcp-gateway serve --config FILE/);
    assert.match(stdout, /cdktf-mcp-gateway dev \[DIR\]/);
  });

  it('refuses an unknown command with one line on stderr and exit code 2', () => {
    const { code, stdout, stderr } = run('deploy');
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.equal(
      stderr,
      "cdktf-mcp-gateway: unknown command 'deploy' (expected serve, apply-config, dev or dashboard; see --help)\n",
    );
  });

  it('dispatches to serve, which refuses a missing --config with one line', () => {
    const { code, stderr } = run('serve');
    assert.notEqual(code, 0);
    assert.equal(stderr.trimEnd().split('\n').length, 1, stderr);
    assert.match(stderr, /^cdktf-mcp-gateway: .*--config/);
  });
});
