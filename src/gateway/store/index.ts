export * from './shared-store';
