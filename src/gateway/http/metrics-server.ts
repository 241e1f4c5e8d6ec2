import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpError } from '../errors/http-error';
import type { OriginGuard } from '../auth/origin-guard';
import { urlHost } from '../auth/url-host';
import type { GatewayMetrics } from '../metrics/gateway-metrics';

/** A listening `/metrics` endpoint of its own (config `metrics: { port }`), outside the gateway's authentication. */
export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

/** How a metrics port listens besides its address. */
export interface MetricsServerOptions {
  /** Share the port with other processes (replicas on one host). @default false */
  readonly reusePort?: boolean;
  /** Refuses a foreign `Host` or `Origin` (HTTP 403), as the gateway's port does. */
  readonly guard: OriginGuard;
}

/**
 * Serves `GET /metrics` (and nothing else) on `host:port`. Used when the metrics setting names its own port, so
 * that a scraper needs no gateway token; keep that port off public networks. `Host` and `Origin` are checked like
 * the gateway's, so a DNS-rebinding page cannot read it through a browser on the same machine.
 */
export async function startMetricsServer(
  metrics: GatewayMetrics,
  host: string,
  port: number,
  options: MetricsServerOptions,
): Promise<MetricsServer> {
  const reusePort = options.reusePort === true;
  const server: Server = createServer((req, res) => {
    req.on('error', () => undefined);
    try {
      options.guard(req.headers.host, req.headers.origin);
    } catch (err) {
      const message = err instanceof HttpError ? err.message : 'Forbidden';
      res.writeHead(403, { 'content-type': 'text/plain' }).end(`${message}\n`);
      return;
    }
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
