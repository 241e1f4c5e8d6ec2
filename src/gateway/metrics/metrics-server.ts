import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { urlHost } from '../http/url-host';
import type { GatewayMetrics } from './gateway-metrics';

/** A listening `/metrics` endpoint of its own (config `metrics: { port }`), outside the gateway's authentication. */
export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` (and nothing else) on `host:port`. Used when the metrics setting names its own port, so
 * that a scraper needs no gateway token; keep that port off public networks.
 */
export async function startMetricsServer(
  metrics: GatewayMetrics,
  host: string,
  port: number,
  reusePort = false,
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    req.on('error', () => undefined);
    if (req.url !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found: this port serves GET /metrics\n');
      return;
    }
    metrics.exposition().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    // replicas on one host share the port as they share the gateway's (each answers with its own counts)
    server.once('error', reject).listen({ port, host, reusePort }, () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://${urlHost(host)}:${actual}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
