import type { PropKeys } from './known-props';

/** A bearer token the gateway accepts, known only by its SHA-256. */
export interface GatewayToken {
  /** Names the caller in the audit log (`principal`). */
  readonly id: string;
  /**
   * The SHA-256 of the token, 64 hex characters (`printf %s "$TOKEN" | sha256sum`). Never the token itself.
   */
  readonly sha256: string;
  /**
   * The scopes the token grants (checked against the services' `requiredScopes`, as for OAuth callers).
   * @default - unrestricted: the token may call every tool
   */
  readonly scopes?: readonly string[];
}

/** Every key of a {@link GatewayToken}, for the check of unknown ones. */
export const TOKEN_PROPS: PropKeys<GatewayToken> = { id: true, sha256: true, scopes: true };
