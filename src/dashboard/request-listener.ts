import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
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

/**
 * The principal of `/api/agents/:principal/refusals` (its segment) and `/api/refusals?principal=` for the anonymous
 * principal (`auth: 'none'`).
 */
export const ANONYMOUS_SEGMENT = '-';
/** Refusals one answer of either refusals route lists at most. */
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

/** The dashboard's HTTP handler: its routes on Hono, and the one place a `DashboardError` becomes an answer. */
export function createRequestListener(ctx: DashboardContext): (req: IncomingMessage, res: ServerResponse) => void {
  const app = dashboardApp(ctx);
  const listener = getRequestListener(app.fetch, {
    // the process's own Request and Response stay Node's: the dashboard may share it (tests, `dev`)
    overrideGlobalObjects: false,
    // a request Hono cannot even read (no Host, a malformed one): answered like every refusal
    errorHandler: (err) => errorAnswer(new DashboardError(400, `Bad request: ${(err as Error).message}`)),
  });
  return (req, res) => void listener(req, res);
}

/** The routes. Every answer goes through `send`, which adds the security headers. */
function dashboardApp(ctx: DashboardContext): Hono {
  const app = new Hono();
  app.use(async (c, next) => {
    ctx.guard(c.req.header('host'), c.req.header('origin'));
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      throw new DashboardError(405, 'Method not allowed: the dashboard only answers GET', { Allow: 'GET, HEAD' });
    }
    await next();
  });
  app.get('/healthz', () => sendJson(200, { status: 'ok' }));
  app.get('/', (c, next) => {
    const token = c.req.query('token');
    if (token === undefined) return next();
    // A browser's first visit: trade the token for a session cookie and drop it from the address bar.
    if (ctx.auth.required && !ctx.auth.isValidToken(token)) {
      throw new DashboardError(401, 'Unauthorized: the token is not valid');
    }
    const headers: Record<string, string> = { Location: '/' };
    if (ctx.auth.required) headers['Set-Cookie'] = ctx.auth.sessionCookie();
    return send(303, '', 'text/plain; charset=utf-8', headers);
  });
  for (const [path, asset] of ctx.assets) {
    app.get(path, (c) => {
      // The assets hold no data; only the page itself asks for a session, so a refused visitor learns how to get one.
      if (path === '/') ctx.auth.check(c.req.header());
      return send(200, asset.body, asset.contentType, { 'Cache-Control': 'no-cache' });
    });
  }
  app.use('/api/*', async (c, next) => {
    ctx.auth.check(c.req.header());
    await next();
  });
  app.get('/api/summary', (c) => sendJson(200, summaryBody(ctx, c.req.query('window'))));
  app.get('/api/timeseries', (c) => {
    const window = parseWindow(c.req.query('window') ?? null);
    const segment = c.req.query('principal');
    const principal = segment === undefined ? undefined : agentOf(segment, c.req.query('auth'));
    return sendJson(200, timeseries(ctx.store, window, principal, parseAuth(c.req.query('auth'))));
  });
  // the segment as sent: Hono's decoded parameter cannot tell a malformed escape from a name holding '%'
  app.get('/api/agents/:principal/refusals', (c) =>
    sendJson(200, refusalsBody(ctx, decodeSegment(new URL(c.req.url).pathname.split('/')[3]), c.req.query())),
  );
  // the same with the principal in the query: a name spelt `.` or `..` cannot be a path segment (clients resolve it)
  app.get('/api/refusals', (c) => {
    const principal = c.req.query('principal');
    if (principal === undefined) throw new DashboardError(400, 'principal: required (- for the anonymous principal)');
    return sendJson(200, refusalsBody(ctx, principal, c.req.query()));
  });
  app.notFound((c) => errorAnswer(new DashboardError(404, `Not found: ${shortPath(new URL(c.req.url).pathname)}`)));
  app.onError((err) => {
    if (err instanceof DashboardError) return errorAnswer(err);
    ctx.logger('error', 'dashboard request failed', { error: err.message });
    return errorAnswer(new DashboardError(500, 'Internal error'));
  });
  return app;
}

function errorAnswer(err: DashboardError): Response {
  return sendJson(err.status, { error: err.message }, err.headers);
}

/** `/api/summary`: the window's numbers and how ingestion is going. */
function summaryBody(ctx: DashboardContext, windowParam: string | undefined) {
  const window = parseWindow(windowParam ?? null);
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

/** `/api/agents/:principal/refusals` and `/api/refusals?principal=`: the agent's recent refused calls. */
function refusalsBody(ctx: DashboardContext, segment: string, query: Readonly<Record<string, string>>) {
  const principal = agentOf(segment, query.auth);
  const auth = principal === null ? null : parseAuth(query.auth);
  const windowParam = query.window;
  const window = windowParam === undefined ? undefined : parseWindow(windowParam);
  const limit = parseLimit(query.limit);
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

function decodeSegment(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new DashboardError(400, 'principal: not a valid URL-encoded name');
  }
}

/** `-` is the anonymous principal, unless `auth` names a kind: then it is a token id or subject spelt `-`. */
function agentOf(segment: string, auth: string | undefined): string | null {
  return segment === ANONYMOUS_SEGMENT && auth === undefined ? null : segment;
}

/** The `auth` query parameter: which kind of principal the agent is; a static token unless it says `oauth`. */
function parseAuth(value: string | undefined): PrincipalKind {
  if (value === undefined || value === 'token') return 'token';
  if (value === 'oauth') return 'oauth';
  throw new DashboardError(400, `auth: must be token or oauth (got ${JSON.stringify(value.slice(0, 20))})`);
}

function parseLimit(value: string | undefined): number {
  if (value === undefined) return MAX_REFUSALS_LIMIT;
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

function sendJson(status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): Response {
  return send(status, JSON.stringify(body), 'application/json; charset=utf-8', {
    'Cache-Control': 'no-store',
    ...headers,
  });
}

function send(
  status: number,
  body: string | Buffer,
  contentType: string,
  headers: Readonly<Record<string, string>>,
): Response {
  // Hono answers HEAD with the GET route's headers and no body
  return new Response(body as string | Uint8Array<ArrayBuffer>, {
    status,
    headers: {
      ...SECURITY_HEADERS,
      'Content-Type': contentType,
      'Content-Length': String(Buffer.byteLength(body)),
      ...headers,
    },
  });
}
