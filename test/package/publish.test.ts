/**
 * Publishing is one step away: `npm publish --dry-run` of this build is clean (nothing but the missing login it
 * reports on any machine without npm credentials), CHANGELOG.md has an entry for the version being published and
 * ships in the tarball, and the release workflow publishes with provenance from a version tag. Build first
 * (`npm run build`; `npm test` does).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { exec, output, ROOT } from './npm-project';

/** What `npm publish --dry-run --json` reports of the tarball. */
interface Packed {
  readonly version: string;
  readonly files: readonly { readonly path: string }[];
}

const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('publishing', function () {
  this.timeout(120_000);

  it('npm publish --dry-run is clean and would ship CHANGELOG.md', async () => {
    let result: { stdout: string; stderr: string };
    try {
      // --ignore-scripts: prepack would clean and rebuild dist/ under the other tests' feet
      result = await exec('npm', ['publish', '--dry-run', '--ignore-scripts', '--json'], ROOT);
    } catch (err) {
      assert.fail(`npm publish --dry-run failed:\n${output(err)}`);
    }
    const warnings = result.stderr
      .split('\n')
      .filter((l) => /^npm (warn|error)/i.test(l))
      .filter((l) => !/requires you to be logged in/.test(l));
    assert.deepEqual(warnings, []);
    // npm 11 keys the report by the package's name; older npm prints the report itself
    const report = JSON.parse(result.stdout) as Packed | Record<string, Packed>;
    const packed = 'files' in report ? (report as Packed) : (report as Record<string, Packed>)['cdktf-mcp-gateway'];
    assert.equal(packed.version, VERSION);
    assert.ok(
      packed.files.some((f) => f.path === 'CHANGELOG.md'),
      'CHANGELOG.md is not in the tarball',
    );
  });

  it('CHANGELOG.md has an entry for the version in package.json', () => {
    const changelog = fs.readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
    assert.match(changelog, new RegExp(`^## \\[${VERSION.replace(/\./g, '\\.')}\\]`, 'm'));
  });

  it('the release workflow publishes from a version tag, with provenance, after the tests', () => {
    const workflow = fs.readFileSync(path.join(ROOT, '.github', 'workflows', 'release.yml'), 'utf8');
    assert.match(workflow, /tags: \['v\*'\]/);
    assert.match(workflow, /id-token: write/);
    const steps = ['npm ci', 'npm test', 'npm publish --provenance --access public'];
    const at = steps.map((s) => workflow.indexOf(`run: ${s}`));
    assert.ok(
      at.every((i) => i >= 0),
      `missing steps: ${steps.filter((_, i) => at[i] < 0).join(', ')}`,
    );
    assert.deepEqual(
      [...at].sort((a, b) => a - b),
      at,
      'npm ci, npm test and npm publish run in that order',
    );
  });
});
