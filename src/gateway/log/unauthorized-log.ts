import type { Logger } from './logger';

/** The record of a request refused with HTTP 401, the first of its window. */
export const UNAUTHORIZED_REFUSED = 'request refused: no valid bearer token';

/** The record counting the rest of a window's 401s. */
export const UNAUTHORIZED_MORE = 'more requests refused: no valid bearer token';

/** How long one logged 401 stands for those after it. */
export const UNAUTHORIZED_WINDOW_MS = 60_000;

/**
 * Logs requests refused for want of a valid bearer token (an agent holding the wrong token, an expired one, a scan)
 * without letting them flood the log: the first after a quiet window is logged at once, with why and from where; the
 * others of the window as one count at its end. Never the token.
 */
export class UnauthorizedLog {
  private windowEnds = Number.NEGATIVE_INFINITY;
  private more = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: Logger,
    private readonly windowMs = UNAUTHORIZED_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * @param reason the refusal's message (`Unauthorized: …`), which names no token
   * @param path the request's path
   * @param remote the client's address
   */
  record(reason: string, path: string, remote: string | undefined): void {
    const now = this.now();
    if (now >= this.windowEnds) {
      this.flush();
      this.windowEnds = now + this.windowMs;
      this.log('warn', UNAUTHORIZED_REFUSED, { reason, path, remote });
      return;
    }
    if (this.more++ === 0) {
      this.timer = setTimeout(() => this.flush(), this.windowEnds - now);
      this.timer.unref();
    }
  }

  /** Logs the count of the window so far, if any (at the window's end, and when the gateway stops). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.more === 0) return;
    this.log('warn', UNAUTHORIZED_MORE, { count: this.more, window_s: this.windowMs / 1000 });
    this.more = 0;
  }
}
