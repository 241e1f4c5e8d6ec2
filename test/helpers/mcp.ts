/**
 * MCP over Streamable HTTP from tests: raw JSON-RPC POSTs with `fetch` (to check statuses, headers and exact
 * error shapes) and the official SDK client (to prove interoperability).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BOT } from './tokens';

/** The protocol versions the gateway speaks (docs/gateway.md), newest first. */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export const LATEST_PROTOCOL_VERSION = PROTOCOL_VERSIONS[0];

/** A JSON-RPC error object. */
export interface JsonRpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** A JSON-RPC response (or any message the server sent). */
export interface JsonRpcMessage {
  readonly jsonrpc?: string;
  readonly id?: string | number | null;
  readonly method?: string;
  readonly result?: any;
  readonly error?: JsonRpcError;
}

/** What a POST to `/mcp` answered. */
export interface McpHttpResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The JSON-RPC response to the request (from a JSON body or an SSE stream); undefined when none. */
  readonly message?: JsonRpcMessage;
}

export interface PostOptions {
  /** Sent as `Authorization: Bearer <token>`. @default - no Authorization header */
  readonly token?: string;
  /** Sent as `Mcp-Session-Id`. @default - none */
  readonly sessionId?: string;
  /** Sent as `MCP-Protocol-Version`. @default - none */
  readonly protocolVersion?: string;
  /** Extra headers (win over the ones above). @default {} */
  readonly headers?: Record<string, string>;
  /** @default 10000 */
  readonly timeoutMs?: number;
  /** @default 'POST' */
  readonly method?: string;
}

let nextId = 1;
/** A fresh JSON-RPC request id. */
export function newRequestId(): number {
  return nextId++;
}

/** Parses a JSON body or the `data:` lines of an SSE body into messages. */
export function parseMessages(text: string, contentType: string | null): JsonRpcMessage[] {
  if (text.trim() === '') return [];
  if (contentType?.includes('text/event-stream')) {
    const out: JsonRpcMessage[] = [];
    for (const event of text.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data.trim() !== '') out.push(JSON.parse(data) as JsonRpcMessage);
    }
    return out;
  }
  const parsed = JSON.parse(text) as JsonRpcMessage | JsonRpcMessage[];
  return Array.isArray(parsed) ? parsed : [parsed];
}

/** The headers of an MCP POST. */
export function mcpHeaders(options: PostOptions = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(options.token !== undefined ? { authorization: `Bearer ${options.token}` } : {}),
    ...(options.sessionId !== undefined ? { 'mcp-session-id': options.sessionId } : {}),
    ...(options.protocolVersion !== undefined ? { 'mcp-protocol-version': options.protocolVersion } : {}),
    ...options.headers,
  };
}

/**
 * POSTs `body` (an object is JSON-encoded, a string is sent as is) to the MCP endpoint.
 * @example
 * const res = await postMcp(gw.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { token, sessionId });
 */
export async function postMcp(url: string, body: unknown, options: PostOptions = {}): Promise<McpHttpResponse> {
  const res = await fetch(url, {
    method: options.method ?? 'POST',
    headers: mcpHeaders(options),
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
  });
  const text = await res.text();
  let message: JsonRpcMessage | undefined;
  try {
    const messages = parseMessages(text, res.headers.get('content-type'));
    const id = typeof body === 'object' && body !== null ? (body as { id?: unknown }).id : undefined;
    message =
      messages.find((m) => m.id === id && (m.result !== undefined || m.error !== undefined)) ??
      messages.find((m) => m.result !== undefined || m.error !== undefined);
  } catch {
    message = undefined;
  }
  return { status: res.status, headers: res.headers, text, message };
}

/** The body of an `initialize` request. */
export function initializeRequest(
  protocolVersion: string = LATEST_PROTOCOL_VERSION,
  clientInfo = { name: 'e2e-raw', version: '1.0.0' },
) {
  return {
    jsonrpc: '2.0' as const,
    id: newRequestId(),
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo },
  };
}

/** The body of a `tools/call` request. `args === undefined` omits `arguments`. */
export function toolsCallRequest(name: string, args?: unknown) {
  return {
    jsonrpc: '2.0' as const,
    id: newRequestId(),
    method: 'tools/call',
    params: args === undefined ? { name } : { name, arguments: args },
  };
}

/** What {@link postJson} answered: the whole body parsed as JSON (`undefined` when empty). */
export interface JsonHttpResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly json: any;
}

/**
 * A raw JSON-RPC POST as {@link BOT} (unless `headers` sets another `authorization`), answered with the whole body
 * parsed, not one message as {@link postMcp} gives: batch tests read the array, and an SSE answer fails here.
 * @example
 * const res = await postJson(gateway.url, [{ jsonrpc: '2.0', id: 1, method: 'ping' }], { 'mcp-session-id': session });
 */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<JsonHttpResponse> {
  const res = await postMcp(url, body, { token: BOT.token, headers });
  return { status: res.status, headers: res.headers, json: res.text === '' ? undefined : JSON.parse(res.text) };
}

/**
 * Sends `initialize` (as client `raw` 0.1, as {@link BOT} unless `token` says otherwise) and returns the session
 * id. It does not send `notifications/initialized`, unlike {@link openSession}: for tests that need only the id.
 */
export async function initializeSession(
  url: string,
  protocolVersion = '2025-06-18',
  token = BOT.token,
): Promise<string> {
  const res = await postJson(url, initializeRequest(protocolVersion, { name: 'raw', version: '0.1' }), {
    authorization: `Bearer ${token}`,
  });
  const id = res.headers.get('mcp-session-id');
  if (id === null) throw new Error(`initialize failed: HTTP ${res.status} ${JSON.stringify(res.json)}`);
  return id;
}

/** `tools/call` (always id 1, so tests compare whole responses) in `session` as {@link BOT}; the parsed response. */
export async function rawCall(
  url: string,
  session: string,
  name: string,
  args?: unknown,
  headers: Record<string, string> = {},
): Promise<any> {
  const res = await postJson(
    url,
    { ...toolsCallRequest(name, args), id: 1 },
    { 'mcp-session-id': session, ...headers },
  );
  return res.json;
}

/** An initialized MCP session driven with raw requests. */
export class McpSession {
  constructor(
    readonly url: string,
    readonly token: string | undefined,
    readonly sessionId: string,
    /** The version the server answered in `initialize`. */
    readonly protocolVersion: string,
    readonly initializeResult: any,
  ) {}

  /** Options for {@link postMcp} carrying this session's token, id and protocol version. */
  options(extra: PostOptions = {}): PostOptions {
    return { token: this.token, sessionId: this.sessionId, protocolVersion: this.protocolVersion, ...extra };
  }

  /** Sends a JSON-RPC request in this session. */
  request(method: string, params?: unknown, extra: PostOptions = {}): Promise<McpHttpResponse> {
    const body = { jsonrpc: '2.0', id: newRequestId(), method, ...(params !== undefined ? { params } : {}) };
    return postMcp(this.url, body, this.options(extra));
  }

  /** `tools/call`; `args === undefined` omits `arguments`. */
  callTool(name: string, args?: unknown, extra: PostOptions = {}): Promise<McpHttpResponse> {
    return postMcp(this.url, toolsCallRequest(name, args), this.options(extra));
  }

  /** Sends a notification (no id). */
  notify(method: string, params?: unknown): Promise<McpHttpResponse> {
    return postMcp(this.url, { jsonrpc: '2.0', method, ...(params !== undefined ? { params } : {}) }, this.options());
  }
}

export interface OpenSessionOptions {
  readonly token?: string;
  /** @default LATEST_PROTOCOL_VERSION */
  readonly protocolVersion?: string;
  /** @default { name: 'e2e-raw', version: '1.0.0' } */
  readonly clientInfo?: { name: string; version: string };
}

/**
 * `initialize` + `notifications/initialized` with raw requests; throws (with the response text) unless the
 * server answered 200 with a result and an `Mcp-Session-Id` header.
 */
export async function openSession(url: string, options: OpenSessionOptions = {}): Promise<McpSession> {
  const res = await postMcp(url, initializeRequest(options.protocolVersion, options.clientInfo), {
    token: options.token,
  });
  const sessionId = res.headers.get('mcp-session-id');
  if (res.status !== 200 || !res.message?.result || !sessionId) {
    throw new Error(`initialize failed: HTTP ${res.status} session=${sessionId} body=${res.text.slice(0, 500)}`);
  }
  const session = new McpSession(url, options.token, sessionId, res.message.result.protocolVersion, res.message.result);
  const ack = await session.notify('notifications/initialized');
  if (ack.status !== 202 && ack.status !== 200) {
    throw new Error(`notifications/initialized failed: HTTP ${ack.status} ${ack.text.slice(0, 300)}`);
  }
  return session;
}

/** An official SDK client connected to a gateway. */
export interface SdkConnection {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  /** Closes the client (and its transport); never throws. */
  close(): Promise<void>;
}

/**
 * Connects the official MCP TypeScript SDK client with a bearer token.
 * @example
 * const { client, close } = await connectSdkClient(gw.url, bot.token);
 * const { tools } = await client.listTools();
 */
export async function connectSdkClient(
  url: string,
  token: string,
  clientInfo = { name: 'e2e-sdk', version: '1.0.0' },
): Promise<SdkConnection> {
  const client = new Client(clientInfo, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return {
    client,
    transport,
    close: async () => {
      try {
        await client.close();
      } catch {
        /* already closed */
      }
    },
  };
}

/** The official SDK client connected as client `unit-test` 1.2.3 (audit tests read it), as {@link BOT} by default. */
export async function connectClient(url: string, token = BOT.token): Promise<Client> {
  return (await connectSdkClient(url, token, { name: 'unit-test', version: '1.2.3' })).client;
}
