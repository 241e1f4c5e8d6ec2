import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Principal } from '../auth/bearer-tokens';
import type { GatewayState } from '../gateway-state';
import { notificationJson, resultResponseJson, type RequestId } from './jsonrpc';
import { handleBatch } from './batch';
import { answerRequest, checkShape, methodNotFoundJson, noteNotification, REQUEST_METHODS } from './message';
import type { McpSession, SessionStore } from './session-store';
import { PACKAGE_VERSION } from '../package-version';
import { negotiateProtocolVersion } from './protocol-version';
import { requireSession } from './require-session';
import type { CallServices } from '../tools/call-pipeline';

/** What the MCP endpoint shares across requests. */
export interface McpEndpointContext extends CallServices {
  readonly sessions: SessionStore;
}

/** An answer to write: status, headers and (JSON) body; no body for 202. */
export interface McpReply {
  readonly status: number;
  readonly body?: string;
  readonly sessionId?: string;
}

const ACCEPTED: McpReply = { status: 202 };

/**
 * Handles one parsed POST body (authenticated, within the size limit): JSON-RPC shape → session → method.
 * A batch (an array) goes to `handleBatch`. Throws `HttpError` for refusals at the HTTP level; JSON-RPC errors
 * are returned in a 200 reply.
 */
export async function handleMcpPost(
  state: GatewayState,
  principal: Principal,
  headers: IncomingHttpHeaders,
  message: unknown,
  ctx: McpEndpointContext,
): Promise<McpReply> {
  if (Array.isArray(message)) return handleBatch(state, principal, headers, message, ctx);
  const { id, method, params } = checkShape(message);

  if (method !== undefined && id !== undefined && !REQUEST_METHODS.has(method)) {
    return { status: 200, body: methodNotFoundJson(id, method) };
  }
  if (method === 'initialize' && id !== undefined) return initialize(state, principal, id, params, ctx);

  const session = requireSession(principal, headers, ctx.sessions);
  if (id === undefined || method === undefined) {
    // A notification, or the client's response to a server request: nothing to answer.
    noteNotification(session, method);
    return ACCEPTED;
  }
  return { status: 200, body: await answerRequest(state, session, id, method, params, ctx) };
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

function shortString(value: unknown): string | null {
  return typeof value === 'string' ? value.slice(0, 128) : null;
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
