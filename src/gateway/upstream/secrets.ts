import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ConfigError, fieldPath, SECRETS_DIR, SECRETS_DIR_ENV, type GatewayConfig } from '../../config';

/** Secret name → value, read once per config load. Never logged, never in an error message. */
export type SecretValues = ReadonlyMap<string, string>;

/** Where secrets come from: a directory of files (Docker secrets), then the environment. */
export interface SecretSource {
  /** @default - `$CDKTF_MCP_GATEWAY_SECRETS_DIR`, else `/run/secrets` */
  readonly dir?: string;
  /** @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** The largest secret read (a CA bundle fits many times over). */
const MAX_SECRET_BYTES = 1_048_576;

/**
 * Reads every secret the config refers to (backend headers `{ secret: NAME }`, `tls.ca_secret`, the store's
 * password): the file
 * `DIR/NAME`, else the environment variable `NAME`. A file value loses one trailing line break (`echo … >` adds it).
 *
 * @throws ConfigError one line naming the field and the secret (never its value) when one is missing or empty
 */
export function readSecrets(config: GatewayConfig, source: SecretSource = {}): SecretValues {
  const dir = secretsDir(source);
  const env = source.env ?? process.env;
  const values = new Map<string, string>();
  for (const [name, where] of secretReferences(config)) {
    const value = readFromDir(dir, name, where) ?? (Object.hasOwn(env, name) ? env[name] : undefined);
    if (value === undefined) {
      throw new ConfigError(
        `${where}: secret ${name} is not set: give the gateway the file ${path.join(dir, name)} (a Docker secret) ` +
          `or the environment variable ${name}`,
      );
    }
    if (value === '') throw new ConfigError(`${where}: secret ${name} is empty`);
    values.set(name, value);
  }
  return values;
}

/** The folder secrets are read from: the source's, else `$CDKTF_MCP_GATEWAY_SECRETS_DIR`, else `/run/secrets`. */
export function secretsDir(source: SecretSource = {}): string {
  return source.dir ?? process.env[SECRETS_DIR_ENV] ?? SECRETS_DIR;
}

/** Every secret name the config uses, with the first field that names it. */
export function secretReferences(config: GatewayConfig): Map<string, string> {
  const refs = new Map<string, string>();
  config.tools.forEach((tool, i) => {
    const backend = `tools[${i}].backend`;
    for (const [header, value] of Object.entries(tool.backend.headers ?? {})) {
      if (typeof value !== 'string' && !refs.has(value.secret))
        refs.set(value.secret, fieldPath(`${backend}.headers`, header));
    }
    const caSecret = tool.backend.tls?.ca_secret;
    if (caSecret !== undefined && !refs.has(caSecret)) refs.set(caSecret, `${backend}.tls.ca_secret`);
  });
  const storePassword = config.gateway.store?.password?.secret;
  if (storePassword !== undefined && !refs.has(storePassword)) refs.set(storePassword, 'gateway.store.password');
  return refs;
}

function readFromDir(dir: string, name: string, where: string): string | undefined {
  const file = path.join(dir, name);
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new ConfigError(`${where}: secret ${name}: cannot read ${file} (${code ?? 'unreadable'})`);
  }
  if (data.length > MAX_SECRET_BYTES) throw new ConfigError(`${where}: secret ${name}: ${file} is larger than 1 MiB`);
  return data.toString('utf8').replace(/\r?\n$/, '');
}
