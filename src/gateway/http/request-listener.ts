import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '../errors/http-error';
import type { GatewayState } from '../state/gateway-state';
import type { Logger } from '../log/logger';
import type { UnauthorizedLog } from '../log/unauthorized-log';
import type { GatewayMetrics } from '../metrics';
import { acceptsEventStream } from './accepts';
import { readBody } from './read-body';
import { handleMcpPost, requireSession, type McpContext, type SessionSigner } from '../mcp';
import { sessionDigest } from '../audit/session-digest';
import { errorResponseJson, RpcCode } from '../errors/jsonrpc';
import { principalKey, principalKind } from '../auth/bearer-tokens';
import { insufficientScopeError } from '../auth/oauth-challenge';
import { METRICS_SCOPE } from '../auth/oauth-scopes';

/** What the request handler reads from the running gateway. */
export interface HttpContext {
  readonly mcp: McpContext;
  /** Served at `GET /metrics` behind authentication (`gateway.metrics: true`); not on this port otherwise. */
  readonly metrics?: GatewayMetrics;
  readonly log: Logger;
  /** Where requests refused with HTTP 401 are logged, a bounded number of lines a minute. */
  readonly unauthorized: UnauthorizedLog;
  /** The current state; read once per request. */
  state(): GatewayState;
  /** The digest of the config served now (`/readyz` reports it, so a deploy can tell when its config serves). */
  configDigest(): string;
  /** When that config was loaded (ms since the epoch): a reload of the same bytes with new secrets moves it. */
  configLoadedAt(): number;
  shuttingDown(): boolean;
  /** Requests being answered on `/mcp` (graceful shutdown waits for them). */
  readonly inFlight: { count: number; onIdle?: () => void };
  /**
   * What `/readyz` reports besides the digest: its status (`ok`, or why the process should get no calls: 503) and
   * how rate limits count and the store's state.
   */
  readiness(): { readonly status: string; readonly fields: Readonly<Record<string, string>> };
}

/** Answers of this size or more count against `max_held_response_bytes` until written out to the client's connection. */
const HELD_ANSWER_BYTES = 256 * 1024;

const MCP_PATH = '/mcp';
const SHUTTING_DOWN = new HttpError(503, RpcCode.INTERNAL_ERROR, 'Service Unavailable: the gateway is shutting down', {
  headers: { connection: 'close' },
});
const BEHIND_A_STREAM = new HttpError(
  400,
  RpcCode.INVALID_REQUEST,
  'Bad Request: this connection carries an open stream, which answers come after; send requests on another connection',
);
const REVOCATIONS_FULL = (sessions: SessionSigner): HttpError =>
  new HttpError(
    429,
    RpcCode.INTERNAL_ERROR,
    `Too Many Requests: at most ${sessions.maxRevokedPerPrincipal} ended sessions per principal are remembered until they expire; this session stays valid until then`,
  );
const METHOD_NOT_ALLOWED = new HttpError(405, RpcCode.INVALID_REQUEST, 'Method Not Allowed', {
  headers: { allow: 'GET, POST, DELETE' },
});

/**
 * Builds the node:http request listener: `/mcp`, `/healthz`, `/readyz`, and with OAuth the protected-resource
 * metadata (RFC 9728), which answers without authentication.
 */
export function createRequestListener(ctx: HttpContext): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    req.on('error', ignore);
    res.on('error', ignore);
    const path = pathOf(req);
    if (path === MCP_PATH) {
      void serveMcp(req, res, ctx);
      return;
    }
    if (path === '/metrics' && ctx.metrics !== undefined && (req.method === 'GET' || req.method === 'HEAD')) {
      void serveMetrics(req, res, ctx, ctx.metrics);
      return;
    }
    if (path === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) {
      sendJson(res, 200, '{"status":"ok"}');
      return;
    }
    if (path === '/readyz' && (req.method === 'GET' || req.method === 'HEAD')) {
      if (ctx.shuttingDown()) sendJson(res, 503, '{"status":"shutting_down"}');
      else {
        const { status, fields } = ctx.readiness();
        sendJson(
          res,
          status === 'ok' ? 200 : 503,
          JSON.stringify({
            status,
            config_digest: ctx.configDigest(),
            config_loaded_at: ctx.configLoadedAt(),
            ...fields,
          }),
        );
      }
      return;
    }
    const resource = ctx.state().auth.resource;
    if (resource !== undefined && resource.metadataPaths.includes(path)) {
      if (req.method === 'GET' || req.method === 'HEAD') sendJson(res, 200, resource.metadataJson);
      else
        sendError(
          res,
          new HttpError(405, RpcCode.INVALID_REQUEST, 'Method Not Allowed', { headers: { allow: 'GET, HEAD' } }),
        );
      return;
    }
    sendJson(res, 404, '{"error":"Not Found"}');
  };
}

/**
 * `/metrics` on the gateway's port: the same Origin/Host check and authentication as `/mcp`; a token that carries
 * scopes needs {@link METRICS_SCOPE} (the series name tools and principals it may not see otherwise).
 */
async function serveMetrics(req: IncomingMessage, res: ServerResponse, ctx: HttpContext, metrics: GatewayMetrics) {
  try {
    const state = ctx.state();
    state.guard(req.headers.host, req.headers.origin);
    const identity = await state.auth.authenticate(req.headers.authorization);
    if (identity.scopes !== undefined && !identity.scopes.has(METRICS_SCOPE))
      throw insufficientScopeError(state.auth.resource?.metadataUrl, [METRICS_SCOPE]);
    const { contentType, body } = await metrics.exposition();
    res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) }).end(body);
  } catch (err) {
    sendError(res, err, ctx);
  }
}

/**
 * Counts a large answer against `max_held_response_bytes` until the response is over: its bytes written out to the
 * connection, or cut off. A client that stops reading it is closed after `write_timeout_ms` (the connection guard),
 * which ends the hold too. The end of the connection ends it as well, since a response still queued behind another
 * on that connection is dropped without a `close` of its own; an answer whose connection is gone already is never
 * counted.
 */
function holdUntilWritten(req: IncomingMessage, res: ServerResponse, bytes: number, ctx: HttpContext): void {
  const socket = req.socket;
  if (res.destroyed || socket.destroyed) return;
  const release = ctx.mcp.calls.services.holdAnswer(bytes);
  const end = (): void => {
    res.off('close', end);
    socket.off('close', end);
    release();
  };
  res.once('close', end);
  socket.once('close', end);
}

/** Stream errors (a client that went away) end that request only; the response is already moot. */
function ignore(): void {
  // nothing to do
}

/** One `/mcp` request, counted in flight until answered; never rejects (errors become responses here). */
async function serveMcp(req: IncomingMessage, res: ServerResponse, ctx: HttpContext): Promise<void> {
  ctx.inFlight.count++;
  try {
    await handleMcp(req, res, ctx);
  } catch (err) {
    sendError(res, err, ctx);
  } finally {
    if (--ctx.inFlight.count === 0) ctx.inFlight.onIdle?.();
  }
}

/**
 * `/mcp` in the documented order (docs/gateway.md), in both eras: Origin/Host → bearer token → (POST) body size → JSON parse → the
 * endpoint (shape → era → session or `_meta`/headers → method).
 */
async function handleMcp(req: IncomingMessage, res: ServerResponse, ctx: HttpContext): Promise<void> {
  const state = ctx.state();
  state.guard(req.headers.host, req.headers.origin);
  const identity = await state.auth.authenticate(req.headers.authorization);
  const key = principalKey(identity);
  if (ctx.shuttingDown()) throw SHUTTING_DOWN;
  // its answer would wait behind the stream for as long as the stream lives, holding what it holds
  if (ctx.mcp.streams.carries(req.socket)) throw BEHIND_A_STREAM;
  switch (req.method) {
    case 'POST': {
      const text = await readBody(req, state.maxBodyBytes);
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        throw new HttpError(400, RpcCode.PARSE_ERROR, 'Parse error: the body is not valid JSON');
      }
      const reply = await handleMcpPost(state, identity, req.headers, message, ctx.mcp);
      if (reply.listen !== undefined) {
        ctx.mcp.streams.open(res, reply.listen, reply.listen.subscriptionId);
        return;
      }
      if (reply.body === undefined) {
        res.writeHead(reply.status).end();
        return;
      }
      // a stream opened on this connection while the request was worked on: the answer would wait behind it
      if (ctx.mcp.streams.carries(req.socket)) throw BEHIND_A_STREAM;
      const bytes = Buffer.byteLength(reply.body);
      const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': bytes };
      if (reply.sessionId !== undefined) headers['mcp-session-id'] = reply.sessionId;
      if (bytes >= HELD_ANSWER_BYTES) holdUntilWritten(req, res, bytes, ctx);
      res.writeHead(reply.status, headers).end(reply.body);
      return;
    }
    case 'GET': {
      if (!acceptsEventStream(req.headers.accept)) {
        throw new HttpError(
          406,
          RpcCode.INVALID_REQUEST,
          'Not Acceptable: the GET stream needs Accept: text/event-stream',
        );
      }
      const session = requireSession(identity, req.headers, ctx.mcp.sessions);
      ctx.mcp.streams.open(res, {
        kind: 'session',
        principal: key,
        sessionId: session.sessionId,
        expiresAtMs: Math.min(session.expiresAtMs, identity.expiresAtMs ?? Infinity),
      });
      return;
    }
    case 'DELETE': {
      // Ended through the shared store (every replica), else in this process until the id would expire.
      const session = requireSession(identity, req.headers, ctx.mcp.sessions);
      if ((await ctx.mcp.revocations.end(session.sessionId, key)) === 'full') throw REVOCATIONS_FULL(ctx.mcp.sessions);
      ctx.mcp.streams.closeSession(key, session.sessionId);
      ctx.log('info', 'session closed', {
        session: sessionDigest(session.sessionId),
        principal: identity.principal,
        auth: principalKind(identity),
      });
      res.writeHead(200).end();
      return;
    }
    default:
      throw METHOD_NOT_ALLOWED;
  }
}

/** The one place a thrown error becomes an HTTP response. */
function sendError(res: ServerResponse, err: unknown, ctx?: HttpContext): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  if (err instanceof HttpError) {
    // the path without its query: the client writes the query, and may put a token there
    if (err.status === 401) ctx?.unauthorized.record(err.message, pathOf(res.req), res.req.socket.remoteAddress);
    const body = errorResponseJson(err.id, err.rpcCode, err.message, err.data);
    res.writeHead(err.status, {
      ...err.headers,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
    return;
  }
  ctx?.log('error', 'internal error', { error: err instanceof Error ? err.message : String(err) });
  sendJson(res, 500, errorResponseJson(null, RpcCode.INTERNAL_ERROR, 'Internal error'));
}

/** The request's path, its query left out. */
function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

function sendJson(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}
