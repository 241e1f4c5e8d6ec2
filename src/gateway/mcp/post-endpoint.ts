import type { IncomingHttpHeaders } from 'node:http';
import type { Identity } from '../auth/authenticator';
import { principalKey, principalKind } from '../auth/bearer-tokens';
import type { GatewayState } from '../state/gateway-state';
import { resultResponseJson, type RequestId } from '../errors/jsonrpc';
import { handleBatch } from './2025/batch';
import { clientInfoOf } from './shared/client-info';
import { checkShape, methodNotFoundJson } from './shared/message-shape';
import { answerRequest, REQUEST_METHODS } from './2025/session-requests';
import { handleModernMessage } from './2026/endpoint';
import { isModernRequest } from './2026/protocol';
import { negotiateProtocolVersion } from './2025/protocol-version';
import { requireSession } from './2025/require-session';
import { sessionDigest } from '../audit/session-digest';
import { ACCEPTED, type McpReply } from './shared/reply';
import type { McpContext } from './mcp-context';
import { modernAnswersOf } from './2026/answers';

/**
 * Handles one parsed POST body (authenticated, within the size limit): JSON-RPC shape → era → (2025) session →
 * method, or (2026-07-28) `handleModernMessage`. A request is modern when it carries no `Mcp-Session-Id` and shows
 * the revision (`_meta` protocol version, or a non-2025 `MCP-Protocol-Version` header); everything else keeps the
 * 2025 rules unchanged. A batch (an array) goes to `handleBatch`. Throws `HttpError` for refusals at the HTTP
 * level; JSON-RPC errors of the 2025 era are returned in a 200 reply.
 */
export async function handleMcpPost(
  state: GatewayState,
  identity: Identity,
  headers: IncomingHttpHeaders,
  message: unknown,
  ctx: McpContext,
): Promise<McpReply> {
  if (Array.isArray(message)) return handleBatch(state, identity, headers, message, ctx);
  const shape = checkShape(message);
  const { id, method, params } = shape;
  const era = { sessionId: headers['mcp-session-id'], protocolVersionHeader: headers['mcp-protocol-version'], params };
  if (isModernRequest(era)) return handleModernMessage(state, identity, headers, shape, ctx.calls);

  if (method !== undefined && id !== undefined && !REQUEST_METHODS.has(method)) {
    return { status: 200, body: methodNotFoundJson(id, method) };
  }
  if (method === 'initialize' && id !== undefined) return initialize(state, identity, id, params, ctx);

  const session = requireSession(identity, headers, ctx.sessions);
  // A notification, or the client's response to a server request: nothing to answer.
  if (id === undefined || method === undefined) return ACCEPTED;
  return { status: 200, body: await answerRequest(state, session, id, method, params, ctx.calls) };
}

function initialize(
  state: GatewayState,
  identity: Identity,
  id: RequestId,
  params: Record<string, unknown> | undefined,
  ctx: McpContext,
): McpReply {
  const protocolVersion = negotiateProtocolVersion(params?.protocolVersion);
  const client = clientInfoOf(params?.clientInfo);
  const sessionId = ctx.sessions.issue({ principal: principalKey(identity), protocolVersion, clientInfo: client });
  ctx.calls.log('info', 'session opened', {
    session: sessionDigest(sessionId),
    principal: identity.principal,
    auth: principalKind(identity),
    client,
    protocolVersion,
  });
  const result = {
    protocolVersion,
    capabilities: { tools: { listChanged: true } },
    serverInfo: modernAnswersOf(state).serverInfo,
  };
  return { status: 200, body: resultResponseJson(id, JSON.stringify(result)), sessionId };
}
