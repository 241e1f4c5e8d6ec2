import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  createSessionSigner,
  MAX_CLOCK_SKEW_MS,
  MAX_SESSION_ID_LENGTH,
  type SessionClaims,
  type SessionSigner,
} from '../../../../src/gateway/mcp/2025/session-token';
import { MAX_CLIENT_FIELD_LENGTH } from '../../../../src/gateway/mcp/shared/client-info';

const KEY = Buffer.alloc(32, 7);
const TTL = 60_000;
const CLAIMS: SessionClaims = {
  principal: 'ci-bot',
  protocolVersion: '2025-11-25',
  clientInfo: { name: 'agent', version: '1.2.3' },
};

/** A signer on a hand-moved clock. */
function signerAt(
  start = 1_700_000_000_000,
  opts: { key?: Buffer; maxRevoked?: number; maxRevokedPerPrincipal?: number; gateway?: string } = {},
): { signer: SessionSigner; clock: { t: number } } {
  const clock = { t: start };
  const signer = createSessionSigner({
    key: opts.key ?? KEY,
    ttlMs: TTL,
    now: () => clock.t,
    maxRevoked: opts.maxRevoked,
    maxRevokedPerPrincipal: opts.maxRevokedPerPrincipal,
    gateway: opts.gateway,
  });
  return { signer, clock };
}

function flip(id: string, index: number): string {
  // A different character of the same base64url alphabet at `index` ('.' stays '.').
  const c = id[index];
  const replacement = c === 'A' ? 'B' : 'A';
  return id.slice(0, index) + replacement + id.slice(index + 1);
}

describe('session tokens (signed, stateless session ids)', () => {
  it('verifies an id it issued, returning principal, version, client and times', () => {
    const { signer, clock } = signerAt();
    const id = signer.issue(CLAIMS);
    assert.match(id, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(signer.verify(id, 'ci-bot'), {
      principal: 'ci-bot',
      protocolVersion: '2025-11-25',
      client: { name: 'agent', version: '1.2.3' },
      issuedAtMs: clock.t,
      expiresAtMs: clock.t + TTL,
    });
  });

  it('keeps a null principal (no authentication) and null client fields apart from the strings "null"', () => {
    const { signer } = signerAt();
    const id = signer.issue({
      principal: null,
      protocolVersion: '2025-03-26',
      clientInfo: { name: null, version: null },
    });
    assert.deepEqual(signer.verify(id, null)?.client, { name: null, version: null });
    assert.equal(signer.verify(id, 'null'), undefined);
    const named = signer.issue({ ...CLAIMS, principal: 'null' });
    assert.equal(signer.verify(named, null), undefined);
  });

  it('issues a different id each time, even within one millisecond', () => {
    const { signer } = signerAt();
    const ids = new Set(Array.from({ length: 100 }, () => signer.issue(CLAIMS)));
    assert.equal(ids.size, 100);
  });

  it('refuses an id presented by another principal', () => {
    const { signer } = signerAt();
    const id = signer.issue(CLAIMS);
    assert.equal(signer.verify(id, 'other-bot'), undefined);
    assert.equal(signer.verify(id, null), undefined);
  });

  it('refuses an id signed with another key, and a second process with the same key accepts it', () => {
    const { signer } = signerAt();
    const id = signer.issue(CLAIMS);
    assert.equal(signerAt(undefined, { key: Buffer.alloc(32, 8) }).signer.verify(id, 'ci-bot'), undefined);
    const lastByteChanged = Buffer.from(KEY);
    lastByteChanged[31] ^= 1;
    assert.equal(signerAt(undefined, { key: lastByteChanged }).signer.verify(id, 'ci-bot'), undefined);
    assert.equal(signerAt().signer.verify(id, 'ci-bot')?.principal, 'ci-bot');
  });

  it('copies the key, so changing the caller’s buffer later changes nothing', () => {
    const key = Buffer.alloc(32, 9);
    const signer = createSessionSigner({ key, ttlMs: TTL });
    const id = signer.issue(CLAIMS);
    key.fill(0);
    assert.ok(signer.verify(id, 'ci-bot'));
  });

  it('expires an id ttlMs after issue (not after last use), with an injected clock', () => {
    const { signer, clock } = signerAt();
    const id = signer.issue(CLAIMS);
    clock.t += TTL - 1;
    assert.ok(signer.verify(id, 'ci-bot'));
    clock.t += 1;
    assert.equal(signer.verify(id, 'ci-bot'), undefined);
  });

  it('takes a new ttl on reload for ids already issued', () => {
    const { signer, clock } = signerAt();
    const id = signer.issue(CLAIMS);
    clock.t += 10_000;
    signer.setTtlMs(5_000);
    assert.equal(signer.verify(id, 'ci-bot'), undefined);
    signer.setTtlMs(20_000);
    assert.ok(signer.verify(id, 'ci-bot'));
    assert.throws(() => signer.setTtlMs(0), /session ttlMs must be a positive integer, got 0/);
  });

  it('refuses an id issued too far in the future (clock skew beyond the allowance)', () => {
    const { signer: issuer } = signerAt(1_000_000 + MAX_CLOCK_SKEW_MS + 1);
    const { signer: verifier } = signerAt(1_000_000);
    assert.equal(verifier.verify(issuer.issue(CLAIMS), 'ci-bot'), undefined);
    const { signer: nearIssuer } = signerAt(1_000_000 + MAX_CLOCK_SKEW_MS);
    assert.ok(verifier.verify(nearIssuer.issue(CLAIMS), 'ci-bot'));
  });

  it('refuses every single-character change anywhere in the id (payload, separator, mac)', () => {
    const { signer } = signerAt();
    const id = signer.issue(CLAIMS);
    for (let i = 0; i < id.length; i++) {
      const changed = id[i] === '.' ? id.slice(0, i) + 'A' + id.slice(i + 1) : flip(id, i);
      assert.equal(signer.verify(changed, 'ci-bot'), undefined, `changed at ${i}`);
    }
  });

  it('refuses truncated, extended and reassembled ids', () => {
    const { signer } = signerAt();
    const id = signer.issue(CLAIMS);
    const other = signer.issue({ ...CLAIMS, principal: 'other-bot' });
    const [payload, mac] = id.split('.');
    const [otherPayload] = other.split('.');
    for (const bad of [
      id.slice(0, -1),
      `${id}A`,
      `${id}=`,
      `A${id}`,
      `${payload}.${mac}.${mac}`,
      `.${mac}`,
      `${payload}.`,
      payload,
      `${otherPayload}.${mac}`,
      `${payload}=.${mac}`,
      ` ${id}`,
      `${id} `,
      id.replace('.', '..'),
    ]) {
      assert.equal(signer.verify(bad, 'ci-bot'), undefined, bad);
    }
  });

  it('refuses a mac in a non-canonical base64url spelling (same bytes, different text)', () => {
    const { signer } = signerAt();
    const id = signer.issue(CLAIMS);
    const last = id[id.length - 1];
    // The 43rd character carries 2 unused low bits: adding 1 keeps the decoded bytes and changes the text.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const twin = id.slice(0, -1) + alphabet[alphabet.indexOf(last) + 1];
    assert.deepEqual(Buffer.from(twin.split('.')[1], 'base64url'), Buffer.from(id.split('.')[1], 'base64url'));
    assert.equal(signer.verify(twin, 'ci-bot'), undefined);
  });

  it('refuses a payload that was validly signed but is not a token (forged with the key: format checks hold)', () => {
    const { createHmac } = require('node:crypto') as typeof import('node:crypto');
    const { signer } = signerAt();
    const sign = (body: unknown): string => {
      const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
      return `${payload}.${createHmac('sha256', KEY).update('cdktf-mcp-gateway/session/v2."".').update(payload).digest('base64url')}`;
    };
    const now = 1_700_000_000_000;
    assert.ok(
      signer.verify(sign([1, 'ci-bot', '2025-11-25', 'a', 'b', now, 'n']), 'ci-bot'),
      'the forging helper is right',
    );
    for (const body of [
      [2, 'ci-bot', '2025-11-25', 'a', 'b', now, 'n'],
      [1, 'ci-bot', '2025-11-25', 'a', 'b', now],
      [1, 'ci-bot', 2025, 'a', 'b', now, 'n'],
      [1, 'ci-bot', '2025-11-25', 1, 'b', now, 'n'],
      [1, 'ci-bot', '2025-11-25', 'a', 'b', String(now), 'n'],
      [1, 'ci-bot', '2025-11-25', 'a', 'b', 1e400, 'n'],
      [1, 'ci-bot', '2025-11-25', 'a', 'b', -1, 'n'],
      [1, 'ci-bot', '2025-11-25', 'a', 'b', now + 0.5, 'n'],
      { 0: 1, 1: 'ci-bot', length: 7 },
      '__proto__',
      null,
    ]) {
      assert.equal(signer.verify(sign(body), 'ci-bot'), undefined, JSON.stringify(body));
    }
    const notJson = Buffer.from('{"a":').toString('base64url');
    const mac = createHmac('sha256', KEY)
      .update('cdktf-mcp-gateway/session/v2."".')
      .update(notJson)
      .digest('base64url');
    assert.equal(signer.verify(`${notJson}.${mac}`, 'ci-bot'), undefined);
  });

  it('refuses garbage of every type and size, including a 1 MiB id, without hashing it', () => {
    const { signer } = signerAt();
    const huge = 'A'.repeat(1024 * 1024 - 44) + '.' + 'A'.repeat(43);
    for (const bad of [
      undefined,
      null,
      0,
      1e400,
      {},
      [],
      ['a.b'],
      '',
      '.',
      'x'.repeat(MAX_SESSION_ID_LENGTH + 1),
      huge,
      '__proto__',
      'constructor',
      'toString',
      '\u2028.\u2029',
      `${'é'.repeat(10)}.${'A'.repeat(43)}`,
      `${randomBytes(64).toString('base64url')}.${randomBytes(32).toString('base64url')}`,
    ]) {
      assert.equal(signer.verify(bad, 'ci-bot'), undefined, typeof bad === 'string' ? bad.slice(0, 40) : String(bad));
    }
  });

  it('cuts client name and version to 128 code units without splitting a surrogate pair', () => {
    const { signer } = signerAt();
    const name = 'n'.repeat(127) + '😀' + 'rest';
    const id = signer.issue({ ...CLAIMS, clientInfo: { name, version: 'v'.repeat(10_000) } });
    const client = signer.verify(id, 'ci-bot')?.client;
    assert.equal(client?.name, 'n'.repeat(127));
    assert.equal(client?.version, 'v'.repeat(MAX_CLIENT_FIELD_LENGTH));
    assert.ok(id.length <= MAX_SESSION_ID_LENGTH);
  });

  it('keeps U+2028, quotes and backslashes in client info intact through the token', () => {
    const { signer } = signerAt();
    const name = 'a"b\\c\u2028d\u0085e</script>';
    assert.equal(
      signer.verify(signer.issue({ ...CLAIMS, clientInfo: { name, version: '1' } }), 'ci-bot')?.client.name,
      name,
    );
  });

  it('refuses to issue an id over the maximum length (an absurd principal id), with a message', () => {
    const { signer } = signerAt();
    assert.throws(
      () => signer.issue({ ...CLAIMS, principal: 'p'.repeat(7000) }),
      /session id would be \d+ characters, over 8192: the principal id is too long/,
    );
  });

  it('issues an id for the longest principal and client fields, all control characters (JSON escapes them 6x)', () => {
    const { signer } = signerAt();
    const worst = {
      principal: `oauth:${'\u0001'.repeat(256)}`,
      clientInfo: { name: '\u0001'.repeat(128), version: '\u0002'.repeat(128) },
    };
    const id = signer.issue({ ...CLAIMS, ...worst });
    assert.ok(id.length <= MAX_SESSION_ID_LENGTH, `${id.length}`);
    assert.equal(signer.verify(id, worst.principal)?.client.name, worst.clientInfo.name);
  });

  it("signs the gateway name in: two gateways with the same key refuse each other's ids", () => {
    const a = signerAt(1_700_000_000_000, { gateway: 'support' }).signer;
    const b = signerAt(1_700_000_000_000, { gateway: 'billing' }).signer;
    const id = a.issue(CLAIMS);
    assert.ok(a.verify(id, 'ci-bot'));
    assert.equal(b.verify(id, 'ci-bot'), undefined);
    assert.equal(b.verify(b.issue(CLAIMS), 'ci-bot')?.principal, 'ci-bot');
  });

  it('refuses a short key and a bad ttl at construction', () => {
    assert.throws(
      () => createSessionSigner({ key: Buffer.alloc(31), ttlMs: TTL }),
      /^Error: session key: 31 bytes, at least 32 are needed$/,
    );
    assert.throws(
      () => createSessionSigner({ key: KEY, ttlMs: -1 }),
      /session ttlMs must be a positive integer, got -1/,
    );
    assert.throws(() => createSessionSigner({ key: KEY, ttlMs: 1.5 }), /got 1.5/);
    assert.throws(
      () => createSessionSigner({ key: KEY, ttlMs: TTL, maxRevoked: 0 }),
      /maxRevoked must be a positive integer, got 0/,
    );
    assert.throws(
      () => createSessionSigner({ key: KEY, ttlMs: TTL, maxRevokedPerPrincipal: 1.5 }),
      /maxRevokedPerPrincipal must be a positive integer, got 1.5/,
    );
  });

  describe('revocation', () => {
    it('revokes an id in this process; another process with the same key still honours it', () => {
      const { signer } = signerAt();
      const id = signer.issue(CLAIMS);
      assert.equal(signer.revoke(id, 'ci-bot'), 'revoked');
      assert.equal(signer.verify(id, 'ci-bot'), undefined);
      assert.ok(signerAt().signer.verify(id, 'ci-bot'));
      assert.ok(signer.verify(signer.issue(CLAIMS), 'ci-bot'), 'other ids stay valid');
    });

    it('refuses an id ended on another replica (remembered from the store) for every principal, counted once', () => {
      const { signer, clock } = signerAt();
      const id = signer.issue(CLAIMS);
      const other = signerAt().signer;
      const ended = other.revocationOf(id, 'ci-bot')!;
      assert.equal(other.revocationOf(id, 'other-bot'), undefined);
      // the replica that ended it, the store's announcement and a resync after a reconnect all remember it
      for (let i = 0; i < 3; i++) assert.equal(signer.remember(ended.mac, ended.expiresAtMs), true);
      assert.equal(signer.verify(id, 'ci-bot'), undefined);
      assert.equal(signer.revokedCount, 1);
      assert.ok(signer.verify(signer.issue(CLAIMS), 'ci-bot'), 'other ids stay valid');
      assert.equal(signer.remember('x'.repeat(43), clock.t), true, 'an expired id needs no entry');
      assert.equal(signer.revokedCount, 1);
    });

    it('stores nothing for ids that do not verify (garbage, other principal, expired)', () => {
      const { signer, clock } = signerAt();
      const id = signer.issue(CLAIMS);
      assert.equal(signer.revoke('garbage', 'ci-bot'), 'unknown');
      assert.equal(signer.revoke(id, 'other-bot'), 'unknown');
      assert.equal(signer.revoke(flip(id, 3), 'ci-bot'), 'unknown');
      clock.t += TTL;
      assert.equal(signer.revoke(id, 'ci-bot'), 'unknown');
      assert.equal(signer.revokedCount, 0);
    });

    it("refuses a revocation over the principal's share instead of evicting a live entry; expired ones make room", () => {
      const { signer, clock } = signerAt(1_000_000, { maxRevokedPerPrincipal: 3 });
      const ids = [0, 1, 2, 3].map(() => {
        clock.t += 1000;
        return signer.issue(CLAIMS);
      });
      for (const id of ids.slice(0, 3)) assert.equal(signer.revoke(id, 'ci-bot'), 'revoked');
      assert.equal(signer.revoke(ids[3], 'ci-bot'), 'full');
      assert.ok(signer.verify(ids[3], 'ci-bot'), 'the refused one stays valid (the caller got 429)');
      for (const id of ids.slice(0, 3)) assert.equal(signer.verify(id, 'ci-bot'), undefined, 'no revoked id revived');
      // Once the first has expired, it makes room.
      clock.t = 1_000_000 + 1000 + TTL;
      const fresh = signer.issue(CLAIMS);
      assert.equal(signer.revoke(fresh, 'ci-bot'), 'revoked');
      assert.equal(signer.revokedCount, 3);
    });

    it("a flood by one principal never revives another principal's revoked id (shares are per principal)", () => {
      const { signer, clock } = signerAt(1_000_000, { maxRevokedPerPrincipal: 50, maxRevoked: 200 });
      const victim = signer.issue({ ...CLAIMS, principal: 'token:victim' });
      assert.equal(signer.revoke(victim, 'token:victim'), 'revoked');
      let full = 0;
      for (let i = 0; i < 2000; i++) {
        clock.t += 1;
        const id = signer.issue({ ...CLAIMS, principal: 'oauth:victim' });
        if (signer.revoke(id, 'oauth:victim') === 'full') full++;
        assert.ok(signer.revokedCount <= 51);
      }
      assert.equal(full, 2000 - 50);
      assert.equal(signer.verify(victim, 'token:victim'), undefined, 'still revoked');
    });

    it('stays bounded in total across principals: a full list refuses, never evicts', () => {
      const { signer, clock } = signerAt(1_000_000, { maxRevokedPerPrincipal: 10, maxRevoked: 30 });
      const first = signer.issue({ ...CLAIMS, principal: 'oauth:p0' });
      assert.equal(signer.revoke(first, 'oauth:p0'), 'revoked');
      const results: string[] = [];
      for (let i = 1; i < 100; i++) {
        clock.t += 1;
        const principal = `oauth:p${i}`;
        results.push(signer.revoke(signer.issue({ ...CLAIMS, principal }), principal));
      }
      assert.equal(signer.revokedCount, 30);
      assert.equal(results.filter((r) => r === 'revoked').length, 29);
      assert.equal(signer.verify(first, 'oauth:p0'), undefined);
      clock.t = 1_000_000 + TTL + 1000;
      assert.equal(signer.revoke(signer.issue({ ...CLAIMS, principal: 'oauth:late' }), 'oauth:late'), 'revoked');
      assert.equal(signer.revokedCount, 1, 'every expired entry dropped');
    });
  });
});
