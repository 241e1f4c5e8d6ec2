/**
 * The official MCP SDK 2.x server (`@modelcontextprotocol/server` with the `@modelcontextprotocol/node` transport)
 * tuned for speed, for the record rows of the gateway benchmark: the same wiring as the 1.x row (`sdk-server.ts`,
 * both in `sdk-session-host.ts`): Streamable HTTP with JSON responses, one transport per 2025 session, the service
 * call over a keep-alive undici agent, the tool's input declared with zod. Prints one line `{"port":N}` when
 * listening.
 *
 * Run: `node dist/bench/sdk2-server.js http://127.0.0.1:BACKEND_PORT`
 */
import { randomUUID } from 'node:crypto';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { getCustomer, hostSdkSessions } from './sdk-session-host';

hostSdkSessions('sdk2-server.js', async (backend, agent, onInitialized) => {
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
    (args) => getCustomer(backend, agent, args),
  );
  const transport = new NodeStreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    enableJsonResponse: true,
    onsessioninitialized: onInitialized,
  });
  await server.connect(transport);
  return transport;
});
