/**
 * Raw requests of the stateless MCP revision 2026-07-28 from tests: the `_meta` every request carries, the
 * mirrored headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`), and `subscriptions/listen` streams.
 */
import { openStream, type OpenStream } from './http';
import { newRequestId, postMcp, type McpHttpResponse } from './mcp';

export const MODERN_VERSION = '2026-07-28';

/** The `_meta` of a modern request (`clientInfo` left out when `client` is null). */
export function modernMeta(
  client: { name: string; version: string } | null = { name: 'raw-modern', version: '0.9' },
  version = MODERN_VERSION,
) {
  return {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientCapabilities': {},
    ...(client === null ? {} : { 'io.modelcontextprotocol/clientInfo': client }),
  };
}

/** A modern request body: `params` plus the `_meta` (unless `params` sets its own `_meta`). */
export function modernRequest(
  method: string,
  params: Record<string, unknown> = {},
  id: string | number = newRequestId(),
) {
  return { jsonrpc: '2.0' as const, id, method, params: { _meta: modernMeta(), ...params } };
}

/** The headers a modern request needs for `body` (`Mcp-Name` from `params.name` of a `tools/call`). */
export function modernHeaders(
  body: { method: string; params?: Record<string, unknown> },
  token?: string,
): Record<string, string> {
  const name = body.method === 'tools/call' ? body.params?.name : undefined;
  return {
    'mcp-protocol-version': MODERN_VERSION,
    'mcp-method': body.method,
    ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  };
}

/**
 * A modern request as the bytes of an HTTP/1.1 POST to `/mcp` on 127.0.0.1:`port`, for a test that writes to a raw
 * socket (pipelined requests, a client that never reads its answer).
 */
export function modernPostText(
  port: number,
  body: { method: string; params?: Record<string, unknown>; id?: unknown },
  token?: string,
): string {
  const text = JSON.stringify(body);
  const headers = {
    host: `127.0.0.1:${port}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'content-length': String(Buffer.byteLength(text)),
    ...modernHeaders(body, token),
  };
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
  return `POST /mcp HTTP/1.1\r\n${lines.join('')}\r\n${text}`;
}

/**
 * POSTs a modern request with its headers; `headers` are merged over them (a `null` value removes one).
 * @example
 * const res = await postModern(gw.url, modernRequest('tools/list'), BOT.token);
 */
export function postModern(
  url: string,
  body: { method: string; params?: Record<string, unknown>; id?: unknown },
  token?: string,
  headers: Record<string, string | null> = {},
): Promise<McpHttpResponse> {
  const merged: Record<string, string> = { ...modernHeaders(body, token) };
  for (const [k, v] of Object.entries(headers)) {
    if (v === null) delete merged[k];
    else merged[k] = v;
  }
  return postMcp(url, body, { headers: merged });
}

/** Opens a `subscriptions/listen` stream (POST answered with SSE) asking for `notifications`. */
export function openListen(
  url: string,
  token: string | undefined,
  id: string | number,
  notifications: Record<string, unknown> = { toolsListChanged: true },
): Promise<OpenStream> {
  const body = modernRequest('subscriptions/listen', { notifications }, id);
  return openStream(
    url,
    {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...modernHeaders(body, token),
    },
    { body: JSON.stringify(body) },
  );
}

/** The JSON-RPC messages of an SSE text, in order. */
export function sseMessages(text: string): any[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)));
}
