import { Agent, request, type Dispatcher } from 'undici';
import type { ToolConfig } from '../config/gateway-config';

/** How one tool reaches its service, prepared once per config (not per call). */
export interface ServicePlan {
  readonly method: ToolConfig['backend']['method'];
  /** The URL split around its `{field}` placeholders: literal text at even indices, field names at odd ones. */
  readonly urlParts: readonly string[];
  readonly placeholders: ReadonlySet<string>;
  /** Whether the URL already holds a query (then more parameters join with `&`). */
  readonly urlHasQuery: boolean;
  readonly sendsBody: boolean;
  readonly timeoutMs: number;
  /** `[parameter, backend field]` renames. */
  readonly forwardAs: readonly (readonly [string, string])[];
}

/** The outcome of a service call: a `tools/call` result as JSON text, or a failure with a short reason. */
export type ServiceOutcome =
  | { readonly ok: true; readonly resultJson: string }
  | { readonly ok: false; readonly code: ServiceErrorCode; readonly message: string };

/** Audit-log codes of failed service calls. */
export type ServiceErrorCode =
  | 'SERVICE_HTTP_STATUS'
  | 'SERVICE_TIMEOUT'
  | 'SERVICE_UNAVAILABLE'
  | 'SERVICE_RESPONSE_TOO_LARGE'
  | 'SERVICE_BAD_RESPONSE';

/** @default 10000 */
export const DEFAULT_SERVICE_TIMEOUT_MS = 10_000;

/** Prepares the call plan of a tool. */
export function planServiceCall(tool: ToolConfig): ServicePlan {
  const urlParts = tool.backend.url.split(/\{([^{}]+)\}/);
  const placeholders = new Set(urlParts.filter((_, i) => i % 2 === 1));
  const method = tool.backend.method;
  return {
    method,
    urlParts,
    placeholders,
    urlHasQuery: tool.backend.url.includes('?'),
    sendsBody: method !== 'GET' && method !== 'DELETE',
    timeoutMs: tool.backend.timeout_ms ?? DEFAULT_SERVICE_TIMEOUT_MS,
    forwardAs: Object.entries(tool.forward_as ?? {}),
  };
}

/** The request a plan makes for some (already normalized and validated) arguments. */
export interface ServiceRequest {
  readonly method: string;
  readonly url: string;
  readonly body?: string;
}

/**
 * Builds the service request: `forwardAs` renames first, then `{field}` placeholders are filled URL-encoded and
 * removed from the rest, which goes as the query (GET, DELETE) or as a JSON body (POST, PUT, PATCH).
 */
export function buildServiceRequest(plan: ServicePlan, args: Readonly<Record<string, unknown>>): ServiceRequest {
  let fields: Record<string, unknown> = args;
  if (plan.forwardAs.length > 0) {
    fields = { ...args };
    for (const [param, field] of plan.forwardAs) {
      if (param in fields) {
        const value = fields[param];
        delete fields[param];
        fields[field] = value;
      }
    }
  }
  let url = plan.urlParts[0];
  for (let i = 1; i < plan.urlParts.length; i += 2) {
    url += pathValue(fields[plan.urlParts[i]]) + plan.urlParts[i + 1];
  }
  const rest: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) {
    if (!plan.placeholders.has(key)) rest[key] = fields[key];
  }
  if (plan.sendsBody) return { method: plan.method, url, body: JSON.stringify(rest) };
  const query = queryString(rest);
  if (query !== '') url += (plan.urlHasQuery ? '&' : '?') + query;
  return { method: plan.method, url };
}

function pathValue(value: unknown): string {
  if (value === undefined) return '';
  return encodeURIComponent(typeof value === 'string' ? value : scalarText(value));
}

function scalarText(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

function queryString(rest: Record<string, unknown>): string {
  const pairs: string[] = [];
  for (const key of Object.keys(rest)) {
    const value = rest[key];
    if (value === undefined) continue;
    const name = encodeURIComponent(key);
    if (Array.isArray(value)) {
      for (const item of value) pairs.push(`${name}=${encodeURIComponent(scalarText(item))}`);
    } else {
      pairs.push(`${name}=${encodeURIComponent(scalarText(value))}`);
    }
  }
  return pairs.join('&');
}

/** Calls services over keep-alive connection pools (one pool per origin, shared by all calls). */
export class ServiceClient {
  private readonly dispatcher: Dispatcher;

  /**
   * @param maxResponseBytes the largest response body accepted
   */
  constructor(private maxResponseBytes: number) {
    this.dispatcher = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000 });
  }

  /** Takes the limit of a reloaded config. */
  setMaxResponseBytes(bytes: number): void {
    this.maxResponseBytes = bytes;
  }

  /** Calls the service; never throws, never outlives the plan's timeout. */
  async call(plan: ServicePlan, args: Readonly<Record<string, unknown>>): Promise<ServiceOutcome> {
    const req = buildServiceRequest(plan, args);
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), plan.timeoutMs);
    try {
      const res = await request(req.url, {
        method: req.method as Dispatcher.HttpMethod,
        // Only these headers: nothing of the caller's request (its Authorization above all) reaches the service.
        headers: req.body === undefined
          ? { accept: 'application/json', 'user-agent': 'cdktf-mcp-gateway' }
          : { accept: 'application/json', 'content-type': 'application/json', 'user-agent': 'cdktf-mcp-gateway' },
        body: req.body,
        dispatcher: this.dispatcher,
        signal: abort.signal,
      });
      if (res.statusCode < 200 || res.statusCode > 299) {
        res.body.dump().catch(() => undefined);
        return failure('SERVICE_HTTP_STATUS', `Service error: HTTP ${res.statusCode}`);
      }
      const declared = Number(res.headers['content-length']);
      if (declared > this.maxResponseBytes) {
        res.body.destroy();
        return failure('SERVICE_RESPONSE_TOO_LARGE', 'Service response too large');
      }
      const text = await readCapped(res.body, this.maxResponseBytes);
      if (text === undefined) return failure('SERVICE_RESPONSE_TOO_LARGE', 'Service response too large');
      return toolResult(text, headerText(res.headers['content-type']));
    } catch (err) {
      if (abort.signal.aborted) return failure('SERVICE_TIMEOUT', `Service timed out after ${plan.timeoutMs} ms`);
      return failure('SERVICE_UNAVAILABLE', `Service unavailable: ${reason(err)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes the pooled connections. */
  async close(): Promise<void> {
    await this.dispatcher.close().catch(() => undefined);
  }
}

function failure(code: ServiceErrorCode, message: string): ServiceOutcome {
  return { ok: false, code, message };
}

function headerText(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value ?? '').toLowerCase();
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): void }, cap: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > cap) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
}

/**
 * A 2xx body as a tool result: JSON (declared, or undeclared but parseable) → a text content with the JSON and,
 * for an object, `structuredContent`; other text → a text content; an empty body → no content;
 * a body declared JSON that does not parse, or a binary type → an error result.
 */
function toolResult(text: string, contentType: string): ServiceOutcome {
  if (text === '') return { ok: true, resultJson: '{"content":[]}' };
  const declaredJson = contentType.includes('json');
  if (declaredJson || contentType === '') {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      if (declaredJson) return failure('SERVICE_BAD_RESPONSE', 'Service error: invalid JSON response');
      return { ok: true, resultJson: textResult(text) };
    }
    const content = `[{"type":"text","text":${JSON.stringify(text)}}]`;
    const structured = typeof value === 'object' && value !== null && !Array.isArray(value);
    // The service's own JSON text is reused as structuredContent: it parsed, so it is valid JSON.
    return { ok: true, resultJson: structured ? `{"content":${content},"structuredContent":${text}}` : `{"content":${content}}` };
  }
  if (contentType.startsWith('text/') || contentType.includes('xml')) return { ok: true, resultJson: textResult(text) };
  return failure('SERVICE_BAD_RESPONSE', 'Service error: unsupported response type');
}

function textResult(text: string): string {
  return `{"content":[{"type":"text","text":${JSON.stringify(text)}}]}`;
}

function reason(err: unknown): string {
  const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code;
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
      return 'request failed';
  }
}
