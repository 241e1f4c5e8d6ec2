export * from './http/http-error';
export * from '../contract/parse-config';
export * from '../contract/load-config';
export * from './start-gateway';
export * from './logger';
export * from './audit/audit-log';
export { DEFAULT_SERVICE_TIMEOUT_MS } from './upstream/request-plan';
export { SUPPORTED_PROTOCOL_VERSIONS, LATEST_PROTOCOL_VERSION } from './mcp/protocol-version';
