import { readFileSync } from 'node:fs';
import { isObject } from '../validation/json-object';
import { isIP } from 'node:net';
import { isPort, LISTEN_PORT_RULE, normalizeTokenSha256 } from '../config/rules';
import { storeUrlProblem } from '../config/rate-limits';
import { hasUserInfo } from '../config/url-template';
import { ConfigError } from './gateway-shared';
import { DEFAULT_RETENTION_MS } from './audit-store';
import { DEFAULT_FLAG_RULE, type FlagRule } from './flag-rule';
import type { AuditStoreSource } from './audit-stream-reader';

/** A dashboard token: an id for logs and the lowercase hex SHA-256 of the secret. */
export interface DashboardToken {
  readonly id: string;
  readonly sha256: string;
}

/** Everything `dashboard` needs to start, from flags or a config file. */
export interface DashboardSettings {
  /** Directories whose `*.jsonl` audit files are read. */
  readonly auditDirs: readonly string[];
  /** Gateways whose audit is read from their store (`audit_log: 'store'`). @default - none */
  readonly auditStores?: readonly AuditStoreSource[];
  /** @default 8090 */
  readonly port: number;
  /** @default '127.0.0.1' */
  readonly host: string;
  /**
   * The tokens that may read the dashboard; `'none'` turns authentication off explicitly (config file only);
   * `undefined` means no token was given, allowed only on a loopback address.
   */
  readonly auth: { readonly tokens: readonly DashboardToken[] } | 'none' | undefined;
  /** @default 604800000 (7 days) */
  readonly retentionMs: number;
  /** @default - 10 refusals and a refusal rate of 50 % */
  readonly flag: FlagRule;
}

export const DEFAULT_DASHBOARD_PORT = 8090;
export const DEFAULT_DASHBOARD_HOST = '127.0.0.1';

/** Whether `host` only accepts connections from this machine. */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare === '::1') return true;
  const v4 = bare.startsWith('::ffff:') ? bare.slice(7) : bare;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/**
 * Refuses settings that would publish the audit data: no token on an address other machines can reach.
 * @throws ConfigError (one line: the host and the fix)
 */
export function checkExposure(settings: DashboardSettings): void {
  if (settings.auth === undefined && !isLoopbackHost(settings.host)) {
    throw new ConfigError(
      `dashboard: host ${settings.host} is not a loopback address, so a token is required ` +
        '(pass --token-sha256 HEX or set auth.tokens in the config file, or bind to 127.0.0.1)',
    );
  }
}

/**
 * Checks a `--token-sha256` / `auth.tokens[].sha256` value by the gateway's rule, and returns it lowercased.
 * The reason never quotes the value: a token pasted by mistake must not reach a log.
 * @throws ConfigError naming `where`
 */
export function checkTokenHash(value: string, where: string): string {
  const checked = normalizeTokenSha256(value);
  if ('problem' in checked) throw new ConfigError(`${where} ${checked.problem}`);
  return checked.sha256;
}

/**
 * Reads the config-file form of `dashboard`:
 * `{ audit_dirs?: [...], audit_stores?: [{ gateway, url, password_file? }], port?, host?,
 *    auth?: { tokens: [{ id, sha256 }] } | 'none', retention_ms?,
 *    flag?: { min_refusals?, min_rate? } }`.
 * @throws ConfigError (one line naming the file and the field)
 */
export function loadDashboardConfig(file: string): DashboardSettings {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`${file}: cannot read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${file}: not JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  return parseDashboardConfig(doc, file);
}

/** Validates a parsed config document (see {@link loadDashboardConfig}). @throws ConfigError */
export function parseDashboardConfig(doc: unknown, file: string): DashboardSettings {
  const fail = (field: string, message: string): never => {
    throw new ConfigError(`${file}: ${field}: ${message}`);
  };
  if (!isObject(doc)) return fail('(root)', 'must be an object');
  const known = new Set(['audit_dirs', 'audit_stores', 'port', 'host', 'auth', 'retention_ms', 'flag']);
  for (const key of Object.keys(doc))
    if (!known.has(key)) fail(key, `unknown setting (expected one of ${[...known].join(', ')})`);
  const dirs = doc.audit_dirs ?? [];
  if (!Array.isArray(dirs) || !dirs.every((d) => typeof d === 'string' && d !== '')) {
    fail('audit_dirs', 'must be an array of directory paths');
  }
  const stores = parseAuditStores(doc.audit_stores ?? [], fail);
  if ((dirs as string[]).length === 0 && stores.length === 0) {
    fail('audit_dirs', 'must name at least one directory, unless audit_stores names a store');
  }
  const port = doc.port ?? DEFAULT_DASHBOARD_PORT;
  if (!isPort(port, true)) fail('port', `must be ${LISTEN_PORT_RULE}, got ${short(port)}`);
  const host = doc.host ?? DEFAULT_DASHBOARD_HOST;
  if (typeof host !== 'string' || host === '') fail('host', 'must be a non-empty string');
  let auth: DashboardSettings['auth'];
  if (doc.auth === 'none') auth = 'none';
  else if (doc.auth !== undefined) {
    const tokens = isObject(doc.auth) ? doc.auth.tokens : undefined;
    if (
      !isObject(doc.auth) ||
      Object.keys(doc.auth).some((k) => k !== 'tokens') ||
      !Array.isArray(tokens) ||
      tokens.length === 0
    ) {
      fail('auth', 'must be "none" or { tokens: [{ id, sha256 }, ...] } with at least one token');
    }
    auth = {
      tokens: (tokens as unknown[]).map((t, i) => {
        if (!isObject(t) || typeof t.id !== 'string' || t.id === '' || typeof t.sha256 !== 'string') {
          return fail(`auth.tokens[${i}]`, 'must be an object { id, sha256 } with a non-empty id');
        }
        return { id: t.id, sha256: checkTokenHash(t.sha256, `${file}: auth.tokens[${i}].sha256`) };
      }),
    };
  }
  const retentionMs = doc.retention_ms ?? DEFAULT_RETENTION_MS;
  if (!Number.isInteger(retentionMs) || (retentionMs as number) < 60_000 || (retentionMs as number) > 90 * 86_400_000) {
    fail('retention_ms', `must be an integer from 60000 (1 minute) to 7776000000 (90 days), got ${short(retentionMs)}`);
  }
  let flag = DEFAULT_FLAG_RULE;
  if (doc.flag !== undefined) {
    if (!isObject(doc.flag) || Object.keys(doc.flag).some((k) => k !== 'min_refusals' && k !== 'min_rate')) {
      fail('flag', 'must be an object { min_refusals?, min_rate? }');
    }
    const f = doc.flag as Record<string, unknown>;
    const minRefusals = f.min_refusals ?? DEFAULT_FLAG_RULE.minRefusals;
    const minRate = f.min_rate ?? DEFAULT_FLAG_RULE.minRate;
    if (!Number.isInteger(minRefusals) || (minRefusals as number) < 1)
      fail('flag.min_refusals', `must be an integer >= 1, got ${short(minRefusals)}`);
    if (typeof minRate !== 'number' || !(minRate >= 0 && minRate <= 1))
      fail('flag.min_rate', `must be a number from 0 to 1, got ${short(minRate)}`);
    flag = { minRefusals: minRefusals as number, minRate: minRate as number };
  }
  return {
    auditDirs: dirs as string[],
    ...(stores.length > 0 ? { auditStores: stores } : {}),
    port: port as number,
    host: host as string,
    auth,
    retentionMs: retentionMs as number,
    flag,
  };
}

/** `audit_stores: [{ gateway, url, password_file? }]`: the password is read from its file now, never kept in config. */
function parseAuditStores(value: unknown, fail: (field: string, message: string) => never): AuditStoreSource[] {
  if (!Array.isArray(value)) return fail('audit_stores', 'must be an array of { gateway, url, password_file? }');
  return value.map((entry: unknown, i) => {
    const where = `audit_stores[${i}]`;
    if (!isObject(entry)) return fail(where, 'must be an object { gateway, url, password_file? }');
    const unknown = Object.keys(entry).find((k) => !['gateway', 'url', 'password_file'].includes(k));
    if (unknown !== undefined) {
      fail(`${where}.${unknown}`, 'unknown setting (expected gateway, url, password_file)');
    }
    const { gateway, url, password_file: passwordFile } = entry;
    if (typeof gateway !== 'string' || gateway === '') fail(`${where}.gateway`, 'must be the gateway name');
    if (typeof url !== 'string') return fail(`${where}.url`, 'must be a redis:// or rediss:// URL');
    if (hasUserInfo(url)) {
      // never quoting the URL: it holds a password
      fail(`${where}.url`, 'must not carry a user or password: put the password in a file named by password_file');
    }
    const problem = storeUrlProblem(url);
    if (problem !== undefined) fail(`${where}.url`, problem);
    let password: string | undefined;
    if (passwordFile !== undefined) {
      if (typeof passwordFile !== 'string' || passwordFile === '') fail(`${where}.password_file`, 'must be a path');
      try {
        password = readFileSync(passwordFile as string, 'utf8').replace(/\r?\n$/, '');
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? 'error';
        fail(
          `${where}.password_file`,
          `cannot read ${short(passwordFile)}: ${code} (a file holding the store's password)`,
        );
      }
    }
    return { gateway: gateway as string, url: url as string, ...(password === undefined ? {} : { password }) };
  });
}

/** A value for an error message: JSON, cut to 40 characters. */
function short(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
