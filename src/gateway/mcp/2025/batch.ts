import type { IncomingHttpHeaders } from 'node:http';
import type { JsonText } from '../../../response';
import type { Identity } from '../../auth/authenticator';
import { HttpError } from '../../errors/http-error';
import type { GatewayState } from '../../state/gateway-state';
import { errorResponseJson, RpcCode, type RequestId } from '../../errors/jsonrpc';
import { ACCEPTED, type McpReply } from '../shared/reply';
import { checkShape, invalidRequest, methodNotFoundJson } from '../shared/message-shape';
import { answerRequest, REQUEST_METHODS } from './session-requests';
import type { SessionSigner } from './session-token';
import { scopeRefusal, type CallServices } from '../../tools/call-pipeline';
import { requireSession, type McpSession } from './require-session';

/** What a batch needs beyond its messages: the session signer and what a call needs. */
export interface BatchContext {
  readonly sessions: SessionSigner;
  readonly calls: CallServices;
}

/** The one protocol version with JSON-RPC batches: MCP 2025-03-26 requires them, 2025-06-18 removed them. */
export const BATCH_PROTOCOL_VERSION = '2025-03-26';

/** The most messages one batch may hold; each may be a service call, so a batch must not be a flood. */
export const MAX_BATCH_MESSAGES = 100;

/**
 * Handles a JSON-RPC batch (a POSTed array) on a session that negotiated {@link BATCH_PROTOCOL_VERSION}: each
 * message goes through the steps of a single one (shape, method, tool lookup, validation, the service call,
 * audit) and the answer is the array of the responses to its requests, in order; notifications and client
 * responses add nothing, and a batch of only those is answered 202. `initialize` cannot be batched.
 *
 * Scopes are checked for the batch as a whole before any message runs: one call of a tool the caller's scopes do
 * not allow refuses the whole batch with HTTP 403 `insufficient_scope`, so no call reaches its service for an
 * answer that would be lost (an agent that retries would repeat the side effect). Every other refusal stays per
 * message.
 *
 * @throws HttpError -32600 for an empty batch, a batch without a session or on a session of a later protocol
 * version, and a batch of more than {@link MAX_BATCH_MESSAGES} messages; 400/404 for a bad session as usual;
 * 403 `insufficient_scope` for a call the caller's scopes do not allow
 */
export async function handleBatch(
  state: GatewayState,
  identity: Identity,
  headers: IncomingHttpHeaders,
  batch: readonly unknown[],
  ctx: BatchContext,
): Promise<McpReply> {
  if (batch.length === 0) throw invalidRequest('empty batch');
  // Without a session there is no protocol version that has batches (and `initialize` cannot be batched).
  if (headers['mcp-session-id'] === undefined) throw invalidRequest('batch requests are not supported');
  const session = requireSession(identity, headers, ctx.sessions);
  if (session.protocolVersion !== BATCH_PROTOCOL_VERSION) {
    throw invalidRequest(
      `batch requests are not supported in protocol version ${session.protocolVersion} (only in ${BATCH_PROTOCOL_VERSION})`,
    );
  }
  if (batch.length > MAX_BATCH_MESSAGES) {
    throw invalidRequest(`a batch holds at most ${MAX_BATCH_MESSAGES} messages (this one holds ${batch.length})`);
  }
  for (const message of batch) {
    const call = toolCallOf(message);
    const refusal = call === undefined ? undefined : scopeRefusal(state, session, call.params, ctx.calls, call.id);
    if (refusal !== undefined) throw refusal;
  }
  // The messages run concurrently, as separate requests would; the answers keep the batch's order.
  const answers = await Promise.all(batch.map((message) => answerInBatch(state, session, message, ctx)));
  const entries = answers.filter((answer) => answer !== undefined);
  // an answer in bytes is decoded here: the array is text (only sessions of one revision send batches)
  return entries.length === 0 ? ACCEPTED : { status: 200, body: `[${entries.map(String).join(',')}]` };
}

/** The id and params of a message that is a well-formed `tools/call` request, else `undefined`. */
function toolCallOf(message: unknown): { id: RequestId; params: Record<string, unknown> | undefined } | undefined {
  let shape;
  try {
    shape = checkShape(message);
  } catch {
    return undefined; // answered -32600 in its place
  }
  return shape.method === 'tools/call' && shape.id !== undefined ? { id: shape.id, params: shape.params } : undefined;
}

/** The response (JSON text) to one message of a batch, or `undefined` for a notification or a client response. */
async function answerInBatch(
  state: GatewayState,
  session: McpSession,
  message: unknown,
  ctx: BatchContext,
): Promise<JsonText | undefined> {
  let shape;
  try {
    shape = checkShape(message);
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    return errorResponseJson(err.id, err.rpcCode, err.message);
  }
  const { id, method, params } = shape;
  // A notification or a client response: nothing to answer (a session keeps no state to update).
  if (id === undefined || method === undefined) return undefined;
  if (!REQUEST_METHODS.has(method)) return methodNotFoundJson(id, method);
  if (method === 'initialize') {
    return errorResponseJson(id, RpcCode.INVALID_REQUEST, 'Invalid Request: initialize must not be part of a batch');
  }
  try {
    return await answerRequest(state, session, id, method, params, ctx.calls);
  } catch (err) {
    // a call over a rate limit, or scopes changed by a reload since the batch was checked: one answer among the others
    if (!(err instanceof HttpError)) throw err;
    return errorResponseJson(id, err.rpcCode, err.message, err.data);
  }
}
