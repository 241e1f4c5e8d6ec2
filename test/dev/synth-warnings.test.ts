import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Annotations, App, TerraformStack } from 'cdktf';
import { DockerProvider } from '@cdktf/provider-docker/lib/provider';
import { Gateway, Service } from '../../constructs';
import { readSynthWarnings } from '../../src/dev/synth-warnings';
import { tempDir } from '../helpers/temp-dir';

/** An output directory holding only `manifest.json` with `text`. */
function withManifest(text: string): string {
  const outdir = tempDir('dev-synth-warnings-');
  fs.writeFileSync(path.join(outdir, 'manifest.json'), text);
  return outdir;
}

const annotation = (level: string, message: string) => ({ constructPath: 'desk/agents', level, message });

describe('synthesis warnings dev prints', () => {
  it('reads the warnings the constructs add, of every stack or of the --stack ones', () => {
    const outdir = tempDir('dev-synth-warnings-');
    const app = new App({ outdir });
    for (const [id, port] of [
      ['desk', 9123],
      ['backoffice', 9124],
    ] as const) {
      const stack = new TerraformStack(app, id);
      new DockerProvider(stack, 'docker', {});
      const health = new Service(stack, 'health', { endpoint: { url: 'http://api:8080/health', method: 'GET' } });
      new Gateway(stack, `${id}-agents`, { services: [health], auth: 'none', port });
      Annotations.of(stack).addInfo(`an info of ${id}, not a warning`);
    }
    app.synth();

    const open = (name: string, port: number) =>
      `Gateway '${name}' has auth: 'none': anyone who can reach port ${port} can call its tools. ` +
      'Add auth.tokens or auth.oauth for anything beyond a local test';
    assert.deepEqual(readSynthWarnings(outdir), [open('backoffice-agents', 9124), open('desk-agents', 9123)]);
    assert.deepEqual(readSynthWarnings(outdir, ['desk']), [open('desk-agents', 9123)]);
  });

  it('keeps only the @cdktf/warn annotations, in the order the app added them', () => {
    const manifest = {
      version: '0.21.0',
      stacks: {
        desk: {
          annotations: [
            annotation('@cdktf/warn', 'first'),
            annotation('@cdktf/info', 'an info'),
            annotation('@cdktf/error', 'an error'),
            annotation('@cdktf/warn', 'second'),
            { level: '@cdktf/warn' },
          ],
        },
      },
    };
    assert.deepEqual(readSynthWarnings(withManifest(JSON.stringify(manifest))), ['first', 'second']);
  });

  it('finds none without a readable manifest: the warnings are advice, not what serves', () => {
    assert.deepEqual(readSynthWarnings(tempDir('dev-synth-warnings-')), []);
    assert.deepEqual(readSynthWarnings(withManifest('{"stacks": {"desk": ')), []);
    assert.deepEqual(readSynthWarnings(withManifest('[]')), []);
    assert.deepEqual(readSynthWarnings(withManifest('{"stacks": {"desk": {"annotations": "none"}}}')), []);
  });
});
