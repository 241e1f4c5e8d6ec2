/** `host` as the host part of a URL or a `Host` header: an IPv6 address bracketed (`[::1]`), anything else as is. */
export function bracketHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * The host part of a URL that reaches a server listening on `host`: a wildcard bind is reached on loopback, and an
 * IPv6 address is bracketed.
 */
export function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return bracketHost(host);
}
