import { createHash } from 'node:crypto';
import { createServer, request as nodeRequest, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { GatewayConfig, ToolConfig } from '../../../src/config';
import { silentLogger, startGateway, type RunningGateway, type StartGatewayOptions } from '../../../src/gateway';

export const TOKEN = 'test-token-1';
export const OTHER_TOKEN = 'test-token-2';
export const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/** What the fake service received. */
export interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** A node:http service on an ephemeral port that records requests and answers with `respond`. */
export interface FakeService {
  readonly origin: string;
  readonly received: Received[];
  respond: (req: Received) => { status?: number; type?: string; body?: string; delayMs?: number; headers?: Record<string, string> };
  close(): Promise<void>;
}

export async function startFakeService(): Promise<FakeService> {
  const received: Received[] = [];
  const service: FakeService = {
    origin: '',
    received,
    respond: (req) => ({ body: JSON.stringify({ method: req.method, url: req.url, body: req.body }) }),
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() };
      received.push(r);
      const answer = service.respond(r);
      const send = (): void => {
        if (res.destroyed) return;
        res.writeHead(answer.status ?? 200, { 'content-type': answer.type ?? 'application/json', ...answer.headers }).end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (service as { origin: string }).origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  service.close = () => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return service;
}

/** A tool of the fake service. */
export function tool(origin: string, name: string, path: string, schema: Record<string, unknown>, extra: Partial<ToolConfig> = {}): ToolConfig {
  return {
    name,
    description: `The ${name} tool`,
    input_schema: schema,
    backend: { url: `${origin}${path}`, method: 'GET' },
    ...extra,
  };
}

export function config(tools: readonly ToolConfig[], gateway: Partial<GatewayConfig['gateway']> = {}): GatewayConfig {
  return {
    version: 1,
    gateway: {
      name: 'test',
      auth: { tokens: [{ id: 'bot', sha256: sha256(TOKEN) }, { id: 'other', sha256: sha256(OTHER_TOKEN) }] },
      audit_log: false,
      ...gateway,
    },
    tools,
  };
}

export function start(cfg: GatewayConfig, options: Partial<StartGatewayOptions> = {}): Promise<RunningGateway> {
  return startGateway({ config: cfg, port: 0, host: '127.0.0.1', logger: silentLogger, ...options });
}

/** An official SDK client connected to the gateway. */
export async function connect(url: string, token = TOKEN): Promise<Client> {
  const client = new Client({ name: 'unit-test', version: '1.2.3' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** Retries `check` until it passes or `timeoutMs` is over (for what happens on another connection). */
export async function eventually(check: () => Promise<void> | void, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** Calls a tool over a raw session and returns the JSON-RPC response. */
export async function rawCall(url: string, session: string, name: string, args?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const params = args === undefined ? { name } : { name, arguments: args };
  const res = await post(url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params }, { 'mcp-session-id': session, ...headers });
  return res.json;
}

/** Raw JSON-RPC over fetch, for what the SDK client does not let a test control. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; json: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}`, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text === '' ? undefined : JSON.parse(text) };
}

/** Opens a session by hand; returns its id. */
export async function initialize(url: string, protocolVersion = '2025-06-18', token = TOKEN): Promise<string> {
  const res = await post(url, {
    jsonrpc: '2.0', id: 0, method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '0.1' } },
  }, { authorization: `Bearer ${token}` });
  return res.headers.get('mcp-session-id')!;
}

/** A request by node:http, which lets a test set any header (Host included) and send any body. */
export function httpRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string; json: any }> {
  return new Promise((resolve, reject) => {
    const req = nodeRequest(url, { method: options.method ?? 'POST', headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        let json: unknown;
        try {
          json = body === '' ? undefined : JSON.parse(body);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode!, headers: res.headers, body, json });
      });
    });
    req.on('error', reject);
    req.setTimeout(5000, () => req.destroy(new Error('timed out')));
    req.end(options.body);
  });
}
