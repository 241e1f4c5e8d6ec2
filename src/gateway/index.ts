export * from './errors';
export * from './parse-config';
export * from './load-config';
export * from './start-gateway';
export * from './logger';
export * from './audit-log';
export { DEFAULT_SERVICE_TIMEOUT_MS } from './service-request';
export { SUPPORTED_PROTOCOL_VERSIONS, LATEST_PROTOCOL_VERSION } from './protocol-version';
