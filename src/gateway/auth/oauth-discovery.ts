/**
 * Authorization server metadata discovery (RFC 8414, OpenID Connect Discovery 1.0), in the order the MCP
 * authorization specification gives, keeping only what a resource server needs: the JWKS location and the
 * signing algorithms the issuer advertises.
 */
import { ASYMMETRIC_ALGORITHMS, SECURE_URL_PATTERN, type OAuthAlgorithm } from '../../config/oauth-config';
import {
  type FetchFunction,
  IssuerHttpStatusError,
  type IssuerFetchOptions,
  IssuerUnavailableError,
  fetchIssuerJson,
} from './oauth-fetch';

/** What the gateway takes from an issuer's metadata. */
export interface IssuerMetadata {
  /** The metadata's `issuer`, equal to the configured one. */
  readonly issuer: string;
  readonly jwksUri: string;
  /** The advertised asymmetric signing algorithms (`id_token_signing_alg_values_supported` ∩ the allowlist). */
  readonly algorithms: readonly OAuthAlgorithm[];
}

const secureUrl = new RegExp(SECURE_URL_PATTERN);

/**
 * The metadata URLs to try for `issuer`, in order. For an issuer with a path (`https://idp/tenant1`), RFC 8414
 * inserts the well-known segment before the path, OpenID Connect appends it; both are tried.
 */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  const origin = url.origin;
  if (path === '') {
    return [`${origin}/.well-known/oauth-authorization-server`, `${origin}/.well-known/openid-configuration`];
  }
  return [
    `${origin}/.well-known/oauth-authorization-server${path}`,
    `${origin}/.well-known/openid-configuration${path}`,
    `${origin}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * Fetches the issuer's metadata: the first well-known URL that answers 2xx is used; a non-2xx moves on to the next.
 *
 * @throws IssuerUnavailableError when none answers, a fetch fails, or the document is unusable (its `issuer` is
 * not exactly `issuer`, its `jwks_uri` is missing or not an https URL)
 */
export async function discoverIssuer(
  issuer: string,
  fetchFn: FetchFunction,
  options?: IssuerFetchOptions,
): Promise<IssuerMetadata> {
  const statuses: string[] = [];
  for (const url of metadataUrls(issuer)) {
    let doc: unknown;
    try {
      doc = await fetchIssuerJson(url, fetchFn, options);
    } catch (err) {
      if (err instanceof IssuerHttpStatusError) {
        statuses.push(`${url} answered HTTP ${err.status}`);
        continue;
      }
      throw err;
    }
    return readMetadata(issuer, url, doc);
  }
  throw new IssuerUnavailableError(`no authorization server metadata found (${statuses.join('; ')})`);
}

function readMetadata(issuer: string, url: string, doc: unknown): IssuerMetadata {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new IssuerUnavailableError(`${url}: the metadata is not a JSON object`);
  }
  const record = doc as Record<string, unknown>;
  if (record.issuer !== issuer) {
    // RFC 8414 §3.3: a mismatch means the document may be an impostor's; never use it.
    throw new IssuerUnavailableError(
      `${url}: the metadata's issuer ${quote(record.issuer)} is not ${JSON.stringify(issuer)}`,
    );
  }
  const jwksUri = record.jwks_uri;
  if (typeof jwksUri !== 'string' || !secureUrl.test(jwksUri)) {
    throw new IssuerUnavailableError(`${url}: jwks_uri ${quote(jwksUri)} is missing or not an https URL`);
  }
  const advertised = Array.isArray(record.id_token_signing_alg_values_supported)
    ? record.id_token_signing_alg_values_supported
    : [];
  const algorithms = ASYMMETRIC_ALGORITHMS.filter((alg) => advertised.includes(alg));
  return { issuer, jwksUri, algorithms };
}

function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
