/**
 * JSON-RPC 2.0 shapes and codes used by the MCP endpoint.
 */
import type { JsonText } from '../../response';
import { cutName as cutMethod } from '../../validation';

/**
 * The JSON-RPC error codes the gateway answers with. None of its own in -32000..-32019 (MCP leaves them to each
 * implementation, with no meaning across them; the SDKs use -32000 and -32001 for their own closed connection and
 * timeout) or in -32020..-32099 (the specification's): a refusal at the HTTP level carries a standard code, its
 * HTTP status and a message saying which.
 */
export const RpcCode = {
  PARSE_ERROR: -32700,
  /** Also every request refused as sent: authentication, session, method, size, Host or Origin. */
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  /** Also every request the gateway cannot take now: busy, shutting down, too many streams or connections. */
  INTERNAL_ERROR: -32603,
  /** A rate limit was reached (`RateLimited`, as the draft SEP-3304 proposes; see docs/rate-limits.md). */
  RATE_LIMITED: -32023,
} as const;

export type RequestId = string | number;

/** A request (has an id) or a notification (no id) as received. */
export interface RpcMessage {
  readonly jsonrpc: '2.0';
  readonly id?: RequestId;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
  readonly result?: unknown;
  readonly error?: unknown;
}

/**
 * Serializes a success response whose result is already JSON text (precomputed results skip a stringify), given
 * whole or as consecutive parts. Bytes stay bytes: the response is then one buffer, its parts copied once.
 */
export function resultResponseJson(id: RequestId, result: string): string;
export function resultResponseJson(id: RequestId, ...result: JsonText[]): JsonText;
export function resultResponseJson(id: RequestId, ...result: JsonText[]): JsonText {
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
  if (result.every((part) => typeof part === 'string')) return `${head}${result.join('')}}`;
  return Buffer.concat([head, ...result, '}'].map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
}

/** The message of the -32601 answer, in both eras (the method cut: it is the caller's text). */
export function methodNotFoundMessage(method: string): string {
  return `Method not found: ${cutMethod(method)}`;
}

/** Serializes an error response. */
export function errorResponseJson(id: RequestId | null, code: number, message: string, data?: unknown): string {
  const error = data === undefined ? { code, message } : { code, message, data };
  return JSON.stringify({ jsonrpc: '2.0', id, error });
}

/** A notification as JSON text. */
export function notificationJson(method: string, params?: Record<string, unknown>): string {
  return JSON.stringify(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
}
