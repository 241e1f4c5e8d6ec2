import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger, PrincipalKind } from './gateway-shared';
import { agentKey } from './audit-line';
import type { AuditIngester } from './audit-ingester';
import type { AuditStreamReader } from './audit-stream-reader';
import type { AuditStore } from './audit-store';
import type { DashboardAuth } from './dashboard-auth';
import type { DashboardGuard } from './dashboard-origin-guard';
import { DashboardError } from './dashboard-error';
import type { FlagRule } from './flag-rule';
import type { PageAsset } from './page-assets';
import { summarize, timeseries } from './summary';
import { parseWindow, WINDOWS } from './windows';
import { MINUTE_MS } from './audit-store';

/** What the routes read. */
export interface DashboardContext {
  readonly store: AuditStore;
  readonly ingester: AuditIngester;
  readonly streams: AuditStreamReader;
  readonly auth: DashboardAuth;
  /** Host/Origin check (DNS-rebinding protection), before anything else. */
  readonly guard: DashboardGuard;
  readonly flag: FlagRule;
  readonly assets: ReadonlyMap<string, PageAsset>;
  readonly logger: Logger;
}

/** The agent segment of `/api/agents/:principal/refusals` for the anonymous principal (`auth: 'none'`). */
export const ANONYMOUS_SEGMENT = '-';
/** Refusals one `/api/agents/:principal/refusals` answer lists at most. */
export const MAX_REFUSALS_LIMIT = 50;

/**
 * Security headers of every answer: the page runs only its own scripts and styles from this origin (no inline
 * script, no CDN), cannot be framed, and sends no referrer (a `?token=` URL must not leak).
 */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** The dashboard's HTTP handler: routes, authentication, and the one place a `DashboardError` becomes an answer. */
export function createRequestListener(ctx: DashboardContext): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    try {
      route(ctx, req, res);
    } catch (err) {
      if (err instanceof DashboardError) {
        sendJson(res, err.status, { error: err.message }, err.headers);
      } else {
        ctx.logger('error', 'dashboard request failed', { error: (err as Error).message });
        sendJson(res, 500, { error: 'Internal error' });
      }
    }
  };
}

function route(ctx: DashboardContext, req: IncomingMessage, res: ServerResponse): void {
  ctx.guard(req.headers.host, req.headers.origin);
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    throw new DashboardError(405, 'Method not allowed: the dashboard only answers GET', { Allow: 'GET, HEAD' });
  }
  const url = new URL(req.url ?? '/', 'http://dashboard.invalid');
  const path = url.pathname;
  if (path === '/healthz') {
    sendJson(res, 200, { status: 'ok' });
    return;
  }
  if (path === '/' && url.searchParams.has('token')) {
    // A browser's first visit: trade the token for a session cookie and drop it from the address bar.
    if (ctx.auth.required && !ctx.auth.isValidToken(url.searchParams.get('token') ?? '')) {
      throw new DashboardError(401, 'Unauthorized: the token is not valid');
    }
    const headers: Record<string, string> = { Location: '/' };
    if (ctx.auth.required) headers['Set-Cookie'] = ctx.auth.sessionCookie();
    send(res, 303, '', 'text/plain; charset=utf-8', headers);
    return;
  }
  const asset = ctx.assets.get(path);
  if (asset !== undefined) {
    // The assets hold no data; only the page itself asks for a session, so a refused visitor learns how to get one.
    if (path === '/') ctx.auth.check(req);
    send(res, 200, asset.body, asset.contentType, { 'Cache-Control': 'no-cache' });
    return;
  }
  if (!path.startsWith('/api/')) throw new DashboardError(404, `Not found: ${shortPath(path)}`);
  ctx.auth.check(req);
  if (path === '/api/summary') {
    sendJson(res, 200, summaryBody(ctx, url));
    return;
  }
  if (path === '/api/timeseries') {
    const window = parseWindow(url.searchParams.get('window'));
    const principal = url.searchParams.has('principal')
      ? agentOf(url.searchParams.get('principal') ?? '', url)
      : undefined;
    sendJson(res, 200, timeseries(ctx.store, window, principal, parseAuth(url.searchParams.get('auth'))));
    return;
  }
  const refusals = /^\/api\/agents\/([^/]+)\/refusals$/.exec(path);
  if (refusals !== null) {
    sendJson(res, 200, refusalsBody(ctx, refusals[1], url));
    return;
  }
  throw new DashboardError(404, `Not found: ${shortPath(path)}`);
}

/** `/api/summary`: the window's numbers and how ingestion is going. */
function summaryBody(ctx: DashboardContext, url: URL) {
  const window = parseWindow(url.searchParams.get('window'));
  const { stats } = ctx.store;
  return {
    ...summarize(ctx.store, window, ctx.flag),
    ingest: {
      files: ctx.ingester.stats.files,
      records: stats.records,
      malformed: ctx.ingester.stats.malformed + ctx.streams.malformed,
      out_of_range: stats.outOfRange,
      series_overflow: stats.seriesOverflow,
      evicted_minutes: stats.evictedMinutes,
      restarts: ctx.ingester.stats.restarts,
      unreadable_dirs: ctx.ingester.stats.unreadableDirs,
      stores: ctx.streams.stats,
      retention_ms: ctx.store.retentionMs,
    },
  };
}

/** `/api/agents/:principal/refusals`: the agent's recent refused calls. */
function refusalsBody(ctx: DashboardContext, encodedPrincipal: string, url: URL) {
  let segment: string;
  try {
    segment = decodeURIComponent(encodedPrincipal);
  } catch {
    throw new DashboardError(400, 'principal: not a valid URL-encoded name');
  }
  const principal = agentOf(segment, url);
  const auth = principal === null ? null : parseAuth(url.searchParams.get('auth'));
  const windowParam = url.searchParams.get('window');
  const window = windowParam === null ? undefined : parseWindow(windowParam);
  const limit = parseLimit(url.searchParams.get('limit'));
  const now = ctx.store.now();
  const sinceMs = window === undefined ? 0 : (Math.floor(now / MINUTE_MS) - WINDOWS[window].minutes + 1) * MINUTE_MS;
  return {
    principal,
    auth,
    ...(window !== undefined ? { window } : {}),
    refusals: ctx.store.refusals.recent(agentKey(auth, principal), sinceMs, limit).map((r) => ({
      ts: new Date(r.tsMs).toISOString(),
      gateway: r.gateway,
      tool: r.tool,
      message: r.message,
      client: { name: r.clientName, version: r.clientVersion },
    })),
  };
}

/** `-` is the anonymous principal, unless `auth` names a kind: then it is a token id or subject spelt `-`. */
function agentOf(segment: string, url: URL): string | null {
  return segment === ANONYMOUS_SEGMENT && !url.searchParams.has('auth') ? null : segment;
}

/** The `auth` query parameter: which kind of principal the agent is; a static token unless it says `oauth`. */
function parseAuth(value: string | null): PrincipalKind {
  if (value === null || value === 'token') return 'token';
  if (value === 'oauth') return 'oauth';
  throw new DashboardError(400, `auth: must be token or oauth (got ${JSON.stringify(value.slice(0, 20))})`);
}

function parseLimit(value: string | null): number {
  if (value === null) return MAX_REFUSALS_LIMIT;
  const n = /^\d{1,4}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= MAX_REFUSALS_LIMIT)) {
    throw new DashboardError(
      400,
      `limit: must be an integer from 1 to ${MAX_REFUSALS_LIMIT} (got ${JSON.stringify(value.slice(0, 20))})`,
    );
  }
  return n;
}

function shortPath(path: string): string {
  return path.length > 80 ? `${path.slice(0, 80)}…` : path;
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  send(res, status, JSON.stringify(body), 'application/json; charset=utf-8', {
    'Cache-Control': 'no-store',
    ...headers,
  });
}

function send(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  contentType: string,
  headers: Readonly<Record<string, string>>,
): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
