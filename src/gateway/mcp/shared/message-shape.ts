import { HttpError } from '../../errors/http-error';
import { errorResponseJson, methodNotFoundMessage, RpcCode, type RequestId } from '../../errors/jsonrpc';

/** The JSON-RPC shape of one POSTed message, checked the same way in every revision. */

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
