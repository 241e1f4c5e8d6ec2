import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import {
  GATEWAY_BUILD_ENV,
  HANDOFF_CONFIG_NAME,
  HANDOFF_SECRETS_NAME,
  HANDOFF_STATUS_NAME,
  parseGatewayStatus,
  readGatewayConfigFile,
  type GatewayStatus,
} from '../config';
import { readSecrets } from '../gateway/upstream/secrets';
import { checkConfig } from './serve-command';

/** What `applyConfig` works on. */
export interface ApplyConfigOptions {
  /** The new config (what synthesis uploaded). */
  readonly configPath: string;
  /** The gateway's state directory: its config, its status file and its secrets. */
  readonly stateDir: string;
  /** How long to wait for a running gateway to report the new config. */
  readonly timeoutMs: number;
  /** How often the status file is read while waiting. @default 25 */
  readonly pollMs?: number;
}

/** How `applyConfig` ended. */
export type ApplyResult =
  | { readonly outcome: 'serving'; readonly digest: string; readonly ms: number }
  | { readonly outcome: 'stored'; readonly digest: string; readonly why: string }
  | { readonly outcome: 'refused'; readonly reason: string };

/**
 * Hands a new config to the gateway serving from `stateDir` without restarting it:
 * 1. checks it as `serve --check` does (a config or a secret the gateway could not start with is refused here,
 *    and nothing in `stateDir` changes);
 * 2. writes the secrets it names into `stateDir/secrets` (mode 0400) and replaces `stateDir/gateway.json`
 *    atomically, which the gateway (`serve --watch --status-file`) reloads;
 * 3. waits until the gateway's status file reports the new digest, loaded after the swap. A reload the gateway
 *    refuses, or no report in time, puts the previous config and secrets back and is refused with the reason.
 *
 * With no gateway of this build serving from `stateDir` (a first deploy, a stopped gateway, or an older build
 * that the same deploy replaces), the config is stored for the gateway's next start and nothing is waited for.
 */
export async function applyConfig(options: ApplyConfigOptions): Promise<ApplyResult> {
  // the file is read and parsed once: the check loads it through here, and the swap writes these bytes
  let read: ReturnType<typeof readGatewayConfigFile> | undefined;
  const problem = await checkConfig(options.configPath, (file) => (read = readGatewayConfigFile(file)).config);
  if (problem !== undefined || read === undefined) {
    return { outcome: 'refused', reason: problem ?? `cannot read config file ${options.configPath}` };
  }
  const { config, digest, bytes } = read;
  const files = handoffFiles(options.stateDir);
  const before = readStatus(files.status);
  const build = process.env[GATEWAY_BUILD_ENV] ?? '';

  const secrets = new Map([...readSecrets(config)].map(([name, value]) => [name, `${value}\n`]));
  const undo = replaceFiles(files, bytes, secrets);
  const swappedAt = Date.now();
  const seen =
    before?.state !== 'serving' || before.build !== build
      ? 'not waited'
      : await waitForStatus(files.status, swappedAt, digest, options);
  if (seen === 'not waited' || seen === 'stopped' || seen === 'serving') {
    removeUnusedSecrets(files.secrets, secrets);
    if (seen === 'serving') return { outcome: 'serving', digest, ms: Date.now() - swappedAt };
    const why =
      seen === 'stopped'
        ? 'the gateway stopped meanwhile'
        : before === undefined
          ? 'no gateway has served from here yet'
          : 'no gateway of this build is serving';
    return { outcome: 'stored', digest, why };
  }
  undo();
  const reason =
    seen === 'timeout'
      ? `the gateway did not report serving the new config within ${options.timeoutMs / 1000} s; the previous config was put back`
      : seen.reason;
  return { outcome: 'refused', reason };
}

interface HandoffFiles {
  readonly config: string;
  readonly status: string;
  readonly secrets: string;
}

function handoffFiles(stateDir: string): HandoffFiles {
  return {
    config: path.join(stateDir, HANDOFF_CONFIG_NAME),
    status: path.join(stateDir, HANDOFF_STATUS_NAME),
    secrets: path.join(stateDir, HANDOFF_SECRETS_NAME),
  };
}

function readStatus(file: string): GatewayStatus | undefined {
  try {
    return parseGatewayStatus(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Writes the secrets, then the config (each replaced atomically, the config last, since its change is what the
 * gateway reloads on); returns what puts every replaced file back.
 */
function replaceFiles(files: HandoffFiles, config: Buffer, secrets: ReadonlyMap<string, string>): () => void {
  mkdirSync(files.secrets, { recursive: true, mode: 0o700 });
  const previous = new Map<string, Buffer | undefined>();
  for (const [name, value] of secrets) {
    const file = path.join(files.secrets, name);
    previous.set(file, readIfThere(file));
    writeAtomically(file, value, 0o400);
  }
  previous.set(files.config, readIfThere(files.config));
  writeAtomically(files.config, config, 0o600);
  return () => {
    for (const [file, bytes] of previous) {
      if (bytes === undefined) rmSync(file, { force: true });
      else writeAtomically(file, bytes, file === files.config ? 0o600 : 0o400);
    }
  };
}

/** Removes the secrets the served config no longer names (their values should not outlive their use). */
function removeUnusedSecrets(dir: string, used: ReadonlyMap<string, string>): void {
  for (const name of readdirSync(dir)) {
    if (!used.has(name)) rmSync(path.join(dir, name), { force: true });
  }
}

function readIfThere(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function writeAtomically(file: string, content: string | Buffer, mode: number): void {
  const temp = `${file}.${process.pid}.tmp`;
  rmSync(temp, { force: true });
  writeFileSync(temp, content, { mode });
  renameSync(temp, file);
}

/**
 * Polls the status file until it reports `digest` loaded after `since`, a refusal of it after `since`, or time runs
 * out. A refusal of another config (a reload that began before the swap) is not this config's; one without a digest
 * (a file the gateway could not read) may be.
 */
async function waitForStatus(
  file: string,
  since: number,
  digest: string,
  options: ApplyConfigOptions,
): Promise<'serving' | 'stopped' | 'timeout' | { reason: string }> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const status = readStatus(file);
    if (status?.state === 'serving' && status.digest === digest && status.loaded_at >= since) return 'serving';
    const refused = status?.refused;
    if (refused !== undefined && refused.at >= since && (refused.digest ?? digest) === digest)
      return { reason: refused.reason };
    // a gateway that stopped meanwhile loads the stored config when it starts again
    if (status?.state === 'stopped') return 'stopped';
    if (Date.now() >= deadline) return 'timeout';
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 25));
  }
}
