/**
 * Ending a session (`DELETE`): through the shared store when the gateway has one, so every replica refuses the id
 * at once (each mirrors what the store announces), else in this process's bounded list. During a store outage a
 * session ends in this process and is handed to the store when it returns, so no ended session is lost.
 */
import type { Principal } from '../../auth/bearer-tokens';
import type { Logger } from '../../log/logger';
import { MAX_MIRRORED_REVOCATIONS, type RevokeResult, type SessionSigner } from './session-token';
import { StoreUnavailableError, type SharedStore } from '../../store/shared-store';

export class SessionRevocations {
  /** Ended here during an outage, handed to the store when it is back (bounded by the signer's own list). */
  private readonly pending = new Map<string, number>();
  private store: SharedStore | undefined;
  /** The mirror refused an id since it last took one (logged once, not per id: a flood must not flood the log). */
  private mirrorFull = false;

  constructor(
    private readonly signer: SessionSigner,
    store: SharedStore | undefined,
    private readonly log: Logger,
  ) {
    this.useStore(store);
  }

  /** Ends sessions through `store` from now on (a reload may add, change or remove it). */
  useStore(store: SharedStore | undefined): void {
    this.store = store;
    // ids ended here during an outage of the store this one replaces: the new store takes them (without one, this
    // process's own list keeps them, as for every other id)
    if (store === undefined) {
      this.pending.clear();
      return;
    }
    if (this.pending.size > 0) store.whenUp(() => void this.handOver(store));
    store.onRevoked((mac, expiresAtMs) => {
      const kept = this.signer.remember(mac, expiresAtMs);
      if (!kept && !this.mirrorFull) {
        this.log('warn', 'ended sessions not mirrored: the mirror is full until some expire', {
          max: MAX_MIRRORED_REVOCATIONS,
        });
      }
      this.mirrorFull = !kept;
    });
    store.onRecovery(() => void this.handOver(store));
  }

  /**
   * Ends the session `id` of `principal`; `'full'` when the principal's share of this process's list is used up
   * (without a store, or with a store whose mirror here is full).
   */
  async end(id: string, principal: Principal): Promise<RevokeResult> {
    const store = this.store;
    if (store === undefined) return this.signer.revoke(id, principal);
    const revocation = this.signer.revocationOf(id, principal);
    if (revocation === undefined) return 'unknown';
    try {
      await store.revoke(revocation.mac, revocation.expiresAtMs);
      // a mirror filled by other agents' ids must not leave a session this replica ended valid here: the principal's
      // own share keeps it (over that share: 429, as without a store)
      if (this.signer.remember(revocation.mac, revocation.expiresAtMs)) return 'revoked';
      return this.signer.revoke(id, principal);
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) throw err;
      const result = this.signer.revoke(id, principal);
      if (result === 'revoked') {
        if (this.pending.size === 0) {
          this.log('warn', 'sessions end in this replica only until the limit store is back', { reason: err.message });
        }
        this.pending.set(revocation.mac, revocation.expiresAtMs);
      }
      return result;
    }
  }

  private async handOver(store: SharedStore): Promise<void> {
    const handed = [...this.pending];
    for (const [mac, expiresAtMs] of handed) {
      if (this.store !== store) return;
      try {
        if (expiresAtMs > Date.now()) await store.revoke(mac, expiresAtMs);
        this.pending.delete(mac);
      } catch {
        return; // down again: the next recovery hands the rest over
      }
    }
    if (handed.length > 0)
      this.log('info', 'sessions ended during the outage handed to the limit store', { sessions: handed.length });
  }
}
