/**
 * A raw node:http request for what `fetch` cannot send, such as a foreign `Host` header (fetch always sets its
 * own). Every request has a timeout.
 */
import * as http from 'node:http';

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
      { method: options.method ?? 'POST', headers: options.headers ?? {}, agent: false, timeout: options.timeoutMs ?? 10_000 },
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
