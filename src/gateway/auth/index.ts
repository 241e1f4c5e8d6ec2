export { createAuthenticator, type Authenticator, type Principal } from './bearer-tokens';
