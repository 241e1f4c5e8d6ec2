/**
 * `DIR/dev.json`: the local backends `dev` starts next to the gateways.
 *
 * @example
 * {
 *   "backends": [
 *     { "command": "node server.js --port 0", "hosts": ["support-desk-api:8080"] }
 *   ]
 * }
 *
 * Each command runs in DIR and must print a line `Backend: http://HOST:PORT` once it listens; calls
 * the gateways would send to any of its `hosts` then go to that address.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** One backend `dev` starts. */
export interface DevBackendSpec {
  /** Shell command, run in DIR. */
  readonly command: string;
  /** Backend `HOST:PORT`s (as in the tools' URLs) this backend stands in for. */
  readonly hosts: readonly string[];
  /** Shown in the output. @default - the first host */
  readonly name?: string;
  /** Longest wait for the `Backend:` line. @default 30000 */
  readonly readyTimeoutMs?: number;
}

/** The `dev.json` document. */
export interface DevFile {
  readonly backends: readonly DevBackendSpec[];
}

/** The file name `dev` looks for in DIR. */
export const DEV_FILE = 'dev.json';

/** A `dev.json` that cannot be used; the message names the file and field. */
export class DevFileError extends Error {}

/** Reads `DIR/dev.json`; no file means no backends. */
export function readDevFile(dir: string): DevFile {
  const file = path.join(dir, DEV_FILE);
  if (!fs.existsSync(file)) return { backends: [] };
  let doc: unknown;
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new DevFileError(`${file}: invalid JSON (${(err as Error).message})`);
  }
  const backends = (doc as { backends?: unknown } | null)?.backends ?? [];
  if (!Array.isArray(backends)) throw new DevFileError(`${file}: backends: must be an array`);
  return {
    backends: backends.map((b: unknown, i): DevBackendSpec => {
      const where = `${file}: backends[${i}]`;
      const spec = b as Partial<Record<keyof DevBackendSpec, unknown>> | null;
      if (typeof spec?.command !== 'string' || spec.command.trim() === '')
        throw new DevFileError(`${where}.command: must be a shell command`);
      const hosts = spec.hosts;
      if (
        !Array.isArray(hosts) ||
        hosts.length === 0 ||
        !hosts.every((h) => typeof h === 'string' && /^[^\s/]+:\d+$/.test(h))
      ) {
        throw new DevFileError(`${where}.hosts: must list the HOST:PORT names it replaces, e.g. ["api:8080"]`);
      }
      if (spec.name !== undefined && typeof spec.name !== 'string')
        throw new DevFileError(`${where}.name: must be a string`);
      const t = spec.readyTimeoutMs;
      if (t !== undefined && !(typeof t === 'number' && Number.isInteger(t) && t > 0)) {
        throw new DevFileError(`${where}.readyTimeoutMs: must be a positive integer`);
      }
      return {
        command: spec.command,
        hosts: hosts as string[],
        ...(spec.name !== undefined ? { name: spec.name } : {}),
        ...(t !== undefined ? { readyTimeoutMs: t as number } : {}),
      };
    }),
  };
}
