export * from './backend-process';
export * from './child-processes';
export * from './dev-file';
export * from './dev-options';
export * from './dev-session';
export * from './local-gateway-config';
export * from './synthesize-app';
export * from './synthesized-gateways';
