export * from './openapi-error';
export * from './load-openapi-document';
export * from './openapi-operations';
export * from './operation-input';
export * from './operation-output';
export * from './translate-schema';
export * from './to-input-spec';
