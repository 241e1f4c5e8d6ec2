/**
 * Reading a JSON document from the authorization server (its metadata, its JWKS) with a time limit and a size
 * limit, so a slow or hostile endpoint can neither hold a request nor fill the gateway's memory.
 */

import { SECURE_URL_PATTERN } from '../../config/oauth-config';

/** The `fetch` the OAuth code uses; tests pass one that counts or fails. */
export type FetchFunction = typeof fetch;

/** Limits on one fetch from the authorization server. */
export interface IssuerFetchOptions {
  /** @default 5000 */
  readonly timeoutMs?: number;
  /** @default 262144 (256 KiB; a JWKS of a dozen RSA keys is about 10 KiB) */
  readonly maxBytes?: number;
}

const DEFAULT_TIMEOUT_MS = 5_000;
const MAX_REDIRECTS = 3;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const secureUrl = new RegExp(SECURE_URL_PATTERN);
const DEFAULT_MAX_BYTES = 256 * 1024;

/**
 * The authorization server could not be reached or answered something unusable. The message is one line meant
 * for the gateway's log (it names the URL, never a token); callers never show it to an agent.
 */
export class IssuerUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IssuerUnavailableError';
  }
}

/** A non-2xx answer: discovery moves on to the next well-known location. */
export class IssuerHttpStatusError extends IssuerUnavailableError {
  constructor(
    readonly url: string,
    readonly status: number,
  ) {
    super(`${url} answered HTTP ${status}`);
    this.name = 'IssuerHttpStatusError';
  }
}

/**
 * Fetches `url` and parses its JSON body.
 *
 * @throws IssuerHttpStatusError for a non-2xx status, IssuerUnavailableError for anything else that went wrong
 * (network, timeout, body too large, not JSON)
 */
export async function fetchIssuerJson(
  url: string,
  fetchFn: FetchFunction,
  options: IssuerFetchOptions = {},
): Promise<unknown> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const signal = AbortSignal.timeout(timeoutMs);
  let location = url;
  let response: Response;
  // Redirects are followed by hand and only within the same origin: a redirect elsewhere — to a plain-http host,
  // or from https to a loopback http service — would let whoever answers there hand the gateway their own keys.
  for (let hop = 0; ; hop++) {
    try {
      response = await fetchFn(location, { headers: { accept: 'application/json' }, signal, redirect: 'manual' });
    } catch (err) {
      throw new IssuerUnavailableError(`${location}: ${reason(err)}`);
    }
    if (!REDIRECT_STATUSES.has(response.status)) break;
    await response.body?.cancel().catch(() => undefined);
    const target = response.headers.get('location');
    const next = target === null || !URL.canParse(target, location) ? undefined : new URL(target, location).href;
    if (next === undefined || hop === MAX_REDIRECTS) {
      throw new IssuerUnavailableError(`${url}: HTTP ${response.status} without a usable redirect`);
    }
    if (!secureUrl.test(next)) {
      throw new IssuerUnavailableError(`${url}: redirected to ${next.slice(0, 200)}, which is not an https URL`);
    }
    if (new URL(next).origin !== new URL(location).origin) {
      throw new IssuerUnavailableError(
        `${url}: redirected to ${next.slice(0, 200)}, another origin; redirects are followed only within ${new URL(location).origin}`,
      );
    }
    location = next;
  }
  if (response.status < 200 || response.status > 299) {
    await response.body?.cancel().catch(() => undefined);
    throw new IssuerHttpStatusError(location, response.status);
  }
  const text = await readCapped(response, location, maxBytes);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new IssuerUnavailableError(`${location}: the body is not JSON`);
  }
}

async function readCapped(response: Response, url: string, maxBytes: number): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new IssuerUnavailableError(`${url}: the body is larger than ${maxBytes} bytes`);
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof IssuerUnavailableError) throw err;
    throw new IssuerUnavailableError(`${url}: ${reason(err)}`);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A short, single-line reason for a failed fetch (undici hides the socket error in `cause`). */
function reason(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err.name === 'TimeoutError') return 'no answer in time';
  const cause = (err as { cause?: unknown }).cause;
  const detail = cause instanceof Error ? ((cause as NodeJS.ErrnoException).code ?? cause.message) : undefined;
  return oneLine(detail === undefined ? err.message : `${err.message} (${detail})`);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').slice(0, 300);
}
