/**
 * What `dev` keeps between runs in the app's `.dev/` folder: each gateway's bearer token (`tokens.json`) and
 * signed-session key (`session-key-NAME`), so a restart keeps every client's token and every open session. The
 * files are mode 0600 and the folder carries a `.gitignore` of `*`, so they stay out of the app's repository.
 * `dev --fresh` makes new ones.
 *
 * @example
 * const state = openDevState('/app/.dev', { fresh: false });
 * const token = state.token('support-desk', 'agents'); // the same on the next run
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { devCommand } from './dev-options';
import { generateDevToken } from './local-gateway-config';

/** The file, inside the state folder, of the tokens `dev` gave the gateways. */
export const DEV_TOKENS_FILE = 'tokens.json';

/** A `.dev/` file `dev` cannot use; the message names the file and the fix. */
export class DevStateError extends Error {}

/** Options of {@link openDevState}. */
export interface DevStateOptions {
  /** Forget the kept tokens and session keys and make new ones (`dev --fresh`). @default false */
  readonly fresh?: boolean;
}

/** The tokens and session keys of a `dev` run, kept in one folder. */
export interface DevState {
  /** The folder (`DIR/.dev`). */
  readonly dir: string;
  /** The kept token of a gateway, made (and saved) on first use. */
  token(stack: string, gateway: string): string;
  /** The path of a gateway's session key file (32 random bytes, base64), made on first use. */
  sessionKeyFile(stack: string, gateway: string): string;
}

/**
 * Opens (creating it when needed) the state folder of a `dev` run.
 * @throws DevStateError when `tokens.json` is not what `dev` wrote
 */
export function openDevState(dir: string, options: DevStateOptions = {}): DevState {
  fs.mkdirSync(dir, { recursive: true });
  const gitignore = path.join(dir, '.gitignore');
  if (!fs.existsSync(gitignore))
    fs.writeFileSync(gitignore, '# made by cdktf-mcp-gateway dev: its tokens and keys stay out of git\n*\n');
  const tokensFile = path.join(dir, DEV_TOKENS_FILE);
  if (options.fresh === true) {
    fs.rmSync(tokensFile, { force: true });
    for (const f of fs.readdirSync(dir))
      if (f.startsWith('session-key-')) fs.rmSync(path.join(dir, f), { force: true });
  }
  const tokens = readTokens(tokensFile);
  return {
    dir,
    token(stack, gateway) {
      const key = `${stack}/${gateway}`;
      let token = tokens[key];
      if (token === undefined) {
        token = generateDevToken();
        tokens[key] = token;
        writePrivate(tokensFile, `${JSON.stringify(tokens, null, 2)}\n`);
      }
      return token;
    },
    sessionKeyFile(stack, gateway) {
      const file = path.join(dir, `session-key-${`${stack}-${gateway}`.replace(/[^A-Za-z0-9_.-]/g, '_')}`);
      writePrivate(file, `${crypto.randomBytes(32).toString('base64')}\n`, { onlyIfMissing: true });
      return file;
    },
  };
}

/** `tokens.json`: `{ "STACK/GATEWAY": "token" }`, or nothing yet. */
function readTokens(file: string): Record<string, string> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new DevStateError(`${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const valid =
    typeof parsed === 'object' &&
    parsed !== null &&
    !Array.isArray(parsed) &&
    Object.values(parsed).every((t) => typeof t === 'string' && /^[A-Za-z0-9_-]{43}$/.test(t));
  if (!valid) {
    throw new DevStateError(
      `${file}: expected the tokens dev wrote ({"STACK/GATEWAY": "43-character token"}); delete it or run ${devCommand('--fresh')}`,
    );
  }
  return { ...(parsed as Record<string, string>) };
}

/** Writes a file readable by its owner only (0600, also when it already existed with other bits). */
function writePrivate(file: string, text: string, options: { onlyIfMissing?: boolean } = {}): void {
  if (options.onlyIfMissing === true && fs.existsSync(file)) {
    fs.chmodSync(file, 0o600);
    return;
  }
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text, { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}
