/**
 * The `node -e` of docs/image.md ("By hand, with the example's config"), run as the page writes it on the
 * example's synthesized `cdk.tf.json`: it must print the `agents` gateway's config, the one the deploy hands over.
 * So a change of where synthesis keeps the config breaks this test, not a reader's copy of the recipe.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { TerraformStack, Testing } from 'cdktf';
import { DockerProvider } from '@cdktf/provider-docker/lib/provider';
import { SupportDesk } from '../../examples/support-desk/main';
import { configText, synth } from '../constructs/synth';

const PAGE = readFileSync(path.resolve(__dirname, '../../docs/image.md'), 'utf8');

/** The script of the page's `node -e '…'` and the arguments after it. */
function recipe(): { script: string; args: string[] } {
  const m = /^node -e '\n([^']*)\n' (\S+) (\S+) > gateway\.json$/m.exec(PAGE);
  assert.ok(m !== null, "docs/image.md has no `node -e '…' CDK_TF_JSON GATEWAY > gateway.json`");
  return { script: m[1], args: [m[2], m[3]] };
}

describe("docs/image.md: taking the example's gateway.json out of cdk.tf.json", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'image-recipe-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the config synthesis hands the gateway', () => {
    const { script, args } = recipe();
    assert.equal(args[0], 'examples/support-desk/cdktf.out/stacks/support-desk/cdk.tf.json');
    const stack = new TerraformStack(Testing.app(), 'support-desk');
    new DockerProvider(stack, 'docker', {});
    new SupportDesk(stack, 'support-desk');
    const json = synth(stack);
    const file = path.join(dir, 'cdk.tf.json');
    writeFileSync(file, JSON.stringify(json));
    const printed = execFileSync(process.execPath, ['-e', script, file, args[1]], { encoding: 'utf8' });
    assert.equal(printed, configText(json, args[1]));
    assert.equal(JSON.parse(printed).gateway.name, 'agents');
  });
});
