/**
 * The official MCP SDK 2.x server (`@modelcontextprotocol/server` with the `@modelcontextprotocol/node` transport)
 * tuned for speed, for the record rows of the gateway benchmark: the same wiring as `sdk-server.ts` (1.x) —
 * Streamable HTTP with JSON responses, one transport per 2025 session, the service call over a keep-alive undici
 * agent, the tool's input declared with zod. Prints one line `{"port":N}` when listening.
 *
 * Run: `node dist/bench/sdk2-server.js http://127.0.0.1:BACKEND_PORT`
 */
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { McpServer } from '@modelcontextprotocol/server';
import { Agent, request } from 'undici';
import { z } from 'zod';

function newServer(backend: string, agent: Agent): McpServer {
  const server = new McpServer({ name: 'bench-sdk2', version: '1.0.0' });
  server.registerTool(
    'get_customer',
    {
      description: 'Look up a customer',
      inputSchema: z.object({
        customer_id: z.string().regex(/^C-[0-9]{4}$/),
        limit: z.number().int().min(1).max(100).optional(),
        status: z.enum(['open', 'pending', 'closed']).optional(),
      }),
    },
    async ({ customer_id, limit, status }) => {
      const query = new URLSearchParams();
      if (limit !== undefined) query.append('limit', String(limit));
      if (status !== undefined) query.append('status', status);
      const res = await request(`${backend}/customers/${encodeURIComponent(customer_id)}?${query}`, {
        dispatcher: agent,
        headers: { accept: 'application/json' },
      });
      const text = await res.body.text();
      return { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) as Record<string, unknown> };
    },
  );
  return server;
}

/** An `initialize` request (the start of a 2025 session). */
function isInitialize(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'initialize';
}

function main(backend: string): void {
  const agent = new Agent({ keepAliveTimeout: 60_000, connections: 256 });
  const transports = new Map<string, NodeStreamableHTTPServerTransport>();
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
          transport = new NodeStreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            enableJsonResponse: true,
            onsessioninitialized: (sid) => void transports.set(sid, transport!),
          });
          await newServer(backend, agent).connect(transport);
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

const target = process.argv[2];
if (target === undefined) {
  process.stderr.write('usage: node dist/bench/sdk2-server.js http://127.0.0.1:BACKEND_PORT\n');
  process.exitCode = 2;
} else {
  main(target);
}
