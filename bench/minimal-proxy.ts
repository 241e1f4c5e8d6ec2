/**
 * The benchmark's "practical limit": the least a Node process must do to turn an MCP `tools/call` into a service
 * call — node:http in, `JSON.parse` of the body, the `{customer_id}` placeholder filled, the other arguments as the
 * query, one GET over a keep-alive agent, the JSON answer wrapped in a JSON-RPC result. No auth, no sessions,
 * no validation, no audit. A gateway close to this is close to what Node allows on the machine.
 * Prints one line `{"port":N}` when listening.
 *
 * Run: `node dist/bench/minimal-proxy.js http://127.0.0.1:BACKEND_PORT`
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

function main(target: string): void {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const backend = new URL(target);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let message: { id?: unknown; params?: { arguments?: Record<string, unknown> } };
      try {
        message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof message;
      } catch {
        res.writeHead(400).end();
        return;
      }
      const args = message.params?.arguments ?? {};
      const query = new URLSearchParams();
      for (const [k, v] of Object.entries(args)) if (k !== 'customer_id') query.append(k, String(v));
      const path = `/customers/${encodeURIComponent(String(args.customer_id))}${query.size > 0 ? `?${query}` : ''}`;
      const out = http.request(
        {
          host: backend.hostname,
          port: backend.port,
          path,
          method: 'GET',
          agent,
          headers: { accept: 'application/json' },
        },
        (upstream) => {
          const parts: Buffer[] = [];
          upstream.on('data', (c: Buffer) => parts.push(c));
          upstream.on('end', () => {
            const text = Buffer.concat(parts).toString('utf8');
            const body = JSON.stringify({
              jsonrpc: '2.0',
              id: message.id,
              result: { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) as unknown },
            });
            res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
            res.end(body);
          });
        },
      );
      out.on('error', () => {
        if (!res.headersSent) res.writeHead(502).end();
      });
      out.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  });
  const stop = (): void => {
    server.close();
    server.closeAllConnections();
    agent.destroy();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

const target = process.argv[2];
if (target === undefined) {
  process.stderr.write('usage: node dist/bench/minimal-proxy.js http://127.0.0.1:BACKEND_PORT\n');
  process.exitCode = 2;
} else {
  main(target);
}
