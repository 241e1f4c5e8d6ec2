/**
 * How a running single-container gateway and `apply-config` meet in the gateway's state directory (a Docker volume):
 * `apply-config` checks a new config, stores its secrets, replaces the config file atomically and waits until the
 * gateway's status file says it serves that config (or refused it). Both sides read the layout from here.
 */
import { createHash } from 'node:crypto';
import { GATEWAY_STATE_DIR } from './deployment';

/** The config file the gateway serves, in its state directory. */
export const HANDOFF_CONFIG_NAME = 'gateway.json';
/** The status file the gateway writes, in its state directory. */
export const HANDOFF_STATUS_NAME = 'status.json';
/** The folder of the secrets the served config refers to, in the gateway's state directory. */
export const HANDOFF_SECRETS_NAME = 'secrets';

/** The served config inside a single-container gateway. */
export const STATE_CONFIG_FILE = `${GATEWAY_STATE_DIR}/${HANDOFF_CONFIG_NAME}`;
/** The gateway's status file inside a single-container gateway. */
export const STATE_STATUS_FILE = `${GATEWAY_STATE_DIR}/${HANDOFF_STATUS_NAME}`;
/** The served config's secrets inside a single-container gateway. */
export const STATE_SECRETS_DIR = `${GATEWAY_STATE_DIR}/${HANDOFF_SECRETS_NAME}`;

/**
 * Names the image a gateway process runs (synthesis sets it to the image's name, which carries the hash of its
 * context): `apply-config` waits for a running gateway only when it runs the same build, since an upgrade replaces
 * the container anyway and an older build may not read a newer config.
 */
export const GATEWAY_BUILD_ENV = 'CDKTF_MCP_GATEWAY_BUILD';

/** What the gateway writes to its status file: at start, after each reload attempt, and when it stops. */
export interface GatewayStatus {
  /** `serving` while the process answers; `stopped` once it shut down. */
  readonly state: 'serving' | 'stopped';
  /** `$CDKTF_MCP_GATEWAY_BUILD` of the process, `''` when unset. */
  readonly build: string;
  /** {@link configDigest} of the config it serves. */
  readonly digest: string;
  /** When that config was loaded (ms since the epoch). */
  readonly loaded_at: number;
  /** The last reload that was refused, if it came after the config served now. */
  readonly refused?: { readonly at: number; readonly reason: string };
}

/** The digest a gateway reports for a config (`/readyz`, the status file): SHA-256 of the file's bytes, hex. */
export function configDigest(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Reads a status file; `undefined` when it is missing or not a status (a gateway that never ran). */
export function parseGatewayStatus(text: string): GatewayStatus | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const s = value as Partial<GatewayStatus> | null;
  if (
    s === null ||
    typeof s !== 'object' ||
    (s.state !== 'serving' && s.state !== 'stopped') ||
    typeof s.build !== 'string' ||
    typeof s.digest !== 'string' ||
    typeof s.loaded_at !== 'number'
  ) {
    return undefined;
  }
  return s as GatewayStatus;
}
