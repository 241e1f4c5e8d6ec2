import type { JsonText } from '../../../response';
import type { GatewayState } from '../../state/gateway-state';
import { errorResponseJson, resultResponseJson, RpcCode, type RequestId } from '../../errors/jsonrpc';
import { callTool, type CallReply, type CallServices } from '../../tools/call-pipeline';
import { CURSOR_NOT_STRING, CURSOR_UNKNOWN, cursorParam } from '../../tools/tool-pages';
import { methodNotFoundJson } from '../shared/message-shape';
import type { McpSession } from './require-session';

/** The requests of the 2025 revisions on a session, shared by a single POSTed message and each one of a batch. */

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
