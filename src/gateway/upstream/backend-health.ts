/**
 * Whether this gateway process can reach its backends, for `/readyz`: a replica that cannot (a node cut off from
 * them) reports not ready, so the load balancer sends its calls to a replica that can. Calls tell it first:
 * after `FAILURES_BEFORE_PROBE` calls in a row that could not connect, it tries a TCP connection to every backend;
 * only when none connects is the process not ready, and it tries again every second until one does. A backend
 * that is down for everyone leaves the process ready (its calls get their `Service unavailable` error anywhere).
 * At start it is not ready until its backends' host names have resolved (or {@link RESOLVE_WAIT_MS} has passed), so
 * a process whose resolver stalls (a DNS pod lost with its node) gets no calls that would wait on it.
 */
import { connect } from 'node:net';
import type { Logger } from '../log/logger';

/** Calls in a row that could not connect before the backends are probed. */
const FAILURES_BEFORE_PROBE = 5;
const PROBE_INTERVAL_MS = 1_000;
const CONNECT_TIMEOUT_MS = 1_000;
/** The longest a start waits for its backends' names before reporting ready anyway (calls then wait for them). */
export const RESOLVE_WAIT_MS = 10_000;

/** What {@link BackendHealth} says of the process, `/readyz`'s status when it is not `ok`. */
export type BackendStatus = 'ok' | 'resolving_backends' | 'backends_unreachable';

/** A backend's host and port. */
export interface BackendOrigin {
  readonly host: string;
  readonly port: number;
}

/** The distinct origins of backend URLs (whose host and port never hold placeholders). */
export function backendOrigins(urls: Iterable<string>): BackendOrigin[] {
  const seen = new Map<string, BackendOrigin>();
  const authorities = new Set<string>();
  for (const url of urls) {
    const match = /^(https?):\/\/([^/?#]+)/i.exec(url);
    if (match === null || authorities.has(match[0])) continue;
    authorities.add(match[0]);
    const parsed = new URL(`${match[1]}://${match[2]}`);
    const port = parsed.port === '' ? (match[1].toLowerCase() === 'https' ? 443 : 80) : Number(parsed.port);
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    seen.set(`${host} ${port}`, { host, port });
  }
  return [...seen.values()];
}

export class BackendHealth {
  private failures = 0;
  private unreachable = false;
  private probing = false;
  private timer: NodeJS.Timeout | undefined;
  private resolving: NodeJS.Timeout | undefined;

  constructor(
    private origins: () => readonly BackendOrigin[],
    private readonly log: Logger,
  ) {}

  /** `ok` unless the backends' names are still resolving at start, or no backend is reachable. */
  get status(): BackendStatus {
    if (this.unreachable) return 'backends_unreachable';
    return this.resolving === undefined ? 'ok' : 'resolving_backends';
  }

  /**
   * Looks up every backend's host name with `resolve`; the status is `resolving_backends` until all have settled
   * (resolved or failed: a name that does not resolve fails its calls anywhere) or `waitMs` passed.
   * @param waitMs the longest it reports `resolving_backends` @default RESOLVE_WAIT_MS
   */
  resolveNames(resolve: (host: string) => Promise<void>, waitMs = RESOLVE_WAIT_MS): void {
    const hosts = new Set(this.origins().map((o) => o.host));
    if (hosts.size === 0) return;
    const timer = setTimeout(() => this.resolved(timer, waitMs), waitMs);
    timer.unref();
    this.resolving = timer;
    void Promise.all([...hosts].map(resolve)).then(() => this.resolved(timer));
  }

  /** Ends the start's wait for names; `waitedMs` when it ended by timing out. */
  private resolved(timer: NodeJS.Timeout, waitedMs?: number): void {
    if (this.resolving !== timer) return;
    clearTimeout(timer);
    this.resolving = undefined;
    if (waitedMs !== undefined) {
      this.log('warn', 'backend names still resolving: ready without them', { wait_ms: waitedMs });
    }
  }

  /** One call's outcome: `connected` unless the call could not connect to its backend. */
  record(connected: boolean): void {
    if (connected) {
      this.failures = 0;
      return;
    }
    if (++this.failures >= FAILURES_BEFORE_PROBE && !this.probing && !this.unreachable) void this.check();
  }

  close(): void {
    clearTimeout(this.timer);
    clearTimeout(this.resolving);
  }

  private async check(): Promise<void> {
    this.probing = true;
    const reached = await anyConnects(this.origins());
    this.probing = false;
    this.failures = 0;
    if (reached && this.unreachable) {
      this.unreachable = false;
      this.log('info', 'backends reachable again: ready', {});
    } else if (!reached) {
      if (!this.unreachable) this.log('warn', 'no backend reachable: not ready until one is', {});
      this.unreachable = true;
      this.timer = setTimeout(() => void this.check(), PROBE_INTERVAL_MS);
      this.timer.unref();
    }
  }
}

/** Whether a TCP connection to any of `origins` opens within the timeout. */
function anyConnects(origins: readonly BackendOrigin[]): Promise<boolean> {
  if (origins.length === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    let left = origins.length;
    for (const { host, port } of origins) {
      const socket = connect({ host, port, timeout: CONNECT_TIMEOUT_MS });
      const done = (ok: boolean) => {
        socket.destroy();
        if (ok) resolve(true);
        else if (--left === 0) resolve(false);
      };
      socket.once('connect', () => done(true));
      socket.once('timeout', () => done(false));
      socket.once('error', () => done(false));
    }
  });
}
