import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createAuthenticator } from '../../../src/gateway/auth/authenticator';
import { createTokenMatcher, tokenHashes } from '../../../src/gateway/auth/bearer-tokens';
import { VerifiedCache } from '../../../src/gateway/auth/verified-cache';
import { createSessionSigner, type SessionClaims } from '../../../src/gateway/mcp/2025/session-token';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const CLAIMS: SessionClaims = {
  principal: 'token:ci-bot',
  protocolVersion: '2025-11-25',
  clientInfo: { name: 'agent', version: '1' },
};

describe('VerifiedCache', () => {
  it('returns a remembered value until its expiry, never at or after it', () => {
    const cache = new VerifiedCache<string>();
    cache.set('id-1', 'v', 1_000);
    assert.equal(cache.get('id-1', 999), 'v');
    assert.equal(cache.get('id-1', 1_000), undefined);
    assert.equal(cache.size, 0, 'an expired entry is dropped when looked up');
    assert.equal(cache.keyCharCount, 0);
  });

  it('matches the exact string only', () => {
    const cache = new VerifiedCache<string>();
    cache.set('abc', 'v', Infinity);
    assert.equal(cache.get('abc', 0), 'v');
    assert.equal(cache.get('ABC', 0), undefined);
    assert.equal(cache.get('abc ', 0), undefined);
    assert.equal(cache.get('ab', 0), undefined);
  });

  it('stays within maxEntries under a flood of distinct keys, dropping the least recently used first', () => {
    const cache = new VerifiedCache<number>({ maxEntries: 100 });
    for (let i = 0; i < 100_000; i++) cache.set(`key-${i}`, i, Infinity);
    assert.equal(cache.size, 100);
    assert.equal(cache.get('key-99899', 0), undefined);
    assert.equal(cache.get('key-99900', 0), 99_900);
    assert.equal(cache.get('key-99999', 0), 99_999);
  });

  it('stays within maxKeyChars whatever the key lengths, and never stores a key longer than the bound', () => {
    const cache = new VerifiedCache<number>({ maxEntries: 1_000_000, maxKeyChars: 10_000 });
    for (let i = 0; i < 5_000; i++) cache.set(`${i}-${'x'.repeat(i % 997)}`, i, Infinity);
    assert.ok(cache.keyCharCount <= 10_000, `${cache.keyCharCount} characters kept`);
    let counted = 0;
    for (let i = 4_999; i >= 0 && cache.get(`${i}-${'x'.repeat(i % 997)}`, 0) !== undefined; i--) counted++;
    assert.equal(counted, cache.size, 'what is kept is the newest keys');
    cache.set('y'.repeat(10_001), 1, Infinity);
    assert.equal(cache.get('y'.repeat(10_001), 0), undefined);
    assert.ok(cache.keyCharCount <= 10_000);
  });

  it('counts a key set twice once', () => {
    const cache = new VerifiedCache<number>({ maxEntries: 2 });
    cache.set('a', 1, Infinity);
    cache.set('a', 2, Infinity);
    cache.set('b', 3, Infinity);
    assert.equal(cache.size, 2);
    assert.equal(cache.keyCharCount, 2);
    assert.equal(cache.get('a', 0), 2);
    assert.equal(cache.get('b', 0), 3);
  });

  it('forgets everything on clear', () => {
    const cache = new VerifiedCache<number>();
    cache.set('a', 1, Infinity);
    cache.clear();
    assert.equal(cache.get('a', 0), undefined);
    assert.equal(cache.size, 0);
    assert.equal(cache.keyCharCount, 0);
  });

  it('refuses bounds that are not positive integers, naming the option and the value', () => {
    assert.throws(
      () => new VerifiedCache({ maxEntries: 0 }),
      (err: Error) => err.message === 'verified cache: maxEntries must be a positive integer, got 0',
    );
    assert.throws(
      () => new VerifiedCache({ maxKeyChars: 1.5 }),
      (err: Error) => err.message === 'verified cache: maxKeyChars must be a positive integer, got 1.5',
    );
  });
});

describe('session ids through the verified cache', () => {
  function signerAt(t0: number, maxEntries = 10_000) {
    const clock = { t: t0 };
    const signer = createSessionSigner({
      key: Buffer.alloc(32, 3),
      ttlMs: 60_000,
      now: () => clock.t,
      verifiedCache: { maxEntries },
    });
    return { signer, clock };
  }

  it('refuses a revoked id on the very next call although it verified (and was remembered) just before', () => {
    const { signer } = signerAt(1_700_000_000_000);
    const id = signer.issue(CLAIMS);
    assert.equal(signer.verify(id, CLAIMS.principal)?.protocolVersion, '2025-11-25');
    assert.equal(signer.verify(id, CLAIMS.principal)?.protocolVersion, '2025-11-25');
    assert.equal(signer.revoke(id, CLAIMS.principal), 'revoked');
    assert.equal(signer.verify(id, CLAIMS.principal), undefined);
    assert.equal(signer.revoke(id, CLAIMS.principal), 'unknown');
  });

  it('refuses a remembered id once it expires', () => {
    const { signer, clock } = signerAt(1_700_000_000_000);
    const id = signer.issue(CLAIMS);
    assert.notEqual(signer.verify(id, CLAIMS.principal), undefined);
    clock.t += 59_999;
    assert.notEqual(signer.verify(id, CLAIMS.principal), undefined);
    clock.t += 1;
    assert.equal(signer.verify(id, CLAIMS.principal), undefined);
  });

  it('applies a shorter session_ttl_ms of a reload to remembered ids at once', () => {
    const { signer, clock } = signerAt(1_700_000_000_000);
    const id = signer.issue(CLAIMS);
    assert.notEqual(signer.verify(id, CLAIMS.principal), undefined);
    clock.t += 10_000;
    signer.setTtlMs(5_000);
    assert.equal(signer.verify(id, CLAIMS.principal), undefined);
    signer.setTtlMs(60_000);
    assert.equal(signer.verify(id, CLAIMS.principal)?.expiresAtMs, 1_700_000_060_000);
  });

  it('refuses a remembered id presented by another principal', () => {
    const { signer } = signerAt(1_700_000_000_000);
    const id = signer.issue(CLAIMS);
    assert.notEqual(signer.verify(id, CLAIMS.principal), undefined);
    assert.equal(signer.verify(id, 'oauth:ci-bot'), undefined);
    assert.equal(signer.verify(id, null), undefined);
  });

  it('still refuses a tampered id next to a remembered one, and keeps verifying after a flood evicted it', () => {
    const { signer } = signerAt(1_700_000_000_000, 50);
    const id = signer.issue(CLAIMS);
    assert.notEqual(signer.verify(id, CLAIMS.principal), undefined);
    const tampered = `${id.slice(0, -1)}${id.endsWith('A') ? 'B' : 'A'}`;
    assert.equal(signer.verify(tampered, CLAIMS.principal), undefined);
    for (let i = 0; i < 5_000; i++) {
      const other = signer.issue({ ...CLAIMS, clientInfo: { name: `agent-${i}`, version: '1' } });
      assert.notEqual(signer.verify(other, CLAIMS.principal), undefined);
      assert.equal(signer.verify(`${other}x`, CLAIMS.principal), undefined);
    }
    assert.notEqual(signer.verify(id, CLAIMS.principal), undefined);
    assert.equal(signer.revoke(id, CLAIMS.principal), 'revoked');
    assert.equal(signer.verify(id, CLAIMS.principal), undefined);
  });
});

describe('bearer tokens through the verified cache', () => {
  it('matches a token once hashed and keeps refusing tokens that never matched', () => {
    const match = createTokenMatcher(tokenHashes([{ id: 'ci-bot', sha256: sha256('secret-1') }]), { maxEntries: 4 });
    assert.equal(match('secret-1'), 'ci-bot');
    assert.equal(match('secret-1'), 'ci-bot');
    for (let i = 0; i < 10_000; i++) assert.equal(match(`guess-${i}`), undefined);
    assert.equal(match('secret-1 '), undefined);
    assert.equal(match('secret-1'), 'ci-bot');
  });

  it('does not carry a remembered token over a reload that removed it', async () => {
    const before = createAuthenticator({ tokens: [{ id: 'ci-bot', sha256: sha256('secret-1') }] });
    assert.equal((await before.authenticate('Bearer secret-1')).principal, 'ci-bot');
    const after = createAuthenticator({ tokens: [{ id: 'ops', sha256: sha256('secret-2') }] });
    await assert.rejects(after.authenticate('Bearer secret-1'), (err: Error) => err.message.startsWith('Unauthorized'));
    assert.equal((await after.authenticate('Bearer secret-2')).principal, 'ops');
  });
});
