import { HttpError } from '../errors/http-error';
import { bracketHost } from './url-host';
import { RpcCode } from '../errors/jsonrpc';

/** The allowlists of a gateway (DNS-rebinding protection; see docs/security.md). */
export interface OriginGuardOptions {
  /** The address the server listens on; loopback addresses get localhost-only defaults. */
  readonly listenHost: string;
  /** @default - localhost names and the bound address when listening on loopback, any host otherwise */
  readonly allowedHosts?: readonly string[];
  /** @default - origins on localhost names and the bound address when listening on loopback, none otherwise */
  readonly allowedOrigins?: readonly string[];
}

/** Refuses a request with a foreign `Host` or `Origin` (HTTP 403). */
export type OriginGuard = (host: string | undefined, origin: string | undefined) => void;

const LOCAL_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
const FORBIDDEN_HOST = new HttpError(403, RpcCode.INVALID_REQUEST, 'Forbidden: Host not allowed');
const FORBIDDEN_ORIGIN = new HttpError(403, RpcCode.INVALID_REQUEST, 'Forbidden: Origin not allowed');

/** Whether an address only accepts connections from this machine. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Builds the guard; the allowlists are normalized once here, not per request. */
export function createOriginGuard(options: OriginGuardOptions): OriginGuard {
  const local = isLoopback(options.listenHost) ? localNames(options.listenHost) : undefined;
  const hostCheck = hostPredicate(options.allowedHosts, local);
  const originCheck = originPredicate(options.allowedOrigins, local);
  return (host, origin) => {
    if (hostCheck !== undefined && (host === undefined || !hostCheck(host.toLowerCase()))) throw FORBIDDEN_HOST;
    // Agents usually send no Origin; a browser always does, and only allowlisted pages may reach the gateway.
    if (origin !== undefined && !originCheck(origin.toLowerCase())) throw FORBIDDEN_ORIGIN;
  };
}

/**
 * The names a client of a loopback-bound gateway reaches it by: the localhost names and the bound address itself
 * (`127.0.0.2`, `[::1]`), so the gateway's own URL is always accepted.
 */
function localNames(listenHost: string): ReadonlySet<string> {
  const bound = listenHost.toLowerCase();
  return new Set([...LOCAL_NAMES, bracketHost(bound)]);
}

function hostPredicate(
  allowed: readonly string[] | undefined,
  local: ReadonlySet<string> | undefined,
): ((host: string) => boolean) | undefined {
  if (allowed === undefined) return local !== undefined ? (host) => local.has(hostname(host)) : undefined;
  const entries = new Set(allowed.map((h) => h.toLowerCase()));
  if (entries.has('*')) return undefined;
  return (host) => entries.has(host) || entries.has(hostname(host));
}

function originPredicate(
  allowed: readonly string[] | undefined,
  local: ReadonlySet<string> | undefined,
): (origin: string) => boolean {
  if (allowed === undefined) {
    if (local === undefined) return () => false;
    return (origin) => {
      const match = /^https?:\/\/(\[[^\]]*\]|[^/:]+)(:\d+)?$/.exec(origin);
      return match !== null && local.has(match[1]);
    };
  }
  const entries = new Set(allowed.map((o) => o.toLowerCase().replace(/\/+$/, '')));
  if (entries.has('*')) return () => true;
  return (origin) => entries.has(origin);
}

/** `example.com:8080` → `example.com`; `[::1]:8080` → `[::1]`. */
function hostname(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end === -1 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}
