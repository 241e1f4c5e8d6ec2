import { ADDRCONFIG } from 'node:dns';
import { isIP } from 'node:net';
import type { Agent as UndiciAgent, Client as UndiciClient, Dispatcher } from 'undici';
import { defaultMaxHeldResponseBytes } from '../../config/defaults';
import { withIdentity, type CallerIdentity } from './backend-headers';
import { CaDispatchers, tlsFailureReason } from './backend-tls';
import { buildServiceRequest, serviceTarget, type ServicePlan } from './request-plan';
import type { ResponseShaper } from '../../response';
import { BodyThread, worksOffThread } from './body-thread';
import { sharedHostLookup, type LookupFunction } from './host-lookup';
import { bodyResult, failure, REQUEST_FAILED, type ServiceOutcome } from '../../response';

/**
 * undici's connection-pooling `Agent` alone. The package's entry point also loads `fetch`, WebSocket, the cache
 * stores and the mock agent, several times the agent's modules and a large share of a gateway's resident memory,
 * that the gateway never uses. Should a later undici move the file, the entry point still works. Each path is
 * a literal, so the image's dependency trace finds the file (a computed path would leave it out).
 */
function loadAgent(): typeof UndiciAgent {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('undici/lib/dispatcher/agent') as typeof UndiciAgent;
  } catch {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('undici') as typeof import('undici')).Agent;
  }
}

/** undici's single-connection `Client` alone (as {@link loadAgent}): a call sent again gets a connection of its own. */
function loadClient(): typeof UndiciClient {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('undici/lib/dispatcher/client') as typeof UndiciClient;
  } catch {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('undici') as typeof import('undici')).Client;
  }
}

/** How long the pools keep an idle backend connection, and at most what a backend's `Keep-Alive` may ask. */
const KEEP_ALIVE = { keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000 } as const;

/** The most of a non-2xx body read (and dropped) to keep its connection; past this the connection is closed. */
const DISCARD_LIMIT_BYTES = 131_072;

/** Calls services over keep-alive connection pools (one pool per origin, shared by all calls). */
export class ServiceClient {
  /**
   * The shared pool, made on the first service call: loading undici's agent is CPU a start to `/readyz` need not
   * wait for (the first call pays it once).
   */
  private pool: Dispatcher | undefined;
  /** Pools for backends with their own CA bundle (`tls`). */
  private readonly caDispatchers: CaDispatchers;
  /** The connections of calls sent again, each its own, until their one request is over. */
  private readonly oneOff = new Set<Dispatcher>();

  /** Set by `close()`: no request is sent again after it. */
  private closed = false;

  /** The response bytes all calls hold right now, bounded by `max_held_response_bytes`. */
  private readonly held: HeldBytes;

  /** How every connection to a backend resolves its host name: once for all, refreshed off the call's path. */
  private readonly lookup: LookupFunction;

  /**
   * @param maxResponseBytes the largest response body accepted
   * @param bodies where large bodies become results, off the gateway's thread
   * @param maxHeldBytes the most response bytes held at once, over every call
   * @param lookup resolves backend host names @default a {@link sharedHostLookup} of the system resolver
   */
  constructor(
    private maxResponseBytes: number,
    private readonly bodies: BodyThread = new BodyThread(),
    maxHeldBytes = defaultMaxHeldResponseBytes(maxResponseBytes),
    lookup: LookupFunction = sharedHostLookup(),
  ) {
    this.held = { bytes: 0, limit: maxHeldBytes };
    this.lookup = lookup;
    this.caDispatchers = new CaDispatchers((ca) => new (loadAgent())({ ...KEEP_ALIVE, connect: this.connect(ca) }));
  }

  private get dispatcher(): Dispatcher {
    this.pool ??= new (loadAgent())({ ...KEEP_ALIVE, connect: this.connect(undefined) });
    return this.pool;
  }

  /** How every backend connection opens: its host name looked up once for all, trusting `ca` when one is set. */
  private connect(ca: string | undefined): { ca?: string; lookup: LookupFunction } {
    return ca === undefined ? { lookup: this.lookup } : { ca, lookup: this.lookup };
  }

  /**
   * Looks up a backend's host name as its connections will (the options `net.connect` passes), so that they find
   * the answer ready. Settles once the lookup does, failed or not; an IP address needs none.
   */
  resolve(host: string): Promise<void> {
    if (isIP(host) !== 0) return Promise.resolve();
    return new Promise((done) => this.lookup(host, { hints: ADDRCONFIG, all: true }, () => done()));
  }

  /** Takes the limits of a reloaded config. */
  setLimits(maxResponseBytes: number, maxHeldBytes: number): void {
    this.maxResponseBytes = maxResponseBytes;
    this.held.limit = maxHeldBytes;
  }

  /**
   * Counts an answer being written to a client against `max_held_response_bytes`, as a body being read is: its
   * text and bytes stay in memory until they are written out to the client's connection. Counted even past the
   * limit (the answer exists already), so that the next bodies are refused instead.
   * @returns what ends the hold; calls after the first do nothing
   */
  holdAnswer(bytes: number): () => void {
    const held = this.held;
    held.bytes += bytes;
    let holding = true;
    return () => {
      if (holding) held.bytes -= bytes;
      holding = false;
    };
  }

  /** The response bytes held right now (for tests and monitoring). */
  get heldBytes(): number {
    return this.held.bytes;
  }

  /**
   * Calls the service; never throws, never outlives the plan's timeout.
   * @param caller who calls, sent to the backend when the plan forwards identity
   * @param shaper the tool's response controls, applied to a 2xx body
   */
  call(
    plan: ServicePlan,
    args: Readonly<Record<string, unknown>>,
    caller?: CallerIdentity,
    shaper?: ResponseShaper,
  ): Promise<ServiceOutcome> {
    const req = buildServiceRequest(plan, args);
    let target;
    try {
      target = serviceTarget(plan, req.url);
    } catch {
      return Promise.resolve(REQUEST_FAILED);
    }
    return new Promise((resolve) => {
      const headers = plan.forwardIdentity && caller !== undefined ? withIdentity(plan.headers, caller) : plan.headers;
      const request: Dispatcher.DispatchOptions = {
        origin: target.origin,
        path: target.path,
        method: req.method as Dispatcher.HttpMethod,
        headers: headers as string[],
        body: req.body,
      };
      const handler = new CallHandler(resolve, this.maxResponseBytes, plan.timeoutMs, shaper, this.bodies, this.held);
      handler.again = (h: CallHandler) => this.sendAgain(request, plan.ca, h);
      handler.idempotent = plan.idempotent;
      const dispatcher = plan.ca === undefined ? this.dispatcher : this.caDispatchers.for(plan.ca);
      // The low-level dispatch API: no URL parsing, no AbortController, no response stream per call; the
      // handler below collects the body itself.
      dispatcher.dispatch(request, handler as Dispatcher.DispatchHandler);
    });
  }

  /**
   * Sends a request again on a connection of its own, not the pool's: the pooled connections to that origin may
   * have gone with the one that failed (a backend replica, or its node, gone), while a new one reaches a live one.
   */
  private sendAgain(request: Dispatcher.DispatchOptions, ca: string | undefined, handler: CallHandler): void {
    // a retry's pause may end after close(): nothing is sent then
    if (this.closed) {
      handler.onError(Object.assign(new Error('the gateway is closing'), { code: 'UND_ERR_DESTROYED' }));
      return;
    }
    const Client = loadClient();
    const client = new Client(request.origin as string, { connect: this.connect(ca) });
    this.oneOff.add(client);
    // a call that gives up (its deadline) takes the connection down too, even one still opening
    handler.dropConnection = () => void client.destroy().catch(() => undefined);
    client.dispatch({ ...request, reset: true }, handler as Dispatcher.DispatchHandler);
    // closes the connection once this one request is over (answered, failed or aborted)
    void client
      .close()
      .catch(() => undefined)
      .finally(() => this.oneOff.delete(client));
  }

  /**
   * Closes the pooled connections. A request still in flight (the gateway has drained its calls, bounded, before
   * this) is cut off rather than awaited: `close()` alone would wait for a backend that never finishes.
   */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([
      this.pool?.destroy().catch(() => undefined),
      ...[...this.oneOff].map((c) => c.destroy().catch(() => undefined)),
      this.caDispatchers.close(),
      this.bodies.close(),
    ]);
  }
}

/** The response bytes every call holds, and the most they may (shared by the calls of one gateway). */
interface HeldBytes {
  bytes: number;
  limit: number;
}

/**
 * One service call as an undici dispatch handler: keeps a 2xx body up to the limit, answers once (the first of
 * response, failure and timeout wins) and aborts the request when it gives up on it. The timeout covers the whole
 * exchange, not only the answer: a non-2xx is answered at its headers, but its body is read (and dropped, so the
 * connection can serve the next call) only until the deadline; whatever is still open then is aborted.
 */
class CallHandler {
  private settled = false;
  /** The exchange is over (complete, failed or aborted): nothing is left for the deadline to stop. */
  private finished = false;
  private abort: ((err?: Error) => void) | undefined;
  private readonly timer: NodeJS.Timeout;
  private status = 0;
  private contentType = '';
  private readonly chunks: Buffer[] = [];
  private size = 0;
  /** What this call counts in the shared {@link HeldBytes}, until it settles. */
  private holding = 0;
  /**
   * Sends the request again on a new connection, at most once: a refused connection for any call (nothing was
   * sent), a connection lost before the answer's headers for an idempotent one.
   */
  again: ((handler: CallHandler) => void) | undefined;
  /** The call may be sent twice (`backend.idempotent`). */
  idempotent = false;
  /** undici began to send the request (`onConnect`): from then on, the service may have received it. */
  private started = false;
  /** Closes the connection the request was sent again on, when the call gives up. */
  dropConnection: (() => void) | undefined;

  constructor(
    private readonly resolve: (outcome: ServiceOutcome) => void,
    private readonly maxBytes: number,
    private readonly timeoutMs: number,
    private readonly shaper: ResponseShaper | undefined,
    private readonly bodies: BodyThread,
    private readonly held: HeldBytes,
  ) {
    this.timer = setTimeout(() => this.timedOut(), timeoutMs);
  }

  onConnect(abort: (err?: Error) => void): void {
    this.started = true;
    // Timed out while queued for a connection: give the request up as soon as it would start.
    if (this.finished) abort();
    else this.abort = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    if (statusCode < 200) return true; // 1xx: informational, the real response follows
    this.status = statusCode;
    if (statusCode > 299) {
      this.settle(failure('SERVICE_HTTP_STATUS', `Service error: HTTP ${statusCode}`));
      return true; // the body is read and dropped, until the deadline, so the connection can serve the next call
    }
    let declaredLength = Number.NaN;
    let contentType: string | undefined;
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = rawHeaders[i];
      // Compared by length first: only two names matter and most headers have other lengths.
      if (name.length === 12 && contentType === undefined && name.toString('latin1').toLowerCase() === 'content-type') {
        contentType = rawHeaders[i + 1].toString('latin1').toLowerCase();
      } else if (
        name.length === 14 &&
        Number.isNaN(declaredLength) &&
        name.toString('latin1').toLowerCase() === 'content-length'
      ) {
        declaredLength = Number(rawHeaders[i + 1].toString('latin1'));
      }
    }
    this.contentType = contentType ?? '';
    if (declaredLength > this.maxBytes) {
      this.settle(failure('SERVICE_RESPONSE_TOO_LARGE', 'Service response too large'));
      this.giveUp();
      return false;
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.size += chunk.length;
    if (this.status > 299) {
      if (this.size > DISCARD_LIMIT_BYTES) this.giveUp();
      return true;
    }
    if (this.settled) return true;
    if (this.size > this.maxBytes) {
      this.settle(failure('SERVICE_RESPONSE_TOO_LARGE', 'Service response too large'));
      this.giveUp();
      return false;
    }
    if (this.held.bytes + chunk.length > this.held.limit) {
      this.settle(
        failure(
          'RESPONSES_HELD_FULL',
          `Service response refused: the gateway holds its limit of ${this.held.limit} bytes of responses for other calls (max_held_response_bytes); retry shortly`,
        ),
      );
      this.giveUp();
      return false;
    }
    this.held.bytes += chunk.length;
    this.holding += chunk.length;
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    if (this.settled) {
      this.finish();
      return;
    }
    if (!worksOffThread(this.chunks, this.size, this.shaper?.searches === true)) {
      this.finish();
      this.settle(bodyResult(this.body(), this.contentType, this.maxBytes, this.shaper));
      return;
    }
    // The exchange is over (nothing is left to abort), but the deadline keeps running: the call's timeout covers
    // the wait for the body thread too, should large bodies queue there.
    this.finished = true;
    const wanted = (): boolean => !this.settled;
    void this.bodies.result(this.body(), this.contentType, this.maxBytes, this.shaper, wanted).then((outcome) => {
      clearTimeout(this.timer);
      this.settle(outcome);
    });
  }

  /** The body read, once: the chunks are let go of, so that only the body stays while its result is built. */
  private body(): Buffer {
    const body = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size);
    this.chunks.length = 0;
    return body;
  }

  onError(err: Error): void {
    if (this.again !== undefined && !this.settled && this.status === 0 && this.size === 0) {
      const retry = retryAfter(err, this.idempotent, this.started);
      this.started = false;
      if (retry !== undefined) {
        // Lost with its connection before the answer's headers, or refused before anything was sent: sent once
        // more, on a new connection, within the same deadline.
        const again = this.again;
        this.again = undefined;
        this.abort = undefined;
        if (retry === 0) again(this);
        else setTimeout(() => this.settled || again(this), retry).unref();
        return;
      }
    }
    this.finish();
    this.settle(failure('SERVICE_UNAVAILABLE', `Service unavailable: ${reason(err)}`));
  }

  private timedOut(): void {
    this.settle(failure('SERVICE_TIMEOUT', `Service timed out after ${this.timeoutMs} ms`));
    this.giveUp();
    this.dropConnection?.();
    this.bodies.drop(); // this call's body, if it waits for the body thread, is no longer wanted
  }

  /** Aborts the exchange (undici closes its connection); `onConnect` aborts one not yet started. */
  private giveUp(): void {
    if (this.finished) return;
    this.finish();
    this.abort?.();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.timer);
  }

  private settle(outcome: ServiceOutcome): void {
    if (this.settled) return;
    this.settled = true;
    this.held.bytes -= this.holding;
    this.holding = 0;
    this.resolve(outcome);
  }
}

/**
 * When a call that failed this way is sent again (ms from now), or `undefined` when it is not. A connection that
 * could not open (refused, or no route to the backend) goes again after a pause (a backend restarting, or gone with
 * its node while routes and endpoints catch up; an immediate retry would meet the same failure): any call when the
 * request had not started (nothing was sent), an idempotent one otherwise (no route can also end a connection the
 * request went out on). A connection lost before the answer's headers may have delivered the request, so only an
 * idempotent call goes again, at once (a backend replica gone with the pooled connection).
 * @param started undici had begun to send the request
 */
export function retryAfter(err: unknown, idempotent: boolean, started: boolean): number | undefined {
  const code = errorCode(err);
  if (code === 'ECONNREFUSED' || code === 'ENETUNREACH' || code === 'EHOSTUNREACH') {
    return idempotent || !started ? REFUSED_RETRY_MS : undefined;
  }
  if (idempotent && (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE')) return 0;
  return undefined;
}

/** The pause before a call whose connection could not open is sent again. */
const REFUSED_RETRY_MS = 100;

/** The error's code, or its cause's (undici wraps the socket's). */
function errorCode(err: unknown): string | undefined {
  return (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code;
}

function reason(err: unknown): string {
  const code = errorCode(err);
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'EPIPE':
      return 'connection reset';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connection timed out';
    default:
      // the code (e.g. EHOSTUNREACH) tells an operator where to look; it carries nothing of the call
      return (
        tlsFailureReason(code) ??
        (code !== undefined && /^[A-Z][A-Z0-9_]{1,40}$/.test(code) ? `request failed (${code})` : 'request failed')
      );
  }
}
