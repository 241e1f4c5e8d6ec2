export * from './limit-rules';
export * from './rate-limiter';
export * from './limit-refusal';
