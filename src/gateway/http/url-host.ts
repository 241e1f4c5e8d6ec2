/**
 * The host part of a URL that reaches a server listening on `host`: a wildcard bind is reached on loopback, and an
 * IPv6 address is bracketed.
 */
export function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
