export * from './support-desk-store';
export * from './support-desk-backend';
