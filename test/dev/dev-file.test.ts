import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readDevFile } from '../../src/dev/dev-file';

describe('dev.json', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-file-test-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const write = (doc: unknown): void =>
    fs.writeFileSync(path.join(dir, 'dev.json'), typeof doc === 'string' ? doc : JSON.stringify(doc));

  it('means no backends when the file is absent', () => {
    assert.deepEqual(readDevFile(dir), { backends: [] });
  });

  it('reads backends with their command, hosts, name and ready timeout', () => {
    write({
      backends: [
        { name: 'api', command: 'node api.js', hosts: ['api:8080', 'api-v2:80'], readyTimeoutMs: 5000 },
        { command: 'x', hosts: ['y:1'] },
      ],
    });
    assert.deepEqual(readDevFile(dir), {
      backends: [
        { name: 'api', command: 'node api.js', hosts: ['api:8080', 'api-v2:80'], readyTimeoutMs: 5000 },
        { command: 'x', hosts: ['y:1'] },
      ],
    });
  });

  it('names the file and field of a mistake', () => {
    const file = path.join(dir, 'dev.json');
    write('{ nope');
    assert.throws(
      () => readDevFile(dir),
      (err: Error) => err.message.startsWith(`${file}: invalid JSON (`),
    );
    write({ backends: {} });
    assert.throws(() => readDevFile(dir), { message: `${file}: backends: must be an array` });
    write({ backends: [{ command: '' }] });
    assert.throws(() => readDevFile(dir), { message: `${file}: backends[0].command: must be a shell command` });
    write({ backends: [{ command: 'node a.js', hosts: ['api'] }] });
    assert.throws(() => readDevFile(dir), {
      message: `${file}: backends[0].hosts: must list the HOST:PORT names it replaces, e.g. ["api:8080"]`,
    });
    write({ backends: [{ command: 'node a.js', hosts: ['api:1'], readyTimeoutMs: -1 }] });
    assert.throws(() => readDevFile(dir), {
      message: `${file}: backends[0].readyTimeoutMs: must be a positive integer`,
    });
  });
});
