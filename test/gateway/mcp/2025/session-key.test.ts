import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadSessionKey, SESSION_KEY_ENV } from '../../../../src/gateway/mcp/2025/session-key';
import { tempDir } from '../../../helpers/temp-dir';

const BYTES = Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7 + 1));

function keyFile(content: string | Buffer): string {
  const path = join(tempDir('gw-session-key-'), 'key');
  writeFileSync(path, content);
  return path;
}

describe('loadSessionKey', () => {
  it('reads hex, base64 and base64url text from the environment variable', () => {
    for (const text of [
      BYTES.toString('hex'),
      BYTES.toString('hex').toUpperCase(),
      BYTES.toString('base64'),
      BYTES.toString('base64url'),
    ]) {
      assert.deepEqual(loadSessionKey({ env: text }), { key: BYTES, source: 'env' }, text);
    }
  });

  it('reads a key file, ignoring surrounding whitespace and the trailing newline', () => {
    assert.deepEqual(loadSessionKey({ file: keyFile(`  ${BYTES.toString('base64')}\n`) }), {
      key: BYTES,
      source: 'file',
    });
    assert.deepEqual(loadSessionKey({ file: keyFile(`${BYTES.toString('hex')}\r\n`) }), { key: BYTES, source: 'file' });
  });

  it('accepts keys longer than 32 bytes', () => {
    const long = Buffer.alloc(64, 5);
    assert.deepEqual(loadSessionKey({ env: long.toString('base64') }).key, long);
  });

  it('makes a random 32-byte key when neither source is set (an empty variable counts as unset)', () => {
    const a = loadSessionKey({});
    const b = loadSessionKey({ env: '' });
    assert.equal(a.source, 'random');
    assert.equal(b.source, 'random');
    assert.equal(a.key.length, 32);
    assert.notDeepEqual(a.key, b.key);
  });

  it('refuses a short key with one line naming the source and the fix', () => {
    assert.throws(
      () => loadSessionKey({ env: Buffer.alloc(31, 1).toString('base64') }),
      (err: Error) =>
        err.message ===
        `session key from ${SESSION_KEY_ENV}: 31 bytes; expected at least 32 bytes as hex or base64 text (e.g. \`openssl rand -base64 32\`)`,
    );
    const file = keyFile('abcd');
    assert.throws(() => loadSessionKey({ file }), {
      message: `session key from session_key_file ${file}: 2 bytes; expected at least 32 bytes as hex or base64 text (e.g. \`openssl rand -base64 32\`)`,
    });
  });

  it('refuses text that is neither hex nor base64', () => {
    for (const text of [
      'not a key at all!',
      `${BYTES.toString('base64')}!`,
      'é'.repeat(50),
      `${'A'.repeat(45)}`,
      `a+b/${'A'.repeat(40)}-_`,
      '\u2028'.repeat(44),
    ]) {
      assert.throws(
        () => loadSessionKey({ env: text }),
        (err: Error) => err.message.startsWith(`session key from ${SESSION_KEY_ENV}: `) && !err.message.includes('\n'),
        text,
      );
    }
  });

  it('refuses a binary key file (raw bytes are not accepted: the file holds text)', () => {
    const file = keyFile(
      Buffer.from([
        0, 255, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
        29, 30, 31, 32,
      ]),
    );
    assert.throws(() => loadSessionKey({ file }), {
      message: `session key from session_key_file ${file}: not hex or base64 text; expected at least 32 bytes as hex or base64 text (e.g. \`openssl rand -base64 32\`)`,
    });
  });

  it('refuses an unreadable or oversized key file without reading it whole', () => {
    assert.throws(() => loadSessionKey({ file: '/nonexistent/key' }), {
      message: 'session key: session_key_file /nonexistent/key: cannot read it (ENOENT)',
    });
    const dir = tempDir('gw-session-key-');
    assert.throws(() => loadSessionKey({ file: dir }), {
      message: `session key: session_key_file ${dir}: cannot read it (EISDIR)`,
    });
    const big = keyFile('A'.repeat(1024 * 1024));
    assert.throws(() => loadSessionKey({ file: big }), {
      message: `session key: session_key_file ${big}: cannot read it (1048576 bytes, a key file holds a short hex or base64 text)`,
    });
  });

  it('refuses both sources at once', () => {
    assert.throws(() => loadSessionKey({ file: '/k', env: BYTES.toString('hex') }), {
      message: `session key: both session_key_file (/k) and ${SESSION_KEY_ENV} are set; set only one`,
    });
  });
});

describe('loadSessionKey with session_key_store (a generated key kept across restarts)', () => {
  function storePath(): string {
    return join(tempDir('gw-session-store-'), 'state', 'session-key');
  }

  it('generates a 32-byte key into the store (mode 0600, base64 text), then reads the same key back', () => {
    const store = storePath();
    const first = loadSessionKey({ store });
    assert.equal(first.source, 'stored');
    assert.equal(first.key.length, 32);
    assert.equal(statSync(store).mode & 0o777, 0o600);
    assert.equal(readFileSync(store, 'utf8'), `${first.key.toString('base64')}\n`);
    assert.deepEqual(loadSessionKey({ store }), first);
    assert.deepEqual(readdirSync(dirname(store)), ['session-key'], 'no draft file is left behind');
  });

  it('is used only when neither session_key_file nor the environment variable gives the key', () => {
    const store = storePath();
    assert.deepEqual(loadSessionKey({ store, env: BYTES.toString('hex') }), { key: BYTES, source: 'env' });
    assert.deepEqual(loadSessionKey({ store, file: keyFile(BYTES.toString('hex')) }), { key: BYTES, source: 'file' });
    assert.equal(existsSync(store), false, 'the store was not written');
  });

  it('agrees with a process that wrote the store first (the file is created whole or not at all)', () => {
    const store = storePath();
    mkdirSync(dirname(store), { recursive: true });
    writeFileSync(store, BYTES.toString('base64'), { mode: 0o600 });
    assert.deepEqual(loadSessionKey({ store }), { key: BYTES, source: 'stored' });
  });

  it('refuses a damaged store with one line naming it, instead of replacing the key', () => {
    const store = storePath();
    mkdirSync(dirname(store), { recursive: true });
    writeFileSync(store, 'not a key\n');
    assert.throws(
      () => loadSessionKey({ store }),
      new RegExp(
        `^Error: session key from session_key_store ${store.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not hex or base64 text`,
      ),
    );
  });

  it('refuses a store it cannot create with one line naming it and the reason', () => {
    const dir = tempDir('gw-session-store-');
    const blocker = join(dir, 'file');
    writeFileSync(blocker, '');
    assert.throws(
      () => loadSessionKey({ store: join(blocker, 'session-key') }),
      /^Error: session key: session_key_store .*file\/session-key: cannot create it \((ENOTDIR|EEXIST)\)$/,
    );
  });
});
