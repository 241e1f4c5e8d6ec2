/** Checks of a backend URL template (`http://crm:8080/customers/{customer_id}`) shared by config and constructs. */

const PLACEHOLDER = /\{[^{}]*\}/;
const PLACEHOLDERS = /\{[^{}]*\}/g;
const PLAIN_AUTHORITY = /^https?:\/\/[^/?#\\{}\t\n\r]+[/?#]/i;

/**
 * Whether a `{field}` placeholder stands in the scheme or authority (user info, host, port): a caller could then
 * choose where the gateway sends its request (cloud metadata, a local Docker socket, …). Judged on the text and,
 * since URL parsers are lenient (`http:/{host}/a` has a host), by filling the placeholders two ways and comparing
 * what comes before the path.
 */
export function hasPlaceholderBeforePath(url: string): boolean {
  if (!PLACEHOLDER.test(url)) return false;
  // The common form, `http(s)://host…/…{field}`: an authority free of braces, backslashes and the characters a
  // parser strips, ended by `/`, `?` or `#`. Every placeholder starts after that end, and the digits that fill it
  // cannot move it, so the fill-and-compare of the full check would find the same authority twice: skipped (it
  // parses the URL twice, a third of a large config's semantic checks).
  if (PLAIN_AUTHORITY.test(url)) return false;
  return hasPlaceholderBeforePathByParsing(url);
}

/**
 * {@link hasPlaceholderBeforePath} without its answer for the common form, for a URL with a placeholder: the text
 * before the first `/`, `?` or `#` after the scheme, then the authority parsed with the placeholders filled two ways.
 */
export function hasPlaceholderBeforePathByParsing(url: string): boolean {
  const schemeEnd = url.indexOf('://');
  const authorityStart = schemeEnd === -1 ? 0 : schemeEnd + 3;
  const pathStart = url.slice(authorityStart).search(/[/?#]/);
  if (PLACEHOLDER.test(pathStart === -1 ? url : url.slice(0, authorityStart + pathStart))) return true;
  return beforePath(url.replace(PLACEHOLDERS, '1')) !== beforePath(url.replace(PLACEHOLDERS, '2'));
}

function beforePath(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.username}:${parsed.password}@${parsed.host}`;
  } catch {
    return undefined;
  }
}

/** The URL with each placeholder replaced by `x`: host names cannot hold placeholders, so `new URL` judges the rest. */
export function withStandIns(url: string): string {
  return url.replace(PLACEHOLDERS, 'x');
}

/** The field names of the URL's `{field}` placeholders, in order. */
export function placeholderFields(url: string): string[] {
  return Array.from(url.matchAll(/\{([^{}]*)\}/g), (match) => match[1]);
}

/**
 * Whether a URL carries user info (`http://user:secret@host/`): the backend never receives it as credentials, and
 * it would sit in clear in the synthesized JSON and the config. Judged on the text (an `@` before the path) and on
 * what a parser makes of it, since parsers are lenient (`http:user@host` has a user name).
 */
export function hasUserInfo(url: string): boolean {
  if (/^[^:/?#]*:\/\/[^/?#]*@/.test(url)) return true;
  try {
    const parsed = new URL(withStandIns(url));
    return parsed.username !== '' || parsed.password !== '';
  } catch {
    return false;
  }
}

/** What every refusal of a URL with user info advises (never quoting the URL: it holds the secret). */
export const USER_INFO_ADVICE =
  'carries a user name or password before the host (user:password@host), which the backend never receives and ' +
  "which would be written in clear into the config: remove it and send credentials in a secret header (e.g. headers: { Authorization: Secret.env('CRM_AUTH') })";

/** Whether a URL template, placeholders aside, is an absolute `http:` or `https:` URL with a host. */
export function isHttpUrl(url: string): boolean {
  try {
    const parsed = new URL(withStandIns(url));
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * The names of the query parameters a URL template writes itself (`http://api/x?source=agent&q={q}` → `source`,
 * `q`), decoded as a backend reads them (`a+b` and `a%20b` are `a b`). A name holding a placeholder is not fixed.
 * A caller field of such a name would be sent twice (`?source=agent&source=x`), leaving the backend to choose.
 */
export function fixedQueryNames(url: string): string[] {
  const start = url.indexOf('?');
  if (start === -1) return [];
  const hash = url.indexOf('#', start);
  const query = url.slice(start + 1, hash === -1 ? undefined : hash);
  const names = new Set<string>();
  for (const pair of query.split('&')) {
    const equals = pair.indexOf('=');
    const name = equals === -1 ? pair : pair.slice(0, equals);
    if (name === '' || name.includes('{')) continue;
    const decoded = new URLSearchParams(`${name}=`).keys().next().value as string;
    names.add(decoded);
  }
  return [...names];
}

/** A parameter that a query-sending backend would receive under a name its URL template already fixes. */
export interface FixedQueryClash {
  /** The declared parameter (before `forwardAs`). */
  readonly param: string;
  /** The query parameter it would be sent as (after `forwardAs`), fixed in the URL. */
  readonly field: string;
}

/**
 * The first declared top-level parameter that a GET or DELETE backend would send as a query parameter the URL
 * template already fixes, or `undefined` (placeholder fields are not sent as query parameters, and other methods
 * send parameters in the body). Shared by synthesis and config loading.
 *
 * @param inputSchema the tool's input schema; its own `properties` keys are the parameters
 * @param forwardAs parameter → forwarded field renames
 */
export function fixedQueryClash(
  url: string,
  method: string,
  inputSchema: Readonly<Record<string, unknown>>,
  forwardAs: Readonly<Record<string, string>> = {},
): FixedQueryClash | undefined {
  if (method !== 'GET' && method !== 'DELETE') return undefined;
  const fixed = new Set(fixedQueryNames(url));
  if (fixed.size === 0) return undefined;
  const properties = inputSchema.properties;
  if (typeof properties !== 'object' || properties === null) return undefined;
  const placeholders = placeholderFields(url);
  for (const param of Object.keys(properties)) {
    const field = Object.hasOwn(forwardAs, param) ? forwardAs[param] : param;
    if (fixed.has(field) && !placeholders.includes(field)) return { param, field };
  }
  return undefined;
}
