import type { Principal } from '../../auth';
import type { RequestId } from '../../errors/jsonrpc';

/** The notification types this gateway can deliver on a `subscriptions/listen` stream. */
export interface AcknowledgedFilter {
  readonly toolsListChanged?: true;
}

/** A 2025 GET stream: it belongs to a session and ends with it (DELETE, or its expiry). */
export interface SessionStreamSpec {
  readonly kind: 'session';
  /** The principal key (`principalKey`): kind and name. */
  readonly principal: Principal;
  readonly sessionId: string;
  /** The sooner of the session id's expiry and the OAuth token's `exp`. */
  readonly expiresAtMs: number;
}

/** A 2026-07-28 `subscriptions/listen` stream: tagged with the listen request's id. */
export interface ListenStreamSpec {
  readonly kind: 'listen';
  /** The principal key (`principalKey`): kind and name. */
  readonly principal: Principal;
  readonly subscriptionId: RequestId;
  readonly filter: AcknowledgedFilter;
  /** The OAuth token's `exp` (ms since the epoch); `undefined` for a static token, whose stream has no end. */
  readonly expiresAtMs?: number;
}
