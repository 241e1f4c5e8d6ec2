export * from './src/gateway';
