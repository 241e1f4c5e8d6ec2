export { createRequestListener, type HttpContext } from './request-listener';
export { startMetricsServer, type MetricsServer, type MetricsServerOptions } from './metrics-server';
export { handOverPort } from './hand-over';
export { ConnectionGuard, type ConnectionLimits } from './connection-guard';
