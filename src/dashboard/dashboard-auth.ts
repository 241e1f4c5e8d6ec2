import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { DashboardError } from './dashboard-error';
import { matchTokenHash, tokenHashes } from './gateway-shared';
import type { DashboardSettings } from './dashboard-settings';

/** The session cookie a browser gets for `/?token=…`. */
export const SESSION_COOKIE = 'mcp_dashboard_session';
/** How long a browser session lasts, in ms. */
export const SESSION_MS = 12 * 60 * 60 * 1000;

const UNAUTHORIZED = new DashboardError(
  401,
  'Unauthorized: send Authorization: Bearer <token>, or open the page once as /?token=<token>',
  { 'WWW-Authenticate': 'Bearer' },
);

/**
 * Who may read the dashboard. Tokens are known only by their SHA-256; a presented token's hash is compared with
 * every configured hash with `timingSafeEqual`, without stopping at a match (as the gateway does). A browser
 * trades a token once (`/?token=`) for a session cookie: an expiry signed with a key that lives only in this
 * process, so no session table grows and a restart ends every session.
 */
export class DashboardAuth {
  private readonly hashes: ReturnType<typeof tokenHashes>;
  private readonly key = randomBytes(32);

  constructor(
    auth: DashboardSettings['auth'],
    private readonly now: () => number = Date.now,
  ) {
    this.hashes = auth === undefined || auth === 'none' ? [] : tokenHashes(auth.tokens);
  }

  /** Whether requests must authenticate (some token is configured). */
  get required(): boolean {
    return this.hashes.length > 0;
  }

  /** Whether `token` is one of the configured tokens. */
  isValidToken(token: string): boolean {
    return matchTokenHash(token, this.hashes) !== undefined;
  }

  /**
   * Lets a request with these headers (names in lower case) through, or refuses it.
   * @throws DashboardError 401 without a valid bearer token or session cookie
   */
  check(headers: { readonly authorization?: string; readonly cookie?: string }): void {
    if (!this.required) return;
    const authorization = headers.authorization;
    if (authorization !== undefined) {
      const token = /^bearer +(\S+) *$/i.exec(authorization)?.[1];
      if (token !== undefined && this.isValidToken(token)) return;
      throw UNAUTHORIZED;
    }
    const session = readCookie(headers.cookie, SESSION_COOKIE);
    if (session !== undefined && this.isValidSession(session)) return;
    throw UNAUTHORIZED;
  }

  /** A `Set-Cookie` value opening a browser session. */
  sessionCookie(): string {
    const expires = this.now() + SESSION_MS;
    return `${SESSION_COOKIE}=${expires}.${this.sign(expires)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_MS / 1000}`;
  }

  private isValidSession(value: string): boolean {
    const match = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(value);
    if (match === null) return false;
    const expires = Number(match[1]);
    const expected = Buffer.from(this.sign(expires));
    const given = Buffer.from(match[2]);
    return timingSafeEqual(expected, given) && expires > this.now();
  }

  private sign(expires: number): string {
    return createHmac('sha256', this.key).update(String(expires)).digest('base64url');
  }
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
