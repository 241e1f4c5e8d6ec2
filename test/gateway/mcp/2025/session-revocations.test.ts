import assert from 'node:assert/strict';
import { createSessionSigner, MAX_MIRRORED_REVOCATIONS } from '../../../../src/gateway/mcp/2025/session-token';
import { SessionRevocations } from '../../../../src/gateway/mcp/2025/session-revocations';
import { StoreUnavailableError, type SharedStore } from '../../../../src/gateway/store/shared-store';

/** A store that takes every revocation (what it announces to the replicas is played by hand). */
function acceptingStore(): SharedStore {
  return {
    revoke: async () => undefined,
    onRevoked: () => undefined,
    onRecovery: () => undefined,
  } as unknown as SharedStore;
}

/** A store that answers at once and records what it is handed; `down` refuses everything as an outage. */
function recordingStore(down = false): { store: SharedStore; revoked: string[] } {
  const revoked: string[] = [];
  const store = {
    revoke: async (mac: string) => {
      if (down) throw new StoreUnavailableError('connect ECONNREFUSED 127.0.0.1:6379');
      revoked.push(mac);
    },
    onRevoked: () => undefined,
    onRecovery: () => undefined,
    whenUp: (fn: () => void) => {
      if (!down) fn();
    },
  } as unknown as SharedStore;
  return { store, revoked };
}

describe('SessionRevocations (with a store)', function () {
  this.timeout(60_000);

  it("ends a session in the replica that answered the DELETE even when another agent's ids fill the mirror", async () => {
    const signer = createSessionSigner({ key: Buffer.alloc(32, 3), ttlMs: 3_600_000 });
    const lines: string[] = [];
    const revocations = new SessionRevocations(signer, acceptingStore(), (_level, msg) => lines.push(msg));
    // one agent ended as many sessions as a replica mirrors, all live
    const expires = Date.now() + 3_600_000;
    for (let i = 0; i < MAX_MIRRORED_REVOCATIONS; i++) signer.remember(`flood-${i}`.padEnd(43, '_'), expires);
    const victim = signer.issue({
      principal: 'token:victim',
      protocolVersion: '2025-11-25',
      clientInfo: { name: 'agent', version: '1' },
    });
    assert.ok(signer.verify(victim, 'token:victim'));
    assert.equal(await revocations.end(victim, 'token:victim'), 'revoked');
    assert.equal(signer.verify(victim, 'token:victim'), undefined, 'the ended session is still valid here');
  });

  it('hands the sessions ended during an outage to the store a reload puts in its place', async () => {
    const signer = createSessionSigner({ key: Buffer.alloc(32, 4), ttlMs: 3_600_000 });
    const old = recordingStore(true);
    const revocations = new SessionRevocations(signer, old.store, () => undefined);
    const id = signer.issue({
      principal: 'token:a',
      protocolVersion: '2025-11-25',
      clientInfo: { name: 'a', version: '1' },
    });
    assert.equal(await revocations.end(id, 'token:a'), 'revoked');
    assert.equal(signer.verify(id, 'token:a'), undefined, 'ended here during the outage');
    const next = recordingStore();
    revocations.useStore(next.store);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(next.revoked.length, 1, 'the new store was not handed the session ended during the outage');
    assert.deepEqual(old.revoked, []);
  });
});
