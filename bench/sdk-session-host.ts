/**
 * What the SDK rows of the gateway benchmark share (`sdk-server.ts` for 1.x, `sdk2-server.ts` for 2.x): the tool's
 * service call, and node:http serving one Streamable HTTP transport per 2025 session over a keep-alive undici agent.
 * Only the server and its transport differ between the two SDKs.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';

/** What the host needs of an SDK's Streamable HTTP server transport (1.x and 2.x have the same shape). */
export interface SessionTransport {
  handleRequest(req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<void>;
}

/** The benchmark's `get_customer` arguments, as the tool's zod schema has checked them. */
export interface CustomerArgs {
  readonly customer_id: string;
  readonly limit?: number;
  readonly status?: string;
}

/** The service call of `get_customer` (the same placeholder and query as the minimal proxy), as a tool result. */
export async function getCustomer(backend: string, agent: Agent, { customer_id, limit, status }: CustomerArgs) {
  const query = new URLSearchParams();
  if (limit !== undefined) query.append('limit', String(limit));
  if (status !== undefined) query.append('status', status);
  const res = await request(`${backend}/customers/${encodeURIComponent(customer_id)}?${query}`, {
    dispatcher: agent,
    headers: { accept: 'application/json' },
  });
  const text = await res.body.text();
  return {
    content: [{ type: 'text' as const, text }],
    structuredContent: JSON.parse(text) as Record<string, unknown>,
  };
}

/**
 * Runs the host for the backend URL in `process.argv[2]`: an `initialize` without a session id opens a session
 * (`openSession` makes its transport, JSON responses, connected to a new server), other requests go to their
 * session's transport. Prints one line `{"port":N}` when listening.
 * @param script the built file, for the usage line
 * @param openSession the transport of a new session, connected; it reports the session id to `onInitialized`
 */
export function hostSdkSessions<T extends SessionTransport>(
  script: string,
  openSession: (backend: string, agent: Agent, onInitialized: (id: string) => void) => Promise<T>,
): void {
  const backend = process.argv[2];
  if (backend === undefined) {
    process.stderr.write(`usage: node dist/bench/${script} http://127.0.0.1:BACKEND_PORT\n`);
    process.exitCode = 2;
    return;
  }
  const agent = new Agent({ keepAliveTimeout: 60_000, connections: 256 });
  const transports = new Map<string, T>();
  const httpServer = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        let body: unknown;
        try {
          body = chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          res.writeHead(400).end();
          return;
        }
        const id = req.headers['mcp-session-id'];
        let transport = typeof id === 'string' ? transports.get(id) : undefined;
        if (transport === undefined && isInitialize(body)) {
          const opened: T = await openSession(backend, agent, (sid) => void transports.set(sid, opened));
          transport = opened;
        }
        if (transport === undefined) {
          res.writeHead(404).end();
          return;
        }
        await transport.handleRequest(req, res, body);
      })().catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
  });
  httpServer.keepAliveTimeout = 60_000;
  httpServer.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: (httpServer.address() as AddressInfo).port })}\n`);
  });
  const stop = (): void => {
    httpServer.close();
    httpServer.closeAllConnections();
    void agent.close();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** An `initialize` request (the start of a 2025 session). */
function isInitialize(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'initialize';
}
