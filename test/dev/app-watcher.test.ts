/** `watchApp`: every save in an app folder leads to a synthesis, however the editor writes the file. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { watchApp } from '../../src/dev/app-watcher';
import { eventually, sleep } from '../helpers/eventually';

describe('dev/app-watcher', function () {
  this.timeout(60_000);
  let dir: string;
  let stop: (() => void) | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'app-watcher-'));
    fs.mkdirSync(path.join(dir, 'lib'));
    fs.writeFileSync(path.join(dir, 'main.ts'), 'a');
    fs.writeFileSync(path.join(dir, 'lib', 'x.ts'), 'a');
  });
  afterEach(() => {
    stop?.();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Writes a new file and renames it over `file`, as editors with safe saves and `git checkout` do. */
  const replace = (file: string, text: string): void => {
    fs.writeFileSync(`${file}.tmp`, text);
    fs.renameSync(`${file}.tmp`, file);
  };

  it('sees writes in place and files replaced, before and after a replacement, in any folder', async () => {
    let calls = 0;
    stop = watchApp(dir, async () => {
      calls++;
    });
    const main = path.join(dir, 'main.ts');
    const lib = path.join(dir, 'lib', 'x.ts');
    const steps: [string, () => void][] = [
      ['a write', () => fs.writeFileSync(main, 'b')],
      ['a replacement', () => replace(main, 'c')],
      ['a write after a replacement', () => fs.writeFileSync(main, 'd')],
      ['a second replacement', () => replace(main, 'e')],
      ['a replacement in a subfolder', () => replace(lib, 'f')],
      ['a write there after it', () => fs.writeFileSync(lib, 'g')],
      ['a new folder and file', () => fs.mkdirSync(path.join(dir, 'new'))],
      ['a write in the new folder', () => fs.writeFileSync(path.join(dir, 'new', 'y.ts'), 'h')],
    ];
    for (const [what, step] of steps) {
      const before = calls;
      step();
      await eventually(() => calls > before, { timeoutMs: 5_000, what: `a synthesis after ${what}` });
      await sleep(450); // past the quiet time, so the next step is a burst of its own
    }
  });

  it('makes no call once stopped, not even the one edits during a running call asked for', async () => {
    let calls = 0;
    let finish: (() => void) | undefined;
    stop = watchApp(dir, () => {
      calls++;
      return new Promise<void>((resolve) => (finish = resolve));
    });
    const main = path.join(dir, 'main.ts');
    fs.writeFileSync(main, 'b');
    await eventually(() => calls === 1, { what: 'the first call' });
    // an edit while it runs: one more call is due after it
    fs.writeFileSync(main, 'c');
    await sleep(1_000);
    stop();
    finish!();
    await sleep(100);
    assert.equal(calls, 1);
  });

  it('ignores what dev and the tools write: .dev, cdktf.out, node_modules', async () => {
    let calls = 0;
    for (const folder of ['.dev', 'cdktf.out', 'node_modules']) fs.mkdirSync(path.join(dir, folder));
    stop = watchApp(dir, async () => {
      calls++;
    });
    for (const folder of ['.dev', 'cdktf.out', 'node_modules']) fs.writeFileSync(path.join(dir, folder, 'f'), 'x');
    await sleep(1_000);
    assert.equal(calls, 0);
  });
});
