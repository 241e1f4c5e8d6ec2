export {
  createAuthenticator,
  type Authenticator,
  type AuthenticatorOptions,
  type Identity,
  type ProtectedResource,
} from './authenticator';
export {
  bearerToken,
  matchTokenHash,
  MAX_PRINCIPAL_CHARS,
  principalKey,
  tokenHashes,
  type Principal,
  type PrincipalKind,
  type TokenHash,
} from './bearer-tokens';
export * from './verified-cache';
export * from './oauth-challenge';
export * from '../../config/oauth-config';
export * from './oauth-discovery';
export * from './oauth-fetch';
export * from './oauth-jwks-cache';
export * from './oauth-metadata';
export * from './oauth-scopes';
export * from './oauth-verifier';
export { createOriginGuard, isLoopback, type OriginGuard, type OriginGuardOptions } from './origin-guard';
export { bracketHost, urlHost } from './url-host';
