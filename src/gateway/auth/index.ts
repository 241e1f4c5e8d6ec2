export {
  createAuthenticator,
  matchTokenHash,
  tokenHashes,
  type Authenticator,
  type Principal,
  type TokenHash,
} from './bearer-tokens';
export * from './oauth-challenge';
export * from './oauth-config';
export * from './oauth-discovery';
export * from './oauth-fetch';
export * from './oauth-jwks-cache';
export * from './oauth-metadata';
export * from './oauth-scopes';
export * from './oauth-verifier';
