export * from './audit-log';
