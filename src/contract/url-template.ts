/** Checks of a backend URL template (`http://crm:8080/customers/{customer_id}`) shared by config and constructs. */

const PLACEHOLDER = /\{[^{}]*\}/;
const PLACEHOLDERS = /\{[^{}]*\}/g;

/**
 * Whether a `{field}` placeholder stands in the scheme or authority (user info, host, port): a caller could then
 * choose where the gateway sends its request (cloud metadata, a local Docker socket, …). Judged on the text and,
 * since URL parsers are lenient (`http:/{host}/a` has a host), by filling the placeholders two ways and comparing
 * what comes before the path.
 */
export function hasPlaceholderBeforePath(url: string): boolean {
  if (!PLACEHOLDER.test(url)) return false;
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

/** Whether a URL template, placeholders aside, is an absolute `http:` or `https:` URL with a host. */
export function isHttpUrl(url: string): boolean {
  try {
    const parsed = new URL(withStandIns(url));
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== '';
  } catch {
    return false;
  }
}
