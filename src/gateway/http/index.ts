export { createRequestListener, type HttpContext } from './request-listener';
export { startMetricsServer, type MetricsServer, type MetricsServerOptions } from './metrics-server';
export { createOriginGuard, isLoopback, type OriginGuard, type OriginGuardOptions } from './origin-guard';
export { handOverPort } from './hand-over';
export { ConnectionGuard, type ConnectionLimits } from './connection-guard';
export { urlHost } from './url-host';
