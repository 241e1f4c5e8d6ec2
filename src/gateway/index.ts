export * from './start-gateway';
export * from './log/logger';
export * from './reuse-port';
export type { AuditOutcome, AuditRecord } from './audit';
export { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from './mcp';
export {
  ConfigError,
  loadGatewayConfig,
  parseGatewayConfig,
  type GatewayConfig,
  type GatewaySettings,
  type ToolConfig,
  type TokenConfig,
} from '../config';
