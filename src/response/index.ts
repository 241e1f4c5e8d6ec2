export * from './redact-path';
export * from './redact';
export * from './select-fields';
export * from './advertised-output-schema';
export * from './response-rules';
export * from './shape-response';
export * from './scan-json-text';
export * from './redact-pattern';
