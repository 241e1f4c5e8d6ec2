/**
 * A POSTed message of the stateless revision 2026-07-28 (see docs/gateway.md), after Origin/Host, authentication, the body
 * and the JSON-RPC shape: `_meta` and the mirrored headers (`checkModernRequest`) → method → the answer. No
 * session: the caller is the request itself (`sessionId` null, client from `_meta` clientInfo).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { JsonText } from '../../../response';
import type { Identity } from '../../auth/authenticator';
import { principalKey } from '../../auth/bearer-tokens';
import type { GatewayState } from '../../state/gateway-state';
import { HttpError } from '../../errors/http-error';
import { callTool, type CallReply, type CallServices } from '../../tools/call-pipeline';
import { errorResponseJson, resultResponseJson, RpcCode, type RequestId } from '../../errors/jsonrpc';
import type { MessageShape } from '../shared/message-shape';
import { methodNotFound, MODERN_PROTOCOL_VERSIONS, type ModernMethod, type ModernRefusal } from './protocol';
import { checkModernRequest, type ModernRequestMeta } from './request';
import { listenFilter } from './results';
import { CURSOR_NOT_STRING, CURSOR_UNKNOWN, cursorParam } from '../../tools/tool-pages';
import { ACCEPTED, type McpReply } from '../shared/reply';
import { modernAnswersOf } from './answers';

/** The protocol version a modern caller speaks (decides the refusal channel under `auto`: `tool_result`). */
const MODERN_VERSION = MODERN_PROTOCOL_VERSIONS[0];

/**
 * Answers one modern message. Refusals of the revision are HTTP 400/404 with a JSON-RPC error echoing the id;
 * tool refusals and tool errors are answered as in the 2025 era (HTTP 200).
 */
export async function handleModernMessage(
  state: GatewayState,
  identity: Identity,
  headers: IncomingHttpHeaders,
  { id, method, params }: MessageShape,
  calls: CallServices,
): Promise<McpReply> {
  // A notification or a client response: the revision defines no header rules for them.
  if (id === undefined || method === undefined) return ACCEPTED;
  const check = checkModernRequest(
    { protocolVersion: headers['mcp-protocol-version'], method: headers['mcp-method'], name: headers['mcp-name'] },
    method,
    params,
  );
  if (!check.ok) return refusal(id, check.refusal);
  const handler = Object.prototype.hasOwnProperty.call(MODERN_HANDLERS, method)
    ? MODERN_HANDLERS[method as ModernMethod]
    : undefined;
  if (handler === undefined) return refusal(id, methodNotFound(method));
  return handler({ state, identity, id, params, meta: check.meta, calls });
}

/** What a modern method's handler answers from. */
interface ModernRequest {
  readonly state: GatewayState;
  readonly identity: Identity;
  readonly id: RequestId;
  readonly params: Record<string, unknown> | undefined;
  readonly meta: ModernRequestMeta;
  readonly calls: CallServices;
}

/**
 * The modern methods, each with its handler: one table for the "known method" check and the dispatch (the type
 * makes it list every method of {@link ModernMethod}, and only those).
 */
const MODERN_HANDLERS: Readonly<Record<ModernMethod, (r: ModernRequest) => McpReply | Promise<McpReply>>> = {
  'server/discover': ({ state, id }) => ok(id, modernAnswersOf(state).discoverJson),
  'tools/list': ({ state, identity, id, params }) => {
    const cursor = cursorParam(params);
    if (cursor === null) return refusal(id, invalidParamsWith(CURSOR_NOT_STRING));
    const page = modernAnswersOf(state).toolsListPageFor(identity.scopes, cursor);
    if (page === undefined) return refusal(id, invalidParamsWith(CURSOR_UNKNOWN));
    return ok(id, page);
  },
  'subscriptions/listen': ({ identity, id, params }) => {
    const filter = listenFilter(params);
    if (!filter.ok) return refusal(id, filter.refusal);
    return {
      status: 200,
      listen: {
        kind: 'listen',
        principal: principalKey(identity),
        subscriptionId: id,
        filter: filter.filter,
        expiresAtMs: identity.expiresAtMs,
      },
    };
  },
  'tools/call': async ({ state, identity, id, params, meta, calls }) => {
    const caller = {
      sessionId: null,
      principal: identity.principal,
      client: meta.client,
      protocolVersion: MODERN_VERSION,
      scopes: identity.scopes,
      clientId: identity.clientId,
      oauth: identity.oauth,
    };
    return { status: 200, body: callReplyJson(id, await callTool(state, caller, params, calls, id), state) };
  },
};

/**
 * A `tools/call` answer: a result gains `resultType` and the server info; an error stays a JSON-RPC error; a
 * refusal at the HTTP level is thrown to the listener, which answers every `HttpError`.
 */
function callReplyJson(id: RequestId, reply: CallReply, state: GatewayState): JsonText {
  if ('refusal' in reply) throw reply.refusal;
  if ('error' in reply) return errorResponseJson(id, reply.error.code, reply.error.message, reply.error.data);
  return resultResponseJson(id, ...withCompletion(reply.result, modernAnswersOf(state).serverInfoMetaJson));
}

/**
 * A result object (JSON text written by the call pipeline: `content`, `structuredContent`, `isError`, never a
 * top-level `_meta`) with `"resultType":"complete"` and `_meta` holding the server info appended, as consecutive
 * parts of JSON text (bytes are cut, not copied).
 */
export function withCompletion(resultJson: JsonText, serverInfoMetaJson: string): JsonText[] {
  const tail = `"resultType":"complete","_meta":${serverInfoMetaJson}}`;
  if (typeof resultJson === 'string') {
    const body = resultJson.trimEnd().slice(0, -1).trimEnd();
    return [body.endsWith('{') ? `${body}${tail}` : `${body},${tail}`];
  }
  const end = lastNonSpace(resultJson, resultJson.length); // the result's closing brace
  const last = lastNonSpace(resultJson, end);
  return [resultJson.subarray(0, last + 1), resultJson[last] === OPEN_BRACE ? tail : `,${tail}`];
}

const OPEN_BRACE = 0x7b;

/** The index of the last byte before `end` that is not JSON whitespace (-1 when there is none). */
function lastNonSpace(bytes: Buffer, end: number): number {
  let i = end - 1;
  while (i >= 0 && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)) i--;
  return i;
}

/** A -32602 refusal (HTTP 400) whose message is given whole. */
function invalidParamsWith(message: string): ModernRefusal {
  return { status: 400, code: RpcCode.INVALID_PARAMS, message };
}

function ok(id: RequestId, resultJson: string): McpReply {
  return { status: 200, body: resultResponseJson(id, resultJson) };
}

/** A refusal of the revision, thrown as the one HTTP refusal type the listener answers (echoing the id). */
function refusal(id: RequestId, r: ModernRefusal): never {
  throw new HttpError(r.status, r.code, r.message, { id, data: r.data });
}
