/**
 * The official MCP SDK's `McpServer` (1.x) tuned for speed, for the record rows of the gateway benchmark: the
 * Streamable HTTP transport with JSON responses (no SSE framing), one transport per session, the tool's service
 * call over a keep-alive undici agent (the wiring in `sdk-session-host.ts`). The tool is the benchmark's
 * `get_customer`, its input declared with zod as SDK users do. Prints one line `{"port":N}` when listening.
 *
 * Run: `node dist/bench/sdk-server.js http://127.0.0.1:BACKEND_PORT`
 */
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { getCustomer, hostSdkSessions } from './sdk-session-host';

hostSdkSessions('sdk-server.js', async (backend, agent, onInitialized) => {
  const server = new McpServer({ name: 'bench-sdk', version: '1.0.0' });
  server.registerTool(
    'get_customer',
    {
      description: 'Look up a customer',
      inputSchema: {
        customer_id: z.string().regex(/^C-[0-9]{4}$/),
        limit: z.number().int().min(1).max(100).optional(),
        status: z.enum(['open', 'pending', 'closed']).optional(),
      },
    },
    (args) => getCustomer(backend, agent, args),
  );
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    enableJsonResponse: true,
    onsessioninitialized: onInitialized,
  });
  await server.connect(transport);
  return transport;
});
