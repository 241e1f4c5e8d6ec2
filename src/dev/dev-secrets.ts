/**
 * Secrets under `dev`: a deployed gateway reads `/run/secrets/NAME` (a Docker secret), `dev` reads
 * `DIR/.dev/secrets/NAME`, and both fall back to the environment variable `NAME`. `dev` checks every secret of
 * every gateway it is about to serve before it starts any backend, and says how to give a missing one locally.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { GatewayConfig } from '../config';
import { readSecrets, secretReferences, type SecretSource } from '../gateway/upstream/secrets';
import { DevUsageError } from './dev-options';

/** The folder, inside `DIR/.dev`, that `dev` reads secret files from. */
export const DEV_SECRETS_DIR = 'secrets';

/** Where the gateways of a `dev` run read their secrets. */
export function devSecretSource(stateDir: string, env: Readonly<Record<string, string | undefined>>): SecretSource {
  return { dir: path.join(stateDir, DEV_SECRETS_DIR), env };
}

/**
 * Checks that every secret a gateway refers to is given to `dev`, before anything starts.
 * @throws DevUsageError naming the gateway, the field and the secret (never a value), and the two ways to give it
 */
export function checkDevSecrets(gateway: string, config: GatewayConfig, source: SecretSource): void {
  const dir = source.dir!;
  const env = source.env ?? process.env;
  for (const [name, where] of secretReferences(config)) {
    if (fs.existsSync(path.join(dir, name)) || Object.hasOwn(env, name)) continue;
    throw new DevUsageError(
      `gateway ${gateway}: ${where}: secret ${name} is not set: export ${name} in the shell that runs dev, ` +
        `or put it in the file ${path.join(dir, name)}`,
    );
  }
  try {
    readSecrets(config, source);
  } catch (err) {
    throw new DevUsageError(`gateway ${gateway}: ${(err as Error).message}`);
  }
}
