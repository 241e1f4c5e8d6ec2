export * from './constructs';
export * from './src/schema/input-spec';
export { InputSpecError } from './src/schema/input-spec-error';
export { generateInputSchema } from './src/schema/generate-input-schema';
export type { BackendMethod, ValidationErrorsChannel } from './src/config';
