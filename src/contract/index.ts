export * from './gateway-config';
export * from './deployment';
