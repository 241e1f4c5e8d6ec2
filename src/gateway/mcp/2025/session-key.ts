/**
 * Where the session key comes from: the config's `session_key_file`, or the `CDKTF_MCP_GATEWAY_SESSION_KEY`
 * environment variable, or — with neither — the config's `session_key_store` (a key this gateway generated
 * earlier and kept, or a new one written there), or 32 random bytes made at start (one process only: its sessions
 * die with it).
 *
 * Format (both sources): text holding the key as hex (`openssl rand -hex 32`) or as base64/base64url
 * (`openssl rand -base64 32`), surrounding whitespace ignored. A string of hex digits of even length is read as
 * hex; anything else must be base64 (standard or url alphabet, padding optional). The decoded key must be at
 * least 32 bytes. Raw binary files are not accepted: a secret that is text survives copy-paste, YAML, env vars
 * and Docker secrets alike, and a wrong file is reported instead of silently used.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The environment variable that may hold the session key. */
export const SESSION_KEY_ENV = 'CDKTF_MCP_GATEWAY_SESSION_KEY';

/** The shortest accepted key, in bytes (the HMAC-SHA256 output size). */
export const MIN_SESSION_KEY_BYTES = 32;

/** A key file larger than this is refused unread. */
const MAX_KEY_FILE_BYTES = 64 * 1024;

const HEX = /^[0-9a-fA-F]+$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

export interface SessionKeySources {
  /** `session_key_file` from the config (a path). */
  readonly file?: string;
  /** The value of `CDKTF_MCP_GATEWAY_SESSION_KEY` (not its name). An empty string counts as unset. */
  readonly env?: string;
  /** `session_key_store` from the config: where a generated key is kept (used when neither of the above is). */
  readonly store?: string;
}

/** A loaded key and where it came from (for the start-up log line; never log the key). */
export interface SessionKey {
  readonly key: Buffer;
  /** `stored`: read from, or generated into, `session_key_store`. */
  readonly source: 'file' | 'env' | 'stored' | 'random';
}

/**
 * Loads the session key; throws one line naming the source for a short, malformed or unreadable key, or when
 * both sources are set (two replicas reading different ones would refuse each other's sessions).
 * @example
 * const { key, source } = loadSessionKey({ file: config.settings.session_key_file, env: process.env[SESSION_KEY_ENV] });
 */
export function loadSessionKey(sources: SessionKeySources): SessionKey {
  const env = sources.env === '' ? undefined : sources.env;
  if (sources.file !== undefined && env !== undefined) {
    throw new Error(
      `session key: both session_key_file (${sources.file}) and ${SESSION_KEY_ENV} are set; set only one`,
    );
  }
  if (sources.file !== undefined)
    return { key: decodeKey(readKeyFile(sources.file), `session_key_file ${sources.file}`), source: 'file' };
  if (env !== undefined) return { key: decodeKey(env, SESSION_KEY_ENV), source: 'env' };
  if (sources.store !== undefined) return { key: storedKey(sources.store), source: 'stored' };
  return { key: randomBytes(MIN_SESSION_KEY_BYTES), source: 'random' };
}

/**
 * The key kept in `path`: read when the file exists, else 32 random bytes written there as base64 text with mode
 * 0600. The file appears whole or not at all (written beside it, then hard-linked into place, which fails when it
 * exists), so two processes starting at once agree, the loser reading the winner's key, and a crash never leaves
 * a half-written key behind.
 */
function storedKey(path: string): Buffer {
  const where = `session_key_store ${path}`;
  const fresh = randomBytes(MIN_SESSION_KEY_BYTES);
  const draft = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const cannot = (err: unknown): Error =>
    new Error(
      `session key: ${where}: cannot create it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(draft, `${fresh.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    throw cannot(err);
  }
  try {
    linkSync(draft, path);
    return fresh;
  } catch (err) {
    // EEXIST: another process (or an earlier start) kept a key there; that key wins
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw cannot(err);
  } finally {
    rmSync(draft, { force: true });
  }
  return decodeKey(readKeyFile(path, where), where);
}

function readKeyFile(path: string, where = `session_key_file ${path}`): string {
  try {
    const size = statSync(path).size;
    if (size > MAX_KEY_FILE_BYTES) throw new Error(`${size} bytes, a key file holds a short hex or base64 text`);
    return readFileSync(path, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new Error(`session key: ${where}: cannot read it (${reason})`);
  }
}

/** Decodes hex or base64 text into the key; `source` names where it came from in the error. */
function decodeKey(text: string, source: string): Buffer {
  const value = text.trim();
  const fix = `expected at least ${MIN_SESSION_KEY_BYTES} bytes as hex or base64 text (e.g. \`openssl rand -base64 32\`)`;
  let key: Buffer;
  if (value.length > 0 && value.length % 2 === 0 && HEX.test(value)) {
    key = Buffer.from(value, 'hex');
  } else if (BASE64.test(value) && value.length % 4 !== 1) {
    if (/[+/]/.test(value) && /[-_]/.test(value))
      throw new Error(`session key from ${source}: mixes the base64 and base64url alphabets; ${fix}`);
    key = Buffer.from(value, 'base64');
  } else {
    throw new Error(`session key from ${source}: not hex or base64 text; ${fix}`);
  }
  if (key.length < MIN_SESSION_KEY_BYTES) throw new Error(`session key from ${source}: ${key.length} bytes; ${fix}`);
  return key;
}
