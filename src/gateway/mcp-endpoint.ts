import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Principal } from './auth';
import { HttpError } from './errors';
import type { GatewayState } from './gateway-state';
import { errorResponseJson, notificationJson, resultResponseJson, RpcCode, type RequestId } from './jsonrpc';
import type { Logger } from './logger';
import type { McpSession, SessionStore } from './mcp-session';
import { PACKAGE_VERSION } from './package-version';
import { negotiateProtocolVersion, SUPPORTED_PROTOCOL_VERSIONS } from './protocol-version';
import { callTool, type CallServices } from './tool-call';

/** What the MCP endpoint shares across requests. */
export interface McpEndpointContext extends CallServices {
  readonly sessions: SessionStore;
  readonly log: Logger;
}

/** An answer to write: status, headers and (JSON) body; no body for 202. */
export interface McpReply {
  readonly status: number;
  readonly body?: string;
  readonly sessionId?: string;
}

const REQUEST_METHODS = new Set(['initialize', 'ping', 'tools/list', 'tools/call']);
const ACCEPTED: McpReply = { status: 202 };

/**
 * Handles one parsed POST body (authenticated, within the size limit): JSON-RPC shape → session → method.
 * Throws `HttpError` for refusals at the HTTP level; JSON-RPC errors are returned in a 200 reply.
 */
export async function handleMcpPost(
  state: GatewayState,
  principal: Principal,
  headers: IncomingHttpHeaders,
  message: unknown,
  ctx: McpEndpointContext,
): Promise<McpReply> {
  if (Array.isArray(message)) {
    // Batches were removed from MCP in 2025-06-18 and no current client sends them.
    throw new HttpError(400, RpcCode.INVALID_REQUEST, 'Invalid Request: batch requests are not supported');
  }
  const shape = checkShape(message);
  const { id, method, params } = shape;

  if (method !== undefined && id !== undefined && !REQUEST_METHODS.has(method)) {
    return { status: 200, body: errorResponseJson(id, RpcCode.METHOD_NOT_FOUND, `Method not found: ${cut(method)}`) };
  }
  if (method === 'initialize' && id !== undefined) return initialize(state, principal, id, params, ctx);

  const session = requireSession(principal, headers, ctx.sessions);
  if (id === undefined || method === undefined) {
    // A notification, or the client's response to a server request: nothing to answer.
    if (method === 'notifications/initialized') session.initialized = true;
    return ACCEPTED;
  }
  switch (method) {
    case 'ping':
      return { status: 200, body: resultResponseJson(id, '{}') };
    case 'tools/list':
      return { status: 200, body: resultResponseJson(id, state.toolSet.listResultJson) };
    default: {
      const reply = await callTool(state, session, params, ctx);
      return 'result' in reply
        ? { status: 200, body: resultResponseJson(id, reply.result) }
        : { status: 200, body: errorResponseJson(id, reply.error.code, reply.error.message, reply.error.data) };
    }
  }
}

/**
 * The session of a request after `initialize`: a missing `Mcp-Session-Id` is HTTP 400; an unknown or expired one,
 * or one opened with another token, HTTP 404 (the client must initialize again). An unsupported
 * `MCP-Protocol-Version` header is HTTP 400.
 */
export function requireSession(principal: Principal, headers: IncomingHttpHeaders, sessions: SessionStore): McpSession {
  const id = headers['mcp-session-id'];
  if (typeof id !== 'string' || id === '') {
    throw new HttpError(400, RpcCode.SERVER_ERROR, 'Bad Request: Mcp-Session-Id header is required');
  }
  const session = sessions.get(id, principal);
  if (session === undefined) throw new HttpError(404, RpcCode.UNAUTHORIZED, 'Session not found');
  const version = headers['mcp-protocol-version'];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version as string)) {
    throw new HttpError(
      400,
      RpcCode.SERVER_ERROR,
      `Bad Request: unsupported MCP-Protocol-Version (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
    );
  }
  return session;
}

function initialize(
  state: GatewayState,
  principal: Principal,
  id: RequestId,
  params: Record<string, unknown> | undefined,
  ctx: McpEndpointContext,
): McpReply {
  const protocolVersion = negotiateProtocolVersion(params?.protocolVersion);
  const info = params?.clientInfo as Record<string, unknown> | undefined;
  const client = { name: shortString(info?.name), version: shortString(info?.version) };
  const session = ctx.sessions.create(principal, protocolVersion, client);
  ctx.log('info', 'session opened', { session: session.id, principal, client, protocolVersion });
  const result = {
    protocolVersion,
    capabilities: { tools: { listChanged: true } },
    serverInfo: { name: 'cdktf-mcp-gateway', title: state.name, version: PACKAGE_VERSION },
  };
  return { status: 200, body: resultResponseJson(id, JSON.stringify(result)), sessionId: session.id };
}

interface Shape {
  readonly id?: RequestId;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
}

/** JSON-RPC 2.0 shape (-32600): a request, a notification or a response, with well-typed members. */
function checkShape(message: unknown): Shape {
  if (typeof message !== 'object' || message === null) throw invalidRequest('expected a JSON-RPC object');
  const m = message as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') throw invalidRequest('jsonrpc must be "2.0"');
  const id = m.id;
  if (id !== undefined && typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id))) {
    throw invalidRequest('id must be a string or a number');
  }
  if (m.method === undefined) {
    if (id !== undefined && ('result' in m || 'error' in m)) return { id: undefined };
    throw invalidRequest('method is required');
  }
  if (typeof m.method !== 'string') throw invalidRequest('method must be a string');
  const params = m.params;
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
    throw invalidRequest('params must be an object');
  }
  return { id: id as RequestId | undefined, method: m.method, params: params as Record<string, unknown> | undefined };
}

function invalidRequest(why: string): HttpError {
  return new HttpError(400, RpcCode.INVALID_REQUEST, `Invalid Request: ${why}`);
}

function shortString(value: unknown): string | null {
  return typeof value === 'string' ? value.slice(0, 128) : null;
}

function cut(name: string): string {
  return name.length > 64 ? `${name.slice(0, 64)}…` : name;
}

/** Opens the GET stream (SSE) of a session: server → client notifications such as `tools/list_changed`. */
export function openNotificationStream(session: McpSession, res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
  });
  res.flushHeaders();
  session.streams.add(res);
  res.on('close', () => session.streams.delete(res));
}

/** Sends a notification to every open stream of every session. */
export function broadcast(sessions: SessionStore, method: string): number {
  const frame = `event: message\ndata: ${notificationJson(method)}\n\n`;
  let sent = 0;
  for (const session of sessions.all()) {
    for (const stream of session.streams) {
      stream.write(frame);
      sent++;
    }
  }
  return sent;
}

/** Writes an SSE comment to every open stream (keep-alive). */
export function broadcastComment(sessions: SessionStore): void {
  for (const session of sessions.all()) {
    for (const stream of session.streams) stream.write(': keep-alive\n\n');
  }
}
