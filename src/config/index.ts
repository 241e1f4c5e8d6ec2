export * from './gateway-config';
