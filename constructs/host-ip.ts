import { isIP } from 'node:net';
import { quote } from './docker-names';

/** `hostIp` of a gateway or dashboard: an IP address of the Docker host, or undefined for every interface. */
export function checkHostIp(hostIp: string | undefined, fail: (m: string) => never): string | undefined {
  if (hostIp === undefined) return undefined;
  if (typeof hostIp !== 'string' || isIP(hostIp) === 0) {
    fail(
      `hostIp ${quote(hostIp)} must be an IP address of the Docker host, e.g. '127.0.0.1' (this host only) or '10.0.0.5'`,
    );
  }
  return hostIp;
}

/** The host of the output URL: localhost for every interface, else the address (IPv6 in brackets). */
export function urlHostOf(hostIp: string | undefined): string {
  if (hostIp === undefined || hostIp === '0.0.0.0' || hostIp === '::') return 'localhost';
  return isIP(hostIp) === 6 ? `[${hostIp}]` : hostIp;
}
