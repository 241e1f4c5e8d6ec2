/**
 * The refusals of a call over a limit (HTTP 429, -32023) and of a call made while the limit store is down under
 * `on_unavailable: 'refuse'` (HTTP 503), as the listener answers every `HttpError`.
 */
import { HttpError } from '../errors/http-error';
import { RpcCode, type RequestId } from '../errors/jsonrpc';
import type { Limit } from './limit-rules';

/** HTTP 429 naming the limit that was reached (never the caller's other limits), with when to try again. */
export function rateLimited(limit: Limit, retryAfterMs: number, id: RequestId | null): HttpError {
  const wait = Math.max(0, Math.ceil(retryAfterMs));
  return new HttpError(429, RpcCode.RATE_LIMITED, limit.message, {
    headers: {
      'retry-after': String(Math.max(1, Math.ceil(wait / 1000))),
      'ratelimit-limit': String(limit.calls),
      'ratelimit-remaining': '0',
    },
    id,
    data: { retryAfterMs: wait, limit: limit.calls, remaining: 0 },
  });
}

/** The message of a call refused because the limit store cannot be reached. */
export const STORE_UNAVAILABLE_MESSAGE =
  'Service Unavailable: the rate limit store is unavailable; try again in a moment';

/** HTTP 503 for a call that cannot be counted while the store is down (`on_unavailable: 'refuse'`). */
export function storeUnavailable(id: RequestId | null): HttpError {
  return new HttpError(503, RpcCode.INTERNAL_ERROR, STORE_UNAVAILABLE_MESSAGE, { headers: { 'retry-after': '1' }, id });
}
