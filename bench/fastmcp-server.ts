/**
 * FastMCP (npm `fastmcp`), for the record rows of the gateway benchmark: its HTTP stream transport with JSON
 * responses, the benchmark's `get_customer` tool declared with zod, the service call with `fetch` (keep-alive
 * through Node's global agent). Prints one line `{"port":N}` when listening.
 *
 * Run: `node dist/bench/fastmcp-server.js http://127.0.0.1:BACKEND_PORT`
 */
import { createServer } from 'node:net';
import { z } from 'zod';

/** A free port on 127.0.0.1 (FastMCP takes a port number, not 0). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function main(backend: string): Promise<void> {
  // fastmcp ships ES modules only (its CommonJS build imports ES modules too): a dynamic import.
  const { FastMCP } = await import('fastmcp');
  const server = new FastMCP({ name: 'bench-fastmcp', version: '1.0.0' });
  server.addTool({
    name: 'get_customer',
    description: 'Look up a customer',
    parameters: z.object({
      customer_id: z.string().regex(/^C-[0-9]{4}$/),
      limit: z.number().int().min(1).max(100).optional(),
      status: z.enum(['open', 'pending', 'closed']).optional(),
    }),
    execute: async ({ customer_id, limit, status }) => {
      const query = new URLSearchParams();
      if (limit !== undefined) query.append('limit', String(limit));
      if (status !== undefined) query.append('status', status);
      const res = await fetch(`${backend}/customers/${encodeURIComponent(customer_id)}?${query}`, {
        headers: { accept: 'application/json' },
      });
      const text = await res.text();
      return { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) as Record<string, unknown> };
    },
  });
  const port = await freePort();
  await server.start({
    transportType: 'httpStream',
    httpStream: { port, host: '127.0.0.1', endpoint: '/mcp', enableJsonResponse: true },
  });
  process.stdout.write(`${JSON.stringify({ port })}\n`);
  const stop = (): void => void server.stop().finally(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

const target = process.argv[2];
if (target === undefined) {
  process.stderr.write('usage: node dist/bench/fastmcp-server.js http://127.0.0.1:BACKEND_PORT\n');
  process.exitCode = 2;
} else {
  main(target).catch((err: unknown) => {
    process.stderr.write(`${String(err)}\n`);
    process.exitCode = 1;
  });
}
