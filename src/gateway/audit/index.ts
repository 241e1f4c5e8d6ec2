export * from './audit-log';
export * from './store-audit';
export { sessionDigest } from './session-digest';
export { ReplaceableAudit } from './replaceable-audit';
