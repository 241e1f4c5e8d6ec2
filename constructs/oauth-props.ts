/**
 * The OAuth props of a `Gateway` and a `Service` (see docs/auth.md), checked at synth and turned into the config's
 * snake_case `auth.oauth`, `scopes` and `required_scopes`.
 */
import {
  ASYMMETRIC_ALGORITHMS,
  type OAuthAlgorithm,
  type OAuthConfig,
  SCOPE_PATTERN,
  SECURE_URL_PATTERN,
} from '../src/config';
import { quote } from './docker-names';
import { checkNestedProps, type PropKeys } from './known-props';

/** A gateway's OAuth 2.1 resource-server settings: which authorization server issues the tokens it accepts. */
export interface GatewayOAuth {
  /** The issuer identifier, exactly as in its metadata and the tokens' `iss` (`https://`, `http://` only on localhost). */
  readonly issuer: string;
  /**
   * The `aud` a token must hold.
   * @default - the gateway's resource URL (`resourceUrl`)
   */
  readonly audience?: string;
  /**
   * Where the issuer publishes its keys.
   * @default - discovered from the issuer's metadata
   */
  readonly jwksUri?: string;
  /**
   * Scopes every call needs (a service's `requiredScopes` come on top).
   * @default []
   */
  readonly scopes?: readonly string[];
  /**
   * The claim naming the caller in the audit log, metrics and dashboard.
   * @default 'sub'
   */
  readonly principalClaim?: string;
  /**
   * Accepted signing algorithms (asymmetric only).
   * @default - the asymmetric ones the issuer advertises
   */
  readonly algorithms?: readonly OAuthAlgorithm[];
  /**
   * Accept access tokens whose `typ` is `JWT` or absent, not only `at+jwt`.
   * @default false
   */
  readonly allowPlainJwt?: boolean;
}

const secureUrl = new RegExp(SECURE_URL_PATTERN);
const scopeRe = new RegExp(SCOPE_PATTERN);

const OAUTH_PROPS: PropKeys<GatewayOAuth> = {
  issuer: true,
  audience: true,
  jwksUri: true,
  scopes: true,
  principalClaim: true,
  algorithms: true,
  allowPlainJwt: true,
};

/** Checks a list of scopes (`prop` names it in the error) and returns a copy. */
export function checkScopes(prop: string, scopes: unknown, fail: (m: string) => never): string[] {
  if (!Array.isArray(scopes)) return fail(`${prop} (${quote(scopes)}) must be an array of scope names`);
  scopes.forEach((s, i) => {
    if (typeof s !== 'string' || !scopeRe.test(s)) {
      fail(`${prop}[${i}] (${quote(s)}) must be a scope name: printable ASCII without spaces, quotes or backslashes`);
    }
    if (scopes.indexOf(s) !== i) fail(`${prop}[${i}] repeats scope ${quote(s)}: list each scope once`);
  });
  return [...(scopes as string[])];
}

/** Checks `auth.oauth` and returns its config twin. */
export function checkOAuth(oauth: GatewayOAuth, fail: (m: string) => never): OAuthConfig {
  if (typeof oauth !== 'object' || oauth === null) return fail(`auth.oauth (${quote(oauth)}) must be { issuer, ... }`);
  checkNestedProps(oauth, OAUTH_PROPS, 'auth.oauth', fail);
  const url = (prop: string, value: unknown): string => {
    if (typeof value !== 'string' || !secureUrl.test(value)) {
      fail(`${prop} (${quote(value)}) must be an https:// URL (http:// only on localhost) without query or fragment`);
    }
    return value as string;
  };
  const issuer = url('auth.oauth.issuer', oauth.issuer);
  if (oauth.audience !== undefined && (typeof oauth.audience !== 'string' || oauth.audience === '')) {
    fail(`auth.oauth.audience (${quote(oauth.audience)}) must be a non-empty string`);
  }
  if (oauth.principalClaim !== undefined && (typeof oauth.principalClaim !== 'string' || oauth.principalClaim === '')) {
    fail(`auth.oauth.principalClaim (${quote(oauth.principalClaim)}) must be a claim name such as 'sub'`);
  }
  if (oauth.algorithms !== undefined) {
    const algorithms: readonly string[] = Array.isArray(oauth.algorithms) ? oauth.algorithms : [];
    const bad = algorithms.find((a) => !(ASYMMETRIC_ALGORITHMS as readonly string[]).includes(a));
    if (algorithms.length === 0 || bad !== undefined) {
      fail(
        `auth.oauth.algorithms (${quote(oauth.algorithms)}) must list algorithms from ${ASYMMETRIC_ALGORITHMS.join(', ')} (never HS* or none)`,
      );
    }
  }
  if (oauth.allowPlainJwt !== undefined && typeof oauth.allowPlainJwt !== 'boolean') {
    fail(`auth.oauth.allowPlainJwt (${quote(oauth.allowPlainJwt)}) must be true or false`);
  }
  return {
    issuer,
    ...(oauth.audience !== undefined ? { audience: oauth.audience } : {}),
    ...(oauth.jwksUri !== undefined ? { jwks_uri: url('auth.oauth.jwksUri', oauth.jwksUri) } : {}),
    ...(oauth.scopes !== undefined ? { scopes: checkScopes('auth.oauth.scopes', oauth.scopes, fail) } : {}),
    ...(oauth.principalClaim !== undefined ? { principal_claim: oauth.principalClaim } : {}),
    ...(oauth.algorithms !== undefined ? { algorithms: [...oauth.algorithms] } : {}),
    ...(oauth.allowPlainJwt !== undefined ? { allow_plain_jwt: oauth.allowPlainJwt } : {}),
  };
}

/** Checks `resourceUrl` (the URL agents reach the gateway at). */
export function checkResourceUrl(resourceUrl: unknown, fail: (m: string) => never): string {
  if (typeof resourceUrl !== 'string' || !secureUrl.test(resourceUrl)) {
    fail(
      `resourceUrl (${quote(resourceUrl)}) must be the https:// URL agents reach the MCP endpoint at (http:// only on localhost), e.g. 'https://gw.example.com/mcp'`,
    );
  }
  return resourceUrl as string;
}
