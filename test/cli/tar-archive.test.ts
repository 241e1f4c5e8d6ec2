import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { tarArchive } from '../../src/cli/tar-archive';
import { tempDir } from '../helpers/temp-dir';

describe('tarArchive (what docker cp reads on its stdin)', () => {
  it('writes files GNU tar lists with their modes and owners, and extracts byte for byte, long paths included', () => {
    const dir = tempDir('tar-');
    const long = `${'nested/'.repeat(20)}bundle.pem`;
    // a prefix of 100 bytes and a name of 62: only a cut at the first slash fits
    const wide = `${'a'.repeat(100)}/${'b'.repeat(60)}/c`;
    const entries = [
      { path: 'run/secrets/KEY', content: Buffer.from('s3cret\n'), mode: 0o400, uid: 1000, gid: 1000 },
      { path: long, content: Buffer.alloc(1500, 'A'), mode: 0o444, uid: 0, gid: 0 },
      { path: 'empty', content: Buffer.alloc(0), mode: 0o644, uid: 0, gid: 0 },
      { path: wide, content: Buffer.from('w'), mode: 0o444, uid: 0, gid: 0 },
    ];
    const file = path.join(dir, 'a.tar');
    writeFileSync(file, tarArchive(entries));
    const listing = spawnSync('tar', ['-tvf', file, '--numeric-owner'], { encoding: 'utf8' });
    assert.equal(listing.status, 0, listing.stderr);
    assert.match(listing.stdout, /^-r-------- 1000\/1000 +7 .* run\/secrets\/KEY$/m);
    assert.match(listing.stdout, new RegExp(`^-r--r--r-- 0/0 +1500 .* ${long}$`, 'm'));
    assert.equal(spawnSync('tar', ['-xf', file, '-C', dir]).status, 0);
    assert.deepEqual(readFileSync(path.join(dir, long)), entries[1].content);
    assert.equal(readFileSync(path.join(dir, 'empty')).length, 0);
    assert.equal(readFileSync(path.join(dir, wide), 'utf8'), 'w');
  });

  it('refuses a path outside the archive or too long for ustar, naming it', () => {
    for (const bad of ['/etc/passwd', 'a/../../b', '']) {
      assert.throws(() => tarArchive([{ path: bad, content: Buffer.alloc(0), mode: 0o444, uid: 0, gid: 0 }]), {
        message: `tar: the path ${JSON.stringify(bad)} must be relative and stay inside the archive`,
      });
    }
    assert.throws(() => tarArchive([{ path: 'a', content: Buffer.alloc(0), mode: 0o444, uid: 8 ** 7, gid: 0 }]), {
      message: 'tar: 2097152 does not fit a 8-byte header field',
    });
    const tooLong = 'x'.repeat(101);
    assert.throws(() => tarArchive([{ path: tooLong, content: Buffer.alloc(0), mode: 0o444, uid: 0, gid: 0 }]), {
      message: `tar: the path ${JSON.stringify(tooLong)} is too long for a ustar archive`,
    });
  });
});
