/**
 * The benchmark backend: a node:http JSON echo on 127.0.0.1, port 0, run as its own process so it never shares
 * an event loop with the load generator or the system under test. Prints one line `{"port":N}` when listening.
 *
 * Run: `node dist/bench/echo-backend.js`
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

function main(): void {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://backend.invalid');
      const body = JSON.stringify({
        method: req.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        bytes: chunks.reduce((n, c) => n + c.length, 0),
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  });
  const stop = (): void => {
    server.close();
    server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main();
