/**
 * A real node:http backend for gateway tests, listening on 127.0.0.1 port 0.
 *
 * Routes (every method):
 * - `/status/:code`  answers that status with a small JSON body (`{"error":"status <code>"}`).
 * - `/slow/:ms`      sleeps `ms` (capped at {@link MAX_SLOW_MS}) then echoes.
 * - `/huge`          a JSON body of `?bytes=` bytes (default {@link DEFAULT_HUGE_BYTES}, over the gateway's 4 MiB cap).
 * - `/text`          a 200 `text/plain` body that is not JSON.
 * - `/bad-json`      a 200 body declared `application/json` that does not parse.
 * - anything else    echo: `{ method, path, query, headers, body }` as JSON (after `delayMs`, if set).
 *
 * `requests` counts every request received, so a test can prove a refused call never reached the backend.
 * With the `respond` option, that function answers every request instead of the routes.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** `/slow/:ms` never sleeps longer than this, so a forgotten request cannot hold a test run. */
export const MAX_SLOW_MS = 30_000;
/** Default `/huge` size: just over the gateway's default 4 MiB response cap. */
export const DEFAULT_HUGE_BYTES = 4 * 1024 * 1024 + 1024;

/** What the echo route answers. */
export interface EchoResponse {
  readonly method: string;
  /** The path without the query string, as received (still percent-encoded). */
  readonly path: string;
  /** Query parameters; a repeated key becomes an array of its values. */
  readonly query: Record<string, string | string[]>;
  /** Lower-cased request headers. */
  readonly headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, `null` when the body was empty, the raw text when it was not JSON. */
  readonly body: unknown;
}

/** One received request, as recorded in {@link TestBackend.received}. */
export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  /** Lower-cased request headers. */
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** A canned answer from {@link TestBackendOptions.respond}. */
export interface BackendAnswer {
  /** @default 200 */
  readonly status?: number;
  /** The `content-type`. @default 'application/json' */
  readonly type?: string;
  /** Sent as is, without `content-length` unless `headers` sets one. @default '' */
  readonly body?: string;
  /** Wait this long before answering. @default 0 */
  readonly delayMs?: number;
  /** More response headers (they win over `type`). @default {} */
  readonly headers?: Record<string, string>;
}

export interface TestBackendOptions {
  /** Delay before every echo answer, so calls stay in flight (shutdown and load tests). @default 0 */
  readonly delayMs?: number;
  /** How many received requests to keep in `received` (the counter counts all). @default 1000 */
  readonly keepReceived?: number;
  /**
   * Answers every request in place of the routes, for a test that needs an exact status, content type or body.
   * Called once per request, after it is recorded in `received`; the `delayMs` option and `setDelay` do not apply.
   * @default - the routes above
   */
  readonly respond?: (request: ReceivedRequest) => BackendAnswer;
}

/** A running backend. */
export interface TestBackend {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  readonly url: string;
  readonly port: number;
  /** Requests received so far (every route). */
  readonly requests: number;
  /** The last `keepReceived` requests, oldest first. */
  readonly received: readonly ReceivedRequest[];
  /** Changes the echo delay for the following requests. */
  setDelay(ms: number): void;
  /** Stops listening and drops open (keep-alive) connections. */
  close(): Promise<void>;
}

function parseQuery(search: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of search) {
    const prev = out[k];
    if (prev === undefined) out[k] = v;
    else out[k] = Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Starts a backend on 127.0.0.1, port 0.
 * @example
 * const backend = await startBackend();
 * // tool url: `${backend.url}/customers/{customer_id}`
 * after(() => backend.close());
 */
export async function startBackend(options: TestBackendOptions = {}): Promise<TestBackend> {
  let delayMs = options.delayMs ?? 0;
  const keep = options.keepReceived ?? 1000;
  let requests = 0;
  const received: ReceivedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  const server = http.createServer((req, res) => {
    requests++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const record: ReceivedRequest = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: raw,
        };
        received.push(record);
        if (received.length > keep) received.shift();
        if (options.respond) {
          const answer = options.respond(record);
          if (answer.delayMs) await sleep(answer.delayMs);
          if (res.destroyed) return;
          res.writeHead(answer.status ?? 200, { 'content-type': answer.type ?? 'application/json', ...answer.headers });
          res.end(answer.body ?? '');
          return;
        }
        const url = new URL(req.url ?? '/', 'http://backend.invalid');
        const segments = url.pathname.split('/').filter(Boolean);
        if (segments[0] === 'status' && segments.length === 2) {
          const code = Number(segments[1]);
          sendJson(res, code >= 200 && code <= 599 ? code : 500, { error: `status ${code}` });
          return;
        }
        if (segments[0] === 'huge') {
          const bytes = Math.max(16, Number(url.searchParams.get('bytes') ?? DEFAULT_HUGE_BYTES));
          const filler = 'x'.repeat(bytes - 12);
          sendJson(res, 200, { data: filler });
          return;
        }
        if (segments[0] === 'text') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('this is plain text, not JSON');
          return;
        }
        if (segments[0] === 'bad-json') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"this is": not json');
          return;
        }
        if (segments[0] === 'slow' && segments.length >= 2) {
          await sleep(Math.min(MAX_SLOW_MS, Math.max(0, Number(segments[1]) || 0)));
        } else if (delayMs > 0) {
          await sleep(delayMs);
        }
        if (res.destroyed) return;
        let body: unknown = null;
        if (raw.length > 0) {
          try {
            body = JSON.parse(raw);
          } catch {
            body = raw;
          }
        }
        const echo: EchoResponse = {
          method: req.method ?? '',
          path: url.pathname,
          query: parseQuery(url.searchParams),
          headers: req.headers,
          body,
        };
        sendJson(res, 200, echo);
      })();
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get requests() {
      return requests;
    },
    get received() {
      return received;
    },
    setDelay(ms: number) {
      delayMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * A URL whose port was just opened and closed: nothing listens there, so a connection is refused.
 * @example
 * const down = await downBackendUrl(); // http://127.0.0.1:PORT
 */
export async function downBackendUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** A backend whose answer a test may replace between calls, keeping every request it received. */
export interface FakeService {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  readonly url: string;
  /** Every request received, oldest first. */
  readonly received: readonly ReceivedRequest[];
  /** Answers every request. @default - echoes `{ method, url, body }` as JSON */
  respond: (request: ReceivedRequest) => BackendAnswer;
  close(): Promise<void>;
}

/**
 * Starts a {@link FakeService} on 127.0.0.1, port 0 (a {@link startBackend} with a replaceable `respond`).
 * @example
 * const service = await startFakeService();
 * service.respond = () => ({ status: 503 });
 */
export async function startFakeService(): Promise<FakeService> {
  let respond: FakeService['respond'] = (req) => ({
    body: JSON.stringify({ method: req.method, url: req.url, body: req.body }),
  });
  // Keeps every request: tests compare `received.length` before and after a call.
  const backend = await startBackend({ keepReceived: Infinity, respond: (req) => respond(req) });
  return {
    url: backend.url,
    get received() {
      return backend.received;
    },
    get respond() {
      return respond;
    },
    set respond(fn) {
      respond = fn;
    },
    close: () => backend.close(),
  };
}
