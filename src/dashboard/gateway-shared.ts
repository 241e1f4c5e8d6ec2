/**
 * What the dashboard shares with the gateway, imported from the modules themselves rather than the gateway's
 * index: the index loads the whole gateway (ajv, the MCP pipeline), half a second of start-up the dashboard does
 * not need before it reads a million audit lines.
 */
export { ConfigError } from '../config/config-error';
export { jsonLogger, silentLogger, type Logger } from '../gateway/log/logger';
export type { AuditOutcome, AuditRecord } from '../gateway/audit/audit-log';
export { tokenHashes, matchTokenHash, MAX_PRINCIPAL_CHARS, type PrincipalKind } from '../gateway/auth/bearer-tokens';
export { bracketHost } from '../gateway/auth/url-host';
export { createOriginGuard, type OriginGuard } from '../gateway/auth/origin-guard';
