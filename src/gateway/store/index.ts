export * from './shared-store';
export * from './shared-revocations';
