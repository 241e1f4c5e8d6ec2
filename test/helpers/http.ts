/**
 * Raw node:http requests for what `fetch` cannot send, such as a foreign `Host` header (fetch always sets its
 * own), and a GET (SSE) stream read as it arrives. Every request has a timeout.
 */
import * as http from 'node:http';
import { eventually } from './eventually';

export interface RawRequestOptions {
  readonly url: string;
  /** @default 'POST' */
  readonly method?: string;
  /** Sent as given; a `host` key replaces the Host header. @default {} */
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  /** @default 10000 */
  readonly timeoutMs?: number;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
  /** The body parsed as JSON; `undefined` when it is empty or not JSON. */
  readonly json: any;
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Sends one request on a fresh connection and reads the whole answer.
 * @example
 * const res = await rawRequest({ url: gw.url, headers: { host: 'evil.example' }, body: '{}' });
 */
export function rawRequest(options: RawRequestOptions): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      options.url,
      {
        method: options.method ?? 'POST',
        headers: options.headers ?? {},
        agent: false,
        timeout: options.timeoutMs ?? 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parseJson(text) });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request to ${options.url} timed out`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** An open GET (SSE) stream: what arrived so far, and a promise that settles when the server ends it. */
export interface OpenStream {
  readonly status: number;
  readonly contentType: string | undefined;
  text(): string;
  readonly ended: Promise<void>;
  /** Waits until the text received so far matches `pattern`. @default timeoutMs 3000 */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  destroy(): void;
}

/**
 * Sends a GET with `headers` and resolves once the response headers arrived, leaving the body streaming in.
 * @example
 * const s = await openStream(gw.url, { accept: 'text/event-stream', authorization: `Bearer ${token}`, 'mcp-session-id': id });
 */
export function openStream(
  url: string,
  headers: Record<string, string>,
  /** A POST that answers a stream (2026-07-28 `subscriptions/listen`) instead of the GET. @default - GET */
  post?: { readonly body: string },
): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: post === undefined ? 'GET' : 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      const ended = new Promise<void>((done) => {
        res.on('end', done);
        res.on('close', done);
      });
      resolve({
        status: res.statusCode ?? 0,
        contentType: res.headers['content-type'],
        text: () => text,
        ended,
        waitFor: (pattern, timeoutMs = 3_000) =>
          eventually(() => pattern.test(text), { timeoutMs, what: `the stream to show ${pattern}` }).then(
            () => undefined,
          ),
        destroy: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end(post?.body);
  });
}
