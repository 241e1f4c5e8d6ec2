import type { IncomingHttpHeaders } from 'node:http';
import type { Principal } from '../auth/bearer-tokens';
import type { GatewayState } from '../gateway-state';
import { resultResponseJson, type RequestId } from './jsonrpc';
import { handleBatch } from './batch';
import { answerRequest, checkShape, methodNotFoundJson, noteNotification, REQUEST_METHODS } from './message';
import { PACKAGE_VERSION } from '../../package-info';
import { negotiateProtocolVersion } from './protocol-version';
import { requireSession } from './require-session';
import { ACCEPTED, type McpContext, type McpReply } from './reply';

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
  ctx: McpContext,
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
  return { status: 200, body: await answerRequest(state, session, id, method, params, ctx.calls) };
}

function initialize(
  state: GatewayState,
  principal: Principal,
  id: RequestId,
  params: Record<string, unknown> | undefined,
  ctx: McpContext,
): McpReply {
  const protocolVersion = negotiateProtocolVersion(params?.protocolVersion);
  const info = params?.clientInfo as Record<string, unknown> | undefined;
  const client = { name: shortString(info?.name), version: shortString(info?.version) };
  const session = ctx.sessions.create(principal, protocolVersion, client);
  ctx.calls.log('info', 'session opened', { session: session.sessionId, principal, client, protocolVersion });
  const result = {
    protocolVersion,
    capabilities: { tools: { listChanged: true } },
    serverInfo: { name: 'cdktf-mcp-gateway', title: state.name, version: PACKAGE_VERSION },
  };
  return { status: 200, body: resultResponseJson(id, JSON.stringify(result)), sessionId: session.sessionId };
}

function shortString(value: unknown): string | null {
  return typeof value === 'string' ? value.slice(0, 128) : null;
}
