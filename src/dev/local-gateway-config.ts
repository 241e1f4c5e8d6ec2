/**
 * Turns a synthesized gateway config into the one `dev` serves: loopback only, its own token and session key,
 * a local audit log, no limit store (rate limits count in the one process), and backend hosts mapped to locally
 * running backends.
 */
import * as crypto from 'node:crypto';
import type { GatewayConfig, ToolConfig } from '../config';

/** The token id (audit `principal`) of the token `dev` generates. */
export const DEV_TOKEN_ID = 'dev';

/** A fresh random bearer token (256 bits, base64url). */
export function generateDevToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

/** Lowercase hex SHA-256 of a token, as gateway configs hold it. */
export function sha256Hex(token: string): string {
  return crypto.createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The scheme (with `://`) and authority of an absolute URL, matched on the text. */
const SCHEME_AND_AUTHORITY = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#]*)/;

/**
 * Replaces the `HOST:PORT` of a backend URL when `maps` has it (`support-desk-api:8080` → `127.0.0.1:4711`).
 * Works on the text rather than through `URL`, which would percent-encode the `{field}` placeholders.
 * A URL without a port matches `HOST:80` (http) or `HOST:443` (https).
 */
export function mapBackendUrl(url: string, maps: Readonly<Record<string, string>>): string {
  const m = SCHEME_AND_AUTHORITY.exec(url);
  if (m === null) return url;
  const [prefix, scheme, authority] = m;
  const target = maps[authority] ?? maps[withDefaultPort(scheme, authority)];
  return target === undefined ? url : `${scheme}${target}${url.slice(prefix.length)}`;
}

/** The `HOST:PORT` a backend URL names (port defaulted from the scheme). */
export function backendAuthority(url: string): string | undefined {
  const m = SCHEME_AND_AUTHORITY.exec(url);
  return m === null ? undefined : withDefaultPort(m[1], m[2]);
}

function withDefaultPort(scheme: string, authority: string): string {
  return /:\d+$/.test(authority) ? authority : `${authority}:${scheme.toLowerCase() === 'https://' ? 443 : 80}`;
}

/** Options of {@link localGatewayConfig}. */
export interface LocalGatewayOptions {
  /** @default - authentication stays as declared ('none' stays 'none') */
  readonly token?: string;
  readonly auditLogPath: string;
  readonly maps: Readonly<Record<string, string>>;
  /**
   * The session key file `dev` keeps, in place of the deployed one (a Docker secret path that does not exist here).
   * @default - none: the key comes from `CDKTF_MCP_GATEWAY_SESSION_KEY`, else is random
   */
  readonly sessionKeyFile?: string;
}

/** The config `dev` serves for a synthesized gateway config. */
export function localGatewayConfig(config: GatewayConfig, options: LocalGatewayOptions): GatewayConfig {
  // The deployed gateway's host/origin allowlists name its public address; on loopback the runtime's
  // defaults (localhost names only) are what a local client sends.
  const {
    allowed_hosts: _hosts,
    allowed_origins: _origins,
    session_key_file: _deployedKeyFile,
    // one local process counts its limits exactly; the deployed store's host does not resolve here
    store: _deployedStore,
    ...settings
  } = config.gateway;
  const tools: ToolConfig[] = config.tools.map((t) => ({
    ...t,
    backend: { ...t.backend, url: mapBackendUrl(t.backend.url, options.maps) },
  }));
  return {
    ...config,
    gateway: {
      ...settings,
      // The port is passed to startGateway instead: the config allows only 1-65535, dev also 0 (any free port).
      host: '127.0.0.1',
      auth:
        options.token !== undefined && settings.auth !== 'none'
          ? { tokens: [{ id: devPrincipal(settings.auth), sha256: sha256Hex(options.token) }] }
          : settings.auth,
      audit_log: { path: options.auditLogPath },
      ...(options.sessionKeyFile !== undefined ? { session_key_file: options.sessionKeyFile } : {}),
    },
    tools,
  };
}

/** The principal `dev`'s token stands for: the gateway's first declared token id, so audit and dashboard read as deployed. */
function devPrincipal(auth: GatewayConfig['gateway']['auth']): string {
  return auth !== 'none' && auth.tokens !== undefined && auth.tokens.length > 0 ? auth.tokens[0].id : DEV_TOKEN_ID;
}
