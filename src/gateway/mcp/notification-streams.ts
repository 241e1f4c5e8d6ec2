/**
 * The open server → client notification streams of both eras (see docs/security.md): 2025 GET streams
 * of a session and 2026-07-28 `subscriptions/listen` streams. They are the only per-client state the gateway
 * keeps, so they are capped per principal (over the cap: HTTP 429), closed when their principal's token leaves
 * the config, when their session ends or expires, when the OAuth token that opened them expires, and on shutdown.
 * They are keyed by principal key (kind and name), so an OAuth subject named like a token id has its own cap.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Principal } from '../auth';
import { HttpError } from '../errors/http-error';
import { notificationJson, RpcCode, type RequestId } from '../errors/jsonrpc';
import {
  acknowledgedNotification,
  listenClosedResponse,
  LISTEN_STREAM_HEADERS,
  type ServerInfo,
  sseFrame,
  toolsListChangedNotification,
} from './2026/results';
import type { ListenStreamSpec, SessionStreamSpec } from './shared/stream-specs';

type StreamSpec = SessionStreamSpec | ListenStreamSpec;

interface OpenStream {
  readonly spec: StreamSpec;
  readonly res: ServerResponse;
  timer?: NodeJS.Timeout;
}

const LEGACY_LIST_CHANGED = `event: message\ndata: ${notificationJson('notifications/tools/list_changed')}\n\n`;
const KEEP_ALIVE = ': keep-alive\n\n';
/** setTimeout's longest delay (about 24.8 days); a later expiry is checked again then. */
const MAX_TIMER_MS = 2_147_483_647;
const SESSION_STREAM_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
};

/** Every open notification stream of one gateway, by principal. */
export class NotificationStreams {
  private readonly byPrincipal = new Map<Principal, Set<OpenStream>>();
  private total = 0;
  /** The connections a stream is written on: an answer to a request behind it could never be sent. */
  private readonly sockets = new WeakSet<Socket>();

  constructor(private limit: number) {}

  /** Takes the `max_streams_per_principal` of a reloaded config (open streams stay; new ones count against it). */
  setLimit(limit: number): void {
    this.limit = limit;
  }

  /** How many streams are open. */
  get size(): number {
    return this.total;
  }

  /** Whether a stream is open on `socket` (HTTP/1.1 answers in order, so a later request there waits for its end). */
  carries(socket: Socket): boolean {
    return this.sockets.has(socket);
  }

  /**
   * Opens a stream on `res`: the SSE headers, then (listen) the acknowledgement as its first message.
   *
   * @throws HttpError 429 when the principal already holds `max_streams_per_principal` streams (nothing written)
   */
  open(res: ServerResponse, spec: StreamSpec, requestId: RequestId | null = null): void {
    let streams = this.byPrincipal.get(spec.principal);
    if ((streams?.size ?? 0) >= this.limit) {
      throw new HttpError(
        429,
        RpcCode.INTERNAL_ERROR,
        `Too Many Requests: at most ${this.limit} open notification streams per principal; close one first`,
        { id: requestId },
      );
    }
    if (streams === undefined) {
      streams = new Set();
      this.byPrincipal.set(spec.principal, streams);
    }
    const stream: OpenStream = { spec, res };
    streams.add(stream);
    this.total++;
    // the request's socket: the response has none yet while it waits behind an earlier answer
    const socket = res.req.socket;
    this.sockets.add(socket);
    res.on('close', () => {
      this.sockets.delete(socket);
      this.forget(stream);
    });
    if (spec.kind === 'session') {
      res.writeHead(200, SESSION_STREAM_HEADERS);
      res.flushHeaders();
    } else {
      res.writeHead(200, LISTEN_STREAM_HEADERS);
      res.write(sseFrame(acknowledgedNotification(spec.subscriptionId, spec.filter)));
    }
    // A stream does not outlive its session id, nor the OAuth token that opened it.
    if (spec.expiresAtMs !== undefined) {
      stream.timer = setTimeout(
        () => this.end(stream),
        Math.min(MAX_TIMER_MS, Math.max(0, spec.expiresAtMs - Date.now())),
      );
      stream.timer.unref();
    }
  }

  /** Sends `notifications/tools/list_changed` to every 2025 stream and every listen stream that asked for it. */
  toolsListChanged(): number {
    let sent = 0;
    for (const stream of this.each()) {
      const { spec } = stream;
      if (spec.kind === 'session') {
        stream.res.write(LEGACY_LIST_CHANGED);
      } else if (spec.filter.toolsListChanged === true) {
        stream.res.write(sseFrame(toolsListChangedNotification(spec.subscriptionId)));
      } else {
        continue;
      }
      sent++;
    }
    return sent;
  }

  /** Writes an SSE comment to every stream (keeps idle streams open through proxies). */
  keepAlive(): void {
    for (const stream of this.each()) stream.res.write(KEEP_ALIVE);
  }

  /** Ends the streams of principals `keep` rejects (a reload removed or replaced their token); returns how many. */
  closePrincipals(keep: (principal: Principal) => boolean): number {
    let closed = 0;
    for (const [principal, streams] of [...this.byPrincipal]) {
      if (keep(principal)) continue;
      closed += streams.size;
      for (const stream of [...streams]) this.end(stream);
    }
    return closed;
  }

  /** Ends the GET streams of one session (DELETE). */
  closeSession(principal: Principal, sessionId: string): void {
    for (const stream of [...(this.byPrincipal.get(principal) ?? [])]) {
      if (stream.spec.kind === 'session' && stream.spec.sessionId === sessionId) this.end(stream);
    }
  }

  /** Ends every stream (shutdown); listen streams get their closing response first. */
  closeAll(serverInfo: ServerInfo): void {
    for (const stream of [...this.each()]) {
      if (stream.spec.kind === 'listen')
        stream.res.write(sseFrame(listenClosedResponse(stream.spec.subscriptionId, serverInfo)));
      this.end(stream);
    }
  }

  private *each(): IterableIterator<OpenStream> {
    for (const streams of this.byPrincipal.values()) yield* streams;
  }

  private end(stream: OpenStream): void {
    stream.res.end();
    this.forget(stream);
  }

  private forget(stream: OpenStream): void {
    clearTimeout(stream.timer);
    const streams = this.byPrincipal.get(stream.spec.principal);
    if (streams?.delete(stream) !== true) return;
    this.total--;
    if (streams.size === 0) this.byPrincipal.delete(stream.spec.principal);
  }
}
