import type { JsonText } from '../../response';
import { HttpError } from '../errors/http-error';
import type { GatewayState } from '../state/gateway-state';
import {
  errorResponseJson,
  methodNotFoundMessage,
  resultResponseJson,
  RpcCode,
  type RequestId,
} from '../errors/jsonrpc';
import type { McpSession } from './require-session';
import { callTool, type CallReply, type CallServices } from '../tools/call-pipeline';
import { CURSOR_NOT_STRING, CURSOR_UNKNOWN, cursorParam } from '../tools/tool-pages';

/**
 * The per-message steps shared by a single POSTed message and each message of a batch: JSON-RPC shape, method
 * lookup and the answer to a request on a session.
 */

/** How a request on a session is answered: the JSON text of its response. */
type SessionHandler = (
  state: GatewayState,
  session: McpSession,
  id: RequestId,
  params: Record<string, unknown> | undefined,
  ctx: CallServices,
) => JsonText | Promise<JsonText>;

/**
 * The requests answered on a session, by method: one table for the "known method" check and the dispatch, so
 * that a method is answered only by its own handler (`initialize` opens the session and is answered before it).
 */
const SESSION_HANDLERS: Readonly<Record<'ping' | 'tools/list' | 'tools/call', SessionHandler>> = {
  ping: (_state, _session, id) => resultResponseJson(id, '{}'),
  'tools/list': (state, session, id, params) => {
    const cursor = cursorParam(params);
    const page =
      cursor === null ? undefined : state.toolSet.listPageJsonFor(session.scopes, session.protocolVersion, cursor);
    if (page === undefined)
      return errorResponseJson(id, RpcCode.INVALID_PARAMS, cursor === null ? CURSOR_NOT_STRING : CURSOR_UNKNOWN);
    return resultResponseJson(id, page);
  },
  'tools/call': async (state, session, id, params, ctx) =>
    callReplyJson(id, await callTool(state, session, params, ctx, id)),
};

/** The request methods this server answers; any other request gets -32601. */
export const REQUEST_METHODS: ReadonlySet<string> = new Set(['initialize', ...Object.keys(SESSION_HANDLERS)]);

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
  return new HttpError(400, RpcCode.INVALID_REQUEST, `Invalid Request: ${why}`, { id: id ?? null });
}

/** The -32601 answer to a request for a method this server does not have. */
export function methodNotFoundJson(id: RequestId, method: string): string {
  return errorResponseJson(id, RpcCode.METHOD_NOT_FOUND, methodNotFoundMessage(method));
}

/**
 * The answer (JSON text) to a request other than `initialize` on a session: its method's handler, or -32601.
 *
 * @throws HttpError the refusal of a `tools/call` at the HTTP level (403 `insufficient_scope`)
 */
export async function answerRequest(
  state: GatewayState,
  session: McpSession,
  id: RequestId,
  method: string,
  params: Record<string, unknown> | undefined,
  ctx: CallServices,
): Promise<JsonText> {
  const handler = Object.prototype.hasOwnProperty.call(SESSION_HANDLERS, method)
    ? SESSION_HANDLERS[method as keyof typeof SESSION_HANDLERS]
    : undefined;
  if (handler === undefined) return methodNotFoundJson(id, method);
  return handler(state, session, id, params, ctx);
}

/** A `tools/call` reply as the response's JSON text; a refusal at the HTTP level is thrown to the endpoint. */
function callReplyJson(id: RequestId, reply: CallReply): JsonText {
  if ('refusal' in reply) throw reply.refusal;
  return 'result' in reply
    ? resultResponseJson(id, reply.result)
    : errorResponseJson(id, reply.error.code, reply.error.message, reply.error.data);
}
