import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Principal } from '../auth';
import type { Caller } from '../tools/call-pipeline';

/** What the client said about itself in `initialize` (audit `client`). */
export type ClientInfo = Caller['client'];

/** One MCP session: issued at `initialize`, bound to the principal whose token opened it. */
export interface McpSession extends Caller {
  readonly sessionId: string;
  lastSeenMs: number;
  initialized: boolean;
  /** Open GET (SSE) streams that carry server → client notifications. */
  readonly streams: Set<ServerResponse>;
}

/** Sessions of one gateway, expired after an idle time. */
export class SessionStore {
  private readonly sessions = new Map<string, McpSession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private ttlMs: number) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(ttlMs, 60_000));
    this.sweeper.unref();
  }

  /** Takes the idle expiry of a reloaded config. */
  setTtlMs(ttlMs: number): void {
    this.ttlMs = ttlMs;
  }

  /** Opens a session with a random (128-bit) id. */
  create(principal: Principal, protocolVersion: string, client: ClientInfo): McpSession {
    const session: McpSession = {
      sessionId: randomBytes(16).toString('hex'),
      principal,
      protocolVersion,
      client,
      lastSeenMs: Date.now(),
      initialized: false,
      streams: new Set(),
    };
    this.sessions.set(session.sessionId, session);
    return session;
  }

  /**
   * The live session with this id opened by this principal, or `undefined`: unknown, expired, and presented
   * by another principal all look the same to the caller.
   */
  get(id: string, principal: Principal): McpSession | undefined {
    const session = this.sessions.get(id);
    if (session === undefined || session.principal !== principal) return undefined;
    const now = Date.now();
    if (session.streams.size === 0 && now - session.lastSeenMs > this.ttlMs) {
      this.delete(session);
      return undefined;
    }
    session.lastSeenMs = now;
    return session;
  }

  /** Ends a session and its streams. */
  delete(session: McpSession): void {
    this.sessions.delete(session.sessionId);
    for (const stream of session.streams) stream.end();
    session.streams.clear();
  }

  /** Every live session. */
  all(): IterableIterator<McpSession> {
    return this.sessions.values();
  }

  /** Ends every session and stops the expiry timer. */
  close(): void {
    clearInterval(this.sweeper);
    for (const session of [...this.sessions.values()]) this.delete(session);
  }

  private sweep(): void {
    const now = Date.now();
    for (const session of [...this.sessions.values()]) {
      // A session with an open stream is in use even when it sends nothing.
      if (session.streams.size === 0 && now - session.lastSeenMs > this.ttlMs) this.delete(session);
    }
  }
}
