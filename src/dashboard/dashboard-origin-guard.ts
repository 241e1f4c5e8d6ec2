import { DashboardError } from './dashboard-error';
import { createOriginGuard } from './gateway-shared';

/** Refuses a request whose `Host` or `Origin` is foreign (HTTP 403). */
export type DashboardGuard = (host: string | undefined, origin: string | undefined) => void;

/**
 * The dashboard's DNS-rebinding protection, the gateway's rule: bound to loopback it answers only localhost names
 * (`Host: attacker.example` is refused even without authentication, so a rebinding page cannot read it), and a
 * browser `Origin` is accepted only when it is the dashboard's own (the page's fetches) or, on loopback, a
 * localhost origin. Checked before anything else, `/healthz` included.
 * @example
 * const guard = dashboardGuard('127.0.0.1');
 * guard('attacker.example:8090', undefined); // throws DashboardError 403
 */
export function dashboardGuard(listenHost: string): DashboardGuard {
  const guard = createOriginGuard({ listenHost });
  return (host, origin) => {
    const own =
      origin !== undefined &&
      host !== undefined &&
      (origin.toLowerCase() === `http://${host.toLowerCase()}` ||
        origin.toLowerCase() === `https://${host.toLowerCase()}`);
    try {
      guard(host, own ? undefined : origin);
    } catch (err) {
      throw new DashboardError(403, (err as Error).message);
    }
  };
}
