/**
 * Checks OAuth 2.1 access tokens (JWT, RFC 9068) for a gateway acting as a resource server (see docs/auth.md): the
 * signature against the issuer's cached JWKS, an asymmetric algorithm allowlist, `typ`, `iss`, `aud`, `exp` and
 * `nbf` (60 s skew), then reads who is calling and with which scopes.
 */
import type { JWTPayload, JWTVerifyResult, ProtectedHeaderParameters } from 'jose' with { 'resolution-mode': 'import' };
import { type Logger, silentLogger } from '../log/logger';
import {
  ASYMMETRIC_ALGORITHMS,
  DEFAULT_PRINCIPAL_CLAIM,
  type OAuthAlgorithm,
  type OAuthConfig,
} from '../../config/oauth-config';
import { MAX_PRINCIPAL_CHARS } from './bearer-tokens';
import { discoverIssuer, type IssuerMetadata } from './oauth-discovery';
import { type FetchFunction, IssuerUnavailableError } from './oauth-fetch';
import { JwksCache, NoMatchingKeyError } from './oauth-jwks-cache';
import { loadJose } from './oauth-jose';

/** The most clock skew tolerated on `exp`, `nbf` and `iat`, in seconds (see docs/auth.md). */
export const CLOCK_SKEW_SECONDS = 60;

/** Tokens longer than this are refused before any parsing (Node's whole header block is 16 KiB by default). */
export const MAX_TOKEN_CHARS = 16 * 1024;

/** Who is calling, read from a verified token. */
export interface OAuthCaller {
  /** The `principal_claim` (default `sub`): the principal in the audit log, metrics and dashboard. */
  readonly principal: string;
  /** `client_id` (RFC 9068), else `azp`, else `null`. */
  readonly client: string | null;
  /** The token's scopes: `scope` (space-separated, RFC 9068), or `scp` (a list, as some providers issue). */
  readonly scopes: ReadonlySet<string>;
  /** The token's `exp`, in milliseconds since the epoch: streams it opened close then. */
  readonly expiresAtMs: number;
}

/**
 * A token that cannot be accepted. `error` and `description` go to the agent in `WWW-Authenticate` (RFC 6750
 * §3.1); the description is written by this module, never copied from the token, and holds no stack or token.
 */
export class OAuthTokenError extends Error {
  readonly error = 'invalid_token' as const;
  constructor(readonly description: string) {
    super(description);
    this.name = 'OAuthTokenError';
  }
}

/** What a gateway needs besides its config to check tokens. */
export interface OAuthVerifierOptions {
  /** The gateway's resource URL (e.g. `https://gw.example.com/mcp`); the expected `aud` unless `audience` is set. */
  readonly resourceUrl: string;
  /** @default globalThis.fetch */
  readonly fetch?: FetchFunction;
  /** Receives one line when the issuer cannot be reached and one when it is back. @default - silent */
  readonly logger?: Logger;
  /** Milliseconds since the epoch; tests move it. @default Date.now */
  readonly now?: () => number;
  /** Least time between two JWKS fetches caused by an unknown `kid`. @default 60000 */
  readonly unknownKidCooldownMs?: number;
  /** Least time between a failed load of the issuer's metadata or keys and the next attempt. @default 5000 */
  readonly retryAfterFailureMs?: number;
  /** A key set older than this is fetched again before use. @default 600000 */
  readonly jwksMaxAgeMs?: number;
}

/** Checks access tokens for one gateway. */
export interface OAuthVerifier {
  /** The configured issuer (for `authorization_servers` in the protected-resource metadata). */
  readonly issuer: string;
  /** The `aud` a token must hold. */
  readonly audience: string;
  /**
   * Verifies a bearer token (without the `Bearer ` prefix).
   * @throws OAuthTokenError (`invalid_token`) when it cannot be accepted, including when the issuer is unreachable
   */
  verify(token: string): Promise<OAuthCaller>;
  /** Discovers the issuer and loads its keys now (at start-up) instead of at the first token; never throws. */
  warm(): Promise<void>;
}

const KNOWN_ALGORITHM_NAMES = new Set<string>([...ASYMMETRIC_ALGORITHMS, 'HS256', 'HS384', 'HS512', 'none']);
// Three base64url segments; the signature may be empty (as in `alg: none`), which the algorithm check refuses.
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const UNAVAILABLE = 'the authorization server is unavailable, so the token cannot be checked; try again later';

/**
 * Creates the token verifier of a gateway. Nothing is fetched until the first token (or {@link OAuthVerifier.warm}).
 *
 * @param config the `gateway.auth.oauth` settings (already validated against `OAUTH_CONFIG_SCHEMA`)
 * @param options the resource URL and, for tests, fetch, clock and logger
 * @example
 * const verifier = createOAuthVerifier({ issuer: 'https://idp.example.com' }, { resourceUrl: 'https://gw.example.com/mcp' });
 * const caller = await verifier.verify(token); // { principal, client, scopes }
 */
// eslint-disable-next-line max-lines-per-function -- one factory of closures over the discovery and key caches
export function createOAuthVerifier(config: OAuthConfig, options: OAuthVerifierOptions): OAuthVerifier {
  // Compared as given: `new URL()` would add a `/` to a bare origin, and `aud` is matched character for character.
  if (!URL.canParse(options.resourceUrl))
    throw new TypeError(`resourceUrl ${JSON.stringify(options.resourceUrl)} is not a URL`);
  const audience = config.audience ?? options.resourceUrl;
  const fetchFn = options.fetch ?? globalThis.fetch;
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const principalClaim = config.principal_claim ?? DEFAULT_PRINCIPAL_CLAIM;
  let metadata: IssuerMetadata | undefined;
  let failing = false;

  const keys = new JwksCache({
    locate: async () => {
      if (config.jwks_uri !== undefined) return config.jwks_uri;
      metadata ??= await discoverIssuer(config.issuer, fetchFn);
      return metadata.jwksUri;
    },
    fetch: fetchFn,
    now,
    unknownKidCooldownMs: options.unknownKidCooldownMs,
    retryAfterFailureMs: options.retryAfterFailureMs,
    maxAgeMs: options.jwksMaxAgeMs,
    onLoad: (failure) => {
      if (failure !== undefined) {
        failing = true;
        logger('warn', "oauth: cannot load the authorization server's keys; tokens are refused until it answers", {
          issuer: config.issuer,
          reason: failure,
        });
      } else if (failing) {
        failing = false;
        logger('info', 'oauth: the authorization server answers again', { issuer: config.issuer });
      }
    },
  });

  const algorithms = (): readonly OAuthAlgorithm[] => {
    if (config.algorithms !== undefined) return config.algorithms;
    if (metadata !== undefined && metadata.algorithms.length > 0) return metadata.algorithms;
    return ASYMMETRIC_ALGORITHMS;
  };

  async function verify(token: string): Promise<OAuthCaller> {
    if (token.length > MAX_TOKEN_CHARS) throw new OAuthTokenError('the token is too long');
    if (!COMPACT_JWS.test(token)) throw new OAuthTokenError('the token is not a signed JWT');
    const jose = await loadJose();
    let header: ProtectedHeaderParameters;
    try {
      header = jose.decodeProtectedHeader(token);
    } catch {
      throw new OAuthTokenError('the token is not a signed JWT');
    }
    checkType(header, config.allow_plain_jwt === true);
    // Before any key lookup: an algorithm outside the allowlist never reaches the key set or a refetch.
    checkAlgorithm(header, algorithms());
    let result: JWTVerifyResult;
    try {
      // Loading the keys discovers the issuer, and with it the algorithms it advertises.
      await keys.ready();
      const allowed = algorithms();
      checkAlgorithm(header, allowed);
      const key = await keys.keyFor(header);
      result = await jose.jwtVerify(token, key, {
        issuer: config.issuer,
        audience,
        algorithms: [...allowed],
        clockTolerance: CLOCK_SKEW_SECONDS,
        currentDate: new Date(now()),
        requiredClaims: ['exp'],
      });
    } catch (err) {
      throw toTokenError(err, jose.errors);
    }
    // jose checks `iat` only against a maximum age; a token minted in the future is refused here.
    const iat = result.payload.iat;
    if (typeof iat === 'number' && iat > now() / 1000 + CLOCK_SKEW_SECONDS) {
      throw new OAuthTokenError('the token was issued in the future (iat)');
    }
    return caller(result.payload, principalClaim);
  }

  return {
    issuer: config.issuer,
    audience,
    verify,
    warm: () => keys.warm(),
  };
}

function checkAlgorithm(header: ProtectedHeaderParameters, allowed: readonly string[]): void {
  if (typeof header.alg === 'string' && allowed.includes(header.alg)) return;
  const named = typeof header.alg === 'string' && KNOWN_ALGORITHM_NAMES.has(header.alg) ? ` ${header.alg}` : '';
  throw new OAuthTokenError(`the token's signing algorithm${named} is not accepted`);
}

/** RFC 9068 §4: `typ` must be `at+jwt` (`application/at+jwt`); plain JWTs only when the config allows them. */
function checkType(header: ProtectedHeaderParameters, allowPlainJwt: boolean): void {
  const typ = typeof header.typ === 'string' ? header.typ.toLowerCase().replace(/^application\//, '') : header.typ;
  if (typ === 'at+jwt') return;
  if (allowPlainJwt && (typ === undefined || typ === 'jwt')) return;
  throw new OAuthTokenError(
    allowPlainJwt
      ? 'the token is not a JWT access token (typ must be "at+jwt", "JWT" or absent)'
      : 'the token is not a JWT access token (typ must be "at+jwt")',
  );
}

function caller(payload: JWTPayload, principalClaim: string): OAuthCaller {
  const principal = ownString(payload, principalClaim);
  if (principal === undefined) throw new OAuthTokenError(`the token has no ${JSON.stringify(principalClaim)} claim`);
  // It goes into session ids, stream and revocation keys, audit and dashboard: bounded here, before any of them.
  if (principal.length > MAX_PRINCIPAL_CHARS) throw new OAuthTokenError("the token's subject is too long");
  const client = ownString(payload, 'client_id') ?? ownString(payload, 'azp') ?? null;
  // jose required `exp` and checked that it is a number.
  return { principal, client, scopes: scopesOf(payload), expiresAtMs: (payload.exp as number) * 1000 };
}

function ownString(payload: JWTPayload, claim: string): string | undefined {
  if (!Object.prototype.hasOwnProperty.call(payload, claim)) return undefined;
  const value = payload[claim];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function scopesOf(payload: JWTPayload): ReadonlySet<string> {
  const scope = ownString(payload, 'scope');
  if (scope !== undefined) return new Set(scope.split(' ').filter((s) => s !== ''));
  const scp = Object.prototype.hasOwnProperty.call(payload, 'scp') ? payload.scp : undefined;
  if (typeof scp === 'string') return new Set(scp.split(' ').filter((s) => s !== ''));
  if (Array.isArray(scp)) return new Set(scp.filter((s): s is string => typeof s === 'string' && s !== ''));
  return new Set();
}

type JoseErrors = Awaited<ReturnType<typeof loadJose>>['errors'];

/** Maps whatever went wrong to a description safe to show the agent. */
function toTokenError(err: unknown, errors: JoseErrors): OAuthTokenError {
  if (err instanceof OAuthTokenError) return err;
  if (err instanceof IssuerUnavailableError) return new OAuthTokenError(UNAVAILABLE);
  if (err instanceof NoMatchingKeyError) return new OAuthTokenError(err.message);
  if (err instanceof errors.JWTExpired) return new OAuthTokenError('the token has expired');
  if (err instanceof errors.JWTClaimValidationFailed) return new OAuthTokenError(claimProblem(err.claim));
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return new OAuthTokenError('the token signature is invalid');
  if (err instanceof errors.JOSEAlgNotAllowed)
    return new OAuthTokenError("the token's signing algorithm is not accepted");
  if (err instanceof errors.JWTInvalid || err instanceof errors.JWSInvalid) {
    return new OAuthTokenError('the token is not a valid JWT');
  }
  return new OAuthTokenError('the token could not be verified');
}

function claimProblem(claim: string): string {
  switch (claim) {
    case 'nbf':
      return 'the token is not valid yet (nbf)';
    case 'iss':
      return 'the token was issued by another issuer (iss)';
    case 'aud':
      return 'the token is meant for another resource (aud)';
    case 'exp':
      return 'the token has no valid expiry (exp)';
    case 'iat':
      return "the token's iat claim is invalid";
    default:
      return "the token's claims are invalid";
  }
}
