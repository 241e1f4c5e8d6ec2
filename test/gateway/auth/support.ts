/**
 * What the OAuth tests share: a clock a test moves by hand, a logger that keeps its records, and a verifier for a
 * running test issuer.
 */
import type { Logger } from '../../../src/gateway/log/logger';
import type { OAuthConfig } from '../../../src/config/oauth-config';
import {
  createOAuthVerifier,
  type OAuthVerifier,
  type OAuthVerifierOptions,
} from '../../../src/gateway/auth/oauth-verifier';
import type { OidcIssuer } from '../../helpers/oidc-issuer';

/** The resource URL of the gateway under test (nothing listens there; the verifier only compares it with `aud`). */
export const GATEWAY_RESOURCE = 'http://127.0.0.1:18080/mcp';
/** Another resource the issuer issues tokens for. */
export const OTHER_RESOURCE = 'http://127.0.0.1:18081/mcp';

/** A clock that moves only when told (starts at the real time, so tokens from the issuer are current). */
export interface ManualClock {
  readonly now: () => number;
  advance(ms: number): void;
}

export function manualClock(start: number = Date.now()): ManualClock {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
  };
}

/** A logger that keeps `{ level, msg, ...fields }` records. */
export function recordingLogger(): { logger: Logger; records: Record<string, unknown>[] } {
  const records: Record<string, unknown>[] = [];
  return {
    records,
    logger: (level, msg, fields) => {
      records.push({ level, msg, ...fields });
    },
  };
}

/** A verifier for tokens of `issuer` meant for {@link GATEWAY_RESOURCE}. */
export function verifierFor(
  issuer: OidcIssuer,
  config: Partial<OAuthConfig> = {},
  options: Partial<OAuthVerifierOptions> = {},
): OAuthVerifier {
  return createOAuthVerifier({ issuer: issuer.url, ...config }, { resourceUrl: GATEWAY_RESOURCE, ...options });
}

/** The error `promise` is rejected with (fails the test if it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection, but the promise resolved');
}

/** Seconds since the epoch, as JWT claims count. */
export function epochSeconds(ms: number = Date.now()): number {
  return Math.floor(ms / 1000);
}

/** Base64url of a JSON value (to hand-build headers and payloads). */
export function b64json(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
