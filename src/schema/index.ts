export * from './input-spec';
export * from './input-spec-error';
export * from './generate-input-schema';
export * from './tool-description';
export * from './parameter-maps';
export * from './generate-output-schema';
