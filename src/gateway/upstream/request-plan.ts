import { DEFAULT_SERVICE_TIMEOUT_MS, fixedQueryNames, type ToolConfig } from '../../config';
import { joinMessages, nonFiniteNumbers } from '../../validation';
import { toWellFormed } from '../../validation/well-formed';
import { backendHeaderList } from './backend-headers';
import { readCaBundle } from './backend-tls';
import {
  ownValue,
  placeholderProblem,
  planPlaceholders,
  type PlaceholderProblem,
  type PlaceholderSlot,
} from './placeholders';
import type { SecretValues } from './secrets';

/** How one tool reaches its service, prepared once per config (not per call). */
export interface ServicePlan {
  readonly method: ToolConfig['backend']['method'];
  /** The URL split around its `{field}` placeholders: literal text at even indices, field names at odd ones. */
  readonly urlParts: readonly string[];
  readonly placeholders: ReadonlySet<string>;
  /** The placeholders with the parameter that fills each and its path segment; empty for a URL without any. */
  readonly placeholderSlots: readonly PlaceholderSlot[];
  /** Whether the URL already holds a query (then more parameters join with `&`). */
  readonly urlHasQuery: boolean;
  /**
   * Fields never sent as query parameters: the placeholders (sent in the URL) and, for a query-sending method,
   * the query names the URL fixes (a caller field never overrides or duplicates one).
   */
  readonly notInQuery: ReadonlySet<string>;
  readonly sendsBody: boolean;
  /** For a body-sending method: the fields sent as the query instead (`backend.query_params`). */
  readonly queryParams: ReadonlySet<string>;
  /** For a body-sending method: the field whose value is the whole body (`backend.body_param`). */
  readonly bodyParam: string | undefined;
  readonly timeoutMs: number;
  /** `[parameter, backend field]` renames. */
  readonly forwardAs: readonly (readonly [string, string])[];
  /**
   * The origin every call goes to, when the URL's origin holds no placeholder and the URL is already in the form
   * the WHATWG URL parser would give it: the request target is then the filled URL minus this prefix, with no
   * parse per call. `undefined`: every call parses its URL (the exact same result, only slower).
   */
  readonly fixedOrigin: string | undefined;
  /** The request headers as undici's flat `[name, value, …]` list, built once (the service's own included). */
  readonly headers: readonly string[];
  /** The CA bundle (PEM) the backend's certificate must chain to; `undefined`: Node's bundled CAs. */
  readonly ca: string | undefined;
  /** Whether calls carry `X-MCP-Principal` and `X-MCP-Client`. */
  readonly forwardIdentity: boolean;
  /** Whether a request lost with its connection, before the answer's headers, is sent again (once). */
  readonly idempotent: boolean;
}

/** HTTP's idempotent methods among those a backend takes (RFC 9110 §9.2.2). */
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'PUT', 'DELETE']);

/** The request a plan makes for some (already normalized and validated) arguments. */
export interface ServiceRequest {
  readonly method: string;
  readonly url: string;
  readonly body?: string;
}

/** Where a request goes, as undici's dispatcher takes it. */
export interface ServiceTarget {
  readonly origin: string;
  /** Path and query. */
  readonly path: string;
}

// Only these headers: nothing of the caller's request (its Authorization above all) reaches the service.
const HEADERS_WITHOUT_BODY: readonly string[] = ['accept', 'application/json', 'user-agent', 'cdktf-mcp-gateway'];
const HEADERS_WITH_BODY: readonly string[] = [...HEADERS_WITHOUT_BODY, 'content-type', 'application/json'];

const NO_SECRETS: SecretValues = new Map();

/**
 * Prepares the call plan of a tool.
 *
 * @param secrets the values of the secrets the config refers to (`readSecrets`)
 * @param where the tool's field path for errors, e.g. `tools[2]`
 * @throws ConfigError for a secret that cannot be a header value or a CA bundle that cannot be read
 */
export function planServiceCall(tool: ToolConfig, secrets: SecretValues = NO_SECRETS, where = 'tool'): ServicePlan {
  const urlParts = tool.backend.url.split(/\{([^{}]+)\}/);
  const placeholders = new Set(urlParts.filter((_, i) => i % 2 === 1));
  const method = tool.backend.method;
  const sendsBody = method !== 'GET' && method !== 'DELETE';
  const forwardAs = Object.entries(tool.forward_as ?? {});
  return {
    method,
    urlParts,
    placeholders,
    placeholderSlots: planPlaceholders(urlParts, forwardAs),
    urlHasQuery: tool.backend.url.includes('?'),
    notInQuery: new Set([...placeholders, ...(sendsBody ? [] : fixedQueryNames(tool.backend.url))]),
    sendsBody,
    queryParams: new Set(sendsBody ? (tool.backend.query_params ?? []) : []),
    bodyParam: sendsBody ? tool.backend.body_param : undefined,
    timeoutMs: tool.backend.timeout_ms ?? DEFAULT_SERVICE_TIMEOUT_MS,
    forwardAs,
    fixedOrigin: fixedOrigin(tool.backend.url),
    headers: backendHeaderList(sendsBody ? HEADERS_WITH_BODY : HEADERS_WITHOUT_BODY, tool.backend, secrets, where),
    ca: readCaBundle(tool.backend, secrets, where),
    forwardIdentity: tool.backend.forward_identity === true,
    idempotent: tool.backend.idempotent ?? IDEMPOTENT_METHODS.has(method),
  };
}

/**
 * The origin of a URL template whose literal text the URL parser leaves as it is (so that filling placeholders
 * with URL-encoded values and cutting off the origin gives what parsing the filled URL would give), else
 * `undefined`. Templates with `%` are left to the parser: a literal `%` next to a filled value could form an
 * encoded dot segment.
 */
function fixedOrigin(template: string): string | undefined {
  if (template.includes('%')) return undefined;
  const standIn = template.replace(/\{[^{}]+\}/g, 'x');
  let url: URL;
  try {
    url = new URL(standIn);
  } catch {
    return undefined;
  }
  const origin = url.origin;
  if (origin === 'null' || standIn !== origin + url.pathname + url.search) return undefined;
  // A placeholder in the origin (`http://{host}/…`) makes the origin vary per call.
  return template.slice(0, origin.length).includes('{') ? undefined : origin;
}

/**
 * Builds the service request: `forwardAs` renames first, then `{field}` placeholders are filled URL-encoded and
 * removed from the rest, which goes as the query (GET, DELETE) or as a JSON body (POST, PUT, PATCH). Only own
 * fields are read: an absent field is never filled from `Object.prototype` (`constructor`, `toString`, …), and a
 * field named `__proto__` is an ordinary field.
 */
export function buildServiceRequest(plan: ServicePlan, args: Readonly<Record<string, unknown>>): ServiceRequest {
  const fields = forwardedFields(plan, args);
  let url = plan.urlParts[0];
  for (let i = 1; i < plan.urlParts.length; i += 2) {
    url += pathValue(ownValue(fields, plan.urlParts[i])) + plan.urlParts[i + 1];
  }
  if (plan.sendsBody) {
    if (plan.queryParams.size > 0) {
      const query = queryString(pick(fields, plan.queryParams), plan.notInQuery);
      if (query !== '') url += (plan.urlHasQuery ? '&' : '?') + query;
    }
    if (plan.bodyParam !== undefined) {
      const value = ownValue(fields, plan.bodyParam);
      return value === undefined
        ? { method: plan.method, url }
        : { method: plan.method, url, body: JSON.stringify(value) };
    }
    return { method: plan.method, url, body: JSON.stringify(bodyFields(plan, fields)) };
  }
  const query = queryString(fields, plan.notInQuery);
  if (query !== '') url += (plan.urlHasQuery ? '&' : '?') + query;
  return { method: plan.method, url };
}

/** The fields of a JSON body: all of them (no copy) unless a placeholder or the query took some. */
function bodyFields(plan: ServicePlan, fields: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  if (plan.placeholders.size === 0 && plan.queryParams.size === 0) return fields;
  // A null-prototype copy: a field named `__proto__` stays an own field, never the prototype.
  const rest: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!plan.placeholders.has(key) && !plan.queryParams.has(key)) rest[key] = fields[key];
  }
  return rest;
}

/** The own fields named in `names` (a null-prototype copy). */
function pick(fields: Readonly<Record<string, unknown>>, names: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(fields)) if (names.has(key)) out[key] = fields[key];
  return out;
}

/**
 * What the plan's URL cannot carry for these arguments (a placeholder's parameter absent, a path segment filled
 * empty, `.` or `..`), or `undefined`. Only for plans with placeholders: the caller skips the others.
 */
export function placeholderProblemOf(
  plan: ServicePlan,
  args: Readonly<Record<string, unknown>>,
): PlaceholderProblem | undefined {
  return placeholderProblem(plan.placeholderSlots, plan.urlParts, forwardedFields(plan, args), pathValue);
}

/**
 * What the request cannot carry, checked after validation whatever `validate_input` says: the placeholder
 * problems above, and numbers that are not finite anywhere in the arguments (JSON has no `Infinity`). Costs a walk
 * over the arguments without building paths unless there is something to refuse.
 */
export function forwardingProblemOf(
  plan: ServicePlan,
  args: Readonly<Record<string, unknown>>,
): PlaceholderProblem | undefined {
  const placeholder = plan.placeholderSlots.length > 0 ? placeholderProblemOf(plan, args) : undefined;
  const numbers = nonFiniteNumbers(args);
  if (numbers === undefined) return placeholder;
  const violations = [...(placeholder?.violations ?? []), ...numbers].slice(0, 20);
  return { message: joinMessages(violations), violations };
}

/** The arguments under the names the backend receives (`forwardAs` applied); the same object without renames. */
function forwardedFields(
  plan: ServicePlan,
  args: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> {
  if (plan.forwardAs.length === 0) return args;
  // A null-prototype copy: a field named `__proto__` is an own field like any other, never the prototype.
  const fields: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const renamed = new Set(plan.forwardAs.map(([param]) => param));
  for (const key of Object.keys(args)) if (!renamed.has(key)) fields[key] = args[key];
  for (const [param, field] of plan.forwardAs) {
    if (Object.hasOwn(args, param)) fields[field] = args[param];
  }
  return fields;
}

/**
 * The origin and path of a built request. With a fixed origin this is a slice; a filled value of `.` or `..`
 * (a dot segment, which the URL parser resolves) or a template the parser would rewrite goes through `URL`.
 *
 * @throws TypeError for a URL that does not parse
 */
export function serviceTarget(plan: ServicePlan, url: string): ServiceTarget {
  const origin = plan.fixedOrigin;
  if (origin !== undefined && !url.includes('/.', origin.length)) return { origin, path: url.slice(origin.length) };
  const parsed = new URL(url);
  return { origin: parsed.origin, path: parsed.pathname + parsed.search };
}

function pathValue(value: unknown): string {
  if (value === undefined) return '';
  return encodeComponent(typeof value === 'string' ? value : scalarText(value));
}

/**
 * `encodeURIComponent`, with lone surrogates (which it refuses with a `URIError`) written as U+FFFD, as
 * `URLSearchParams` does. The retry costs nothing for the well-formed text of nearly every call.
 */
function encodeComponent(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return encodeURIComponent(toWellFormed(text));
  }
}

function scalarText(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

function queryString(fields: Readonly<Record<string, unknown>>, skip: ReadonlySet<string>): string {
  const pairs: string[] = [];
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (value === undefined || skip.has(key)) continue;
    const name = queryComponent(key);
    if (Array.isArray(value)) {
      for (const item of value) pairs.push(`${name}=${queryComponent(scalarText(item))}`);
    } else {
      pairs.push(`${name}=${queryComponent(scalarText(value))}`);
    }
  }
  return pairs.join('&');
}

/** `encodeURIComponent`, plus `'` as `%27`: the URL parser escapes `'` in the query of http(s) URLs. */
function queryComponent(text: string): string {
  const encoded = encodeComponent(text);
  // split/join, not a global replace: a value of a million quotes costs a third as much.
  return encoded.includes("'") ? encoded.split("'").join('%27') : encoded;
}
