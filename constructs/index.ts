export * from './service';
export * from './gateway';
export * from './manifest';
export * from './audit-dashboard';
export { ManifestError, type ManifestLocation } from './manifest-document';
export { DEFAULT_BASE_IMAGE } from './gateway-image';
