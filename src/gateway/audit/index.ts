export * from './audit-log';
export * from './store-audit';
