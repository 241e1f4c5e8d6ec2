export * from './src/schema';
export * from './src/validation';
export * from './src/contract';
export * from './src/gateway';
export * from './constructs';
