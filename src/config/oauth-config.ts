/**
 * The `gateway.auth.oauth` part of the gateway config document (see docs/auth.md): which authorization server issues the
 * access tokens a gateway accepts, and how they are checked. Keys are snake_case like the rest of the document;
 * the constructs' camelCase twin is `auth.oauth: { issuer, audience?, jwksUri?, scopes?, principalClaim?,
 * algorithms? }`. This file holds both the TypeScript type and its JSON Schema fragment; `gateway-config.ts` and
 * `config-schema.ts` place them at `gateway.auth.oauth` (the type-level test holds the two equal).
 */

/**
 * The asymmetric JWS algorithms a gateway may accept. Never `none`, never a symmetric (`HS*`) algorithm: the
 * gateway holds only the issuer's public keys, and accepting `HS256` would let anyone who knows a public key sign.
 */
export const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;

/** An algorithm a gateway may be configured to accept. */
export type OAuthAlgorithm = (typeof ASYMMETRIC_ALGORITHMS)[number];

/** The claim naming the caller when `principal_claim` is not set. */
export const DEFAULT_PRINCIPAL_CLAIM = 'sub';

/** The OAuth settings of a gateway (`gateway.auth.oauth`). */
export interface OAuthConfig {
  /**
   * The authorization server's issuer identifier, exactly as it appears in its metadata and in the tokens' `iss`.
   * `https://`, or `http://` on a loopback host (local development and tests).
   */
  readonly issuer: string;
  /**
   * The `aud` a token must hold.
   * @default - the gateway's resource URL (RFC 8707), e.g. `https://gateway.example.com/mcp`
   */
  readonly audience?: string;
  /**
   * Where the issuer publishes its signing keys.
   * @default - the `jwks_uri` of the issuer's metadata (`/.well-known/oauth-authorization-server`, then
   * `/.well-known/openid-configuration`)
   */
  readonly jwks_uri?: string;
  /**
   * Scopes every call needs (a tool's own `required_scopes` come on top).
   * @default []
   */
  readonly scopes?: readonly string[];
  /**
   * The claim that names the caller in the audit log, metrics and dashboard.
   * @default 'sub'
   */
  readonly principal_claim?: string;
  /**
   * The signing algorithms accepted, a subset of {@link ASYMMETRIC_ALGORITHMS}.
   * @default - the asymmetric ones the issuer advertises (`id_token_signing_alg_values_supported`), or all of
   * {@link ASYMMETRIC_ALGORITHMS} when it advertises none or `jwks_uri` is set
   */
  readonly algorithms?: readonly OAuthAlgorithm[];
  /**
   * Accept tokens whose header `typ` is `JWT` or absent, not only `at+jwt` (RFC 9068). Some identity providers
   * issue access tokens as plain JWTs; turning this on also accepts their ID tokens if their `aud` matches.
   * @default false
   */
  readonly allow_plain_jwt?: boolean;
}

/**
 * A URL the gateway fetches keys or metadata from: `https://`, or `http://` on a loopback host only, so a network
 * attacker cannot substitute keys. No query or fragment (RFC 8414 issuer identifiers have neither).
 */
export const SECURE_URL_PATTERN =
  '^(https://[^/?#\\s]+|http://(localhost|127\\.0\\.0\\.1|\\[::1\\])(:[0-9]{1,5})?)(/[^?#\\s]*)?$';

/** An OAuth scope token (RFC 6749 §3.3): printable ASCII without space, `"` or `\`. */
export const SCOPE_PATTERN = '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$';

const secureUrl = {
  type: 'string',
  pattern: SECURE_URL_PATTERN,
  'x-message': 'must be an https:// URL (http:// only on localhost, 127.0.0.1 or [::1]) without query or fragment',
};

/** A JSON Schema array of scope tokens; shared with the tools' `required_scopes` and the tokens' `scopes`. */
export const SCOPES_SCHEMA = {
  type: 'array',
  uniqueItems: true,
  'x-message': 'must be an array of distinct scope names',
  items: {
    type: 'string',
    pattern: SCOPE_PATTERN,
    'x-message': 'must be a scope name: printable ASCII without spaces, quotes or backslashes',
  },
} as const;

/**
 * The JSON Schema fragment of {@link OAuthConfig}, in the style of `GATEWAY_CONFIG_SCHEMA` (each node's
 * `x-message` is the one-line reason reported when it fails), to be placed at `gateway.auth.properties.oauth`.
 */
export const OAUTH_CONFIG_SCHEMA = {
  type: 'object',
  required: ['issuer'],
  additionalProperties: false,
  'x-message':
    'must be an object { issuer, audience?, jwks_uri?, scopes?, principal_claim?, algorithms?, allow_plain_jwt? }',
  properties: {
    issuer: secureUrl,
    audience: { type: 'string', minLength: 1, 'x-message': 'must be a non-empty string' },
    jwks_uri: secureUrl,
    scopes: SCOPES_SCHEMA,
    principal_claim: {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      'x-message': 'must be a claim name (a non-empty string)',
    },
    algorithms: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      'x-message': `must be a non-empty array of distinct algorithms from ${ASYMMETRIC_ALGORITHMS.join(', ')}`,
      items: {
        enum: [...ASYMMETRIC_ALGORITHMS],
        'x-message': `must be one of ${ASYMMETRIC_ALGORITHMS.join(', ')} (symmetric algorithms and "none" are never accepted)`,
      },
    },
    allow_plain_jwt: { type: 'boolean', 'x-message': 'must be true or false' },
  },
} as const;
