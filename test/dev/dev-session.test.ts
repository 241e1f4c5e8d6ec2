/**
 * A dev session's reloads (`DevSession.reload`), as an embedder calls them: one at a time, and all of them settled
 * once `close()` has resolved.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DevOptions, DevSession, parseDevArgs, startDevSession } from '../../src/dev';
import { SynthStoppedError } from '../../src/dev/synthesize-app';
import { silentLogger } from '../../src/gateway';
import { eventually } from '../helpers/eventually';

const FIXTURE = path.join(__dirname, 'fixtures', 'tiny-app');

describe('a dev session reloaded twice at once', function () {
  this.timeout(60_000);
  let app: string;
  let session: DevSession | undefined;
  let lines: string[];

  beforeEach(async () => {
    app = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dev-session-')), 'tiny-app');
    fs.cpSync(FIXTURE, app, { recursive: true, filter: (src) => path.basename(src) !== '.dev' });
    lines = [];
    session = await startDevSession(parseDevArgs([app, '--port', '0']) as DevOptions, {
      gatewayLogger: silentLogger,
      log: (line) => lines.push(line),
    });
    lines = [];
  });
  afterEach(async () => {
    await session?.close();
    session = undefined;
    fs.rmSync(path.dirname(app), { recursive: true, force: true });
  });

  it('synthesizes for the second only once the first has settled', async () => {
    const results = await Promise.all([session!.reload(), session!.reload()]);
    assert.deepEqual(results, [
      ['Gateway alpha unchanged', 'Gateway beta unchanged'],
      ['Gateway alpha unchanged', 'Gateway beta unchanged'],
    ]);
    const steps = lines.filter((l) => /^Synthesiz/.test(l)).map((l) => l.split(' ')[0]);
    assert.deepEqual(steps, ['Synthesizing', 'Synthesized', 'Synthesizing', 'Synthesized']);
  });

  it('has settled both when close() resolves, the one waiting never started', async () => {
    const settled: string[] = [];
    const track = (name: string, reload: Promise<string[]>) =>
      reload.then(
        () => settled.push(`${name} reloaded`),
        (err: unknown) => settled.push(`${name} ${err instanceof SynthStoppedError ? 'stopped' : String(err)}`),
      );
    const first = track('first', session!.reload());
    const second = track('second', session!.reload());
    await eventually(() => lines.some((l) => l.startsWith('Synthesizing')));
    await session!.close();
    // the first is stopped in its synthesis (or, on a fast machine, may have finished it); the second never ran
    assert.equal(settled.length, 2, 'close() resolved before every reload settled');
    assert.match(settled[0], /^first (stopped|reloaded)$/);
    assert.equal(settled[1], 'second stopped');
    await Promise.all([first, second]);
    assert.equal(lines.filter((l) => l.startsWith('Synthesizing')).length, 1, lines.join('\n'));
  });
});
