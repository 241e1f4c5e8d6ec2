export * from './src/schema';
export * from './src/validation';
export * from './src/config';
export * from './src/gateway';
export * from './constructs';
