import { cutName } from '../../validation';
import { HttpError } from '../http/http-error';
import type { GatewayState } from '../gateway-state';
import { errorResponseJson, resultResponseJson, RpcCode, type RequestId } from './jsonrpc';
import type { McpSession } from './require-session';
import { callTool, type CallServices } from '../tools/call-pipeline';

/**
 * The per-message steps shared by a single POSTed message and each message of a batch: JSON-RPC shape, method
 * lookup and the answer to a request on a session.
 */

/** The request methods this server answers; any other request gets -32601. */
export const REQUEST_METHODS: ReadonlySet<string> = new Set(['initialize', 'ping', 'tools/list', 'tools/call']);

/** A message that passed the shape check: a request (id and method), a notification (method) or a response (neither). */
export interface MessageShape {
  readonly id?: RequestId;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
}

/**
 * JSON-RPC 2.0 shape (-32600): a request, a notification or a response, with well-typed members.
 *
 * @throws HttpError 400 -32600, echoing the message's id when that id is a valid one
 */
export function checkShape(message: unknown): MessageShape {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    throw invalidRequest('expected a JSON-RPC object');
  }
  const m = message as Record<string, unknown>;
  const rawId = m.id;
  const idValid =
    rawId === undefined || typeof rawId === 'string' || (typeof rawId === 'number' && Number.isFinite(rawId));
  const id = idValid ? (rawId as RequestId | undefined) : undefined;
  if (m.jsonrpc !== '2.0') throw invalidRequest('jsonrpc must be "2.0"', id);
  if (!idValid) throw invalidRequest('id must be a string or a number');
  if (m.method === undefined) {
    if (id !== undefined && ('result' in m || 'error' in m)) return {};
    throw invalidRequest('method is required', id);
  }
  if (typeof m.method !== 'string') throw invalidRequest('method must be a string', id);
  const params = m.params;
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
    throw invalidRequest('params must be an object', id);
  }
  return { id, method: m.method, params: params as Record<string, unknown> | undefined };
}

/** A -32600 refusal (HTTP 400), with the request's id when it is readable. */
export function invalidRequest(why: string, id?: RequestId): HttpError {
  return new HttpError(400, RpcCode.INVALID_REQUEST, `Invalid Request: ${why}`, {}, id ?? null);
}

/** The -32601 answer to a request for a method this server does not have. */
export function methodNotFoundJson(id: RequestId, method: string): string {
  return errorResponseJson(id, RpcCode.METHOD_NOT_FOUND, `Method not found: ${cutName(method)}`);
}

/** The answer (JSON text) to a request other than `initialize` on a session: `ping`, `tools/list`, `tools/call`. */
export async function answerRequest(
  state: GatewayState,
  session: McpSession,
  id: RequestId,
  method: string,
  params: Record<string, unknown> | undefined,
  ctx: CallServices,
): Promise<string> {
  switch (method) {
    case 'ping':
      return resultResponseJson(id, '{}');
    case 'tools/list':
      return resultResponseJson(id, state.toolSet.listResultJsonFor(session.scopes, session.protocolVersion));
    default: {
      const reply = await callTool(state, session, params, ctx, id);
      return 'result' in reply
        ? resultResponseJson(id, reply.result)
        : errorResponseJson(id, reply.error.code, reply.error.message, reply.error.data);
    }
  }
}
