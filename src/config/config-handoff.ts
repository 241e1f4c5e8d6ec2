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
  /**
   * The last reload that was refused, if it came after the config served now; `digest` is the refused config's,
   * absent when the file could not be read or parsed.
   */
  readonly refused?: { readonly at: number; readonly reason: string; readonly digest?: string };
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

/**
 * Where synthesis leaves what a single-container gateway's deploy runs to hand a config over (a
 * {@link DockerHandoff}): under this key of the `//` comment of its `terraform_data` in `cdk.tf.json`. Terraform
 * ignores `//`, so no plan prints it; `apply-config --docker` and `dev` read it from the synthesized file.
 */
export const DOCKER_HANDOFF_KEY = 'cdktf_mcp_gateway_handoff';
/** The environment variable that carries the gateway image's id to `apply-config --docker` (known at apply). */
export const HANDOFF_IMAGE_ENV = 'CDKTF_MCP_GATEWAY_HANDOFF_IMAGE';
/** The environment variables that carry the secret files' contents to `apply-config --docker`: the prefix of each. */
export const HANDOFF_FILE_ENV_PREFIX = 'CDKTF_MCP_GATEWAY_HANDOFF_FILE_';

/** A file copied into the one-shot container before it starts: its bytes, or the variable that holds them. */
export interface HandoffFile {
  /** The absolute path in the container. */
  readonly path: string;
  /** The content, base64: a literal file (the config, a CA bundle). */
  readonly content_base64?: string;
  /** The environment variable holding the content: a secret, whose value only the apply knows. */
  readonly env?: string;
  /** The mode, octal text such as `0400`. */
  readonly mode: string;
  readonly uid: number;
  readonly gid: number;
}

/** The one-shot `apply-config` container of a single-container gateway's deploy, as `docker create` takes it. */
export interface DockerHandoff {
  /** The gateway's name, for the refusal line. */
  readonly gateway: string;
  /** The container's name: the gateway's, `config`, and the digest of its files. */
  readonly container: string;
  readonly user: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly env: readonly string[];
  /** `VOLUME:PATH` mounts. */
  readonly volumes: readonly string[];
  /** The arguments after the image's entrypoint (the CLI). */
  readonly command: readonly string[];
  readonly files: readonly HandoffFile[];
}

/** The config hand-overs of a synthesized stack document (`cdk.tf.json`), in resource order. */
export function dockerHandoffsOf(doc: unknown): DockerHandoff[] {
  return handoffsUnder(doc, DOCKER_HANDOFF_KEY) as DockerHandoff[];
}

/** Every value under `key` of the `//` comments of a synthesized stack's `terraform_data` resources. */
export function handoffsUnder(doc: unknown, key: string): unknown[] {
  const resources = (doc as { resource?: { terraform_data?: Record<string, unknown> } } | null)?.resource
    ?.terraform_data;
  return Object.values(resources ?? {}).flatMap((r) => {
    const handoff = (r as { '//'?: Record<string, unknown> } | null)?.['//']?.[key];
    return handoff === undefined ? [] : [handoff];
  });
}

/** The text of a literal file of a hand-over (`undefined` for a secret, or a path it does not copy). */
export function handoffFileText(handoff: DockerHandoff, path: string): string | undefined {
  const file = handoff.files.find((f) => f.path === path);
  return file?.content_base64 === undefined ? undefined : Buffer.from(file.content_base64, 'base64').toString('utf8');
}
