/**
 * The support desk backend: a small node:http JSON service implementing every route the example's tools call.
 * It checks its own input loosely (like most real backends), which is what the `legacy` gateway, forwarding
 * unchecked calls, runs into.
 *
 * @example
 * const backend = await startSupportDeskBackend({ port: 0 });
 * console.log(backend.url); // http://127.0.0.1:PORT
 * await backend.close();
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SupportDeskStore, type NewTicket, type TicketQuery } from './support-desk-store.ts';

/** Options of {@link startSupportDeskBackend}. */
export interface SupportDeskBackendOptions {
  /** @default 8080 (0 picks a free port) */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** @default - a freshly seeded store */
  readonly store?: SupportDeskStore;
}

/** A listening backend. */
export interface RunningSupportDeskBackend {
  /** `http://HOST:PORT`, without a trailing slash. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Largest request body the backend reads. */
const MAX_BODY_BYTES = 1024 * 1024;

/** A request error with its HTTP status, turned into a JSON response in one place. */
class HttpError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

type Json = Record<string, unknown>;
type Handler = (params: Record<string, string>, req: http.IncomingMessage, url: URL) => Promise<[number, unknown]>;

/** Starts the backend and resolves once it listens. */
export async function startSupportDeskBackend(
  options: SupportDeskBackendOptions = {},
): Promise<RunningSupportDeskBackend> {
  const store = options.store ?? new SupportDeskStore();
  const routes = supportDeskRoutes(store);
  const server = http.createServer((req, res) => {
    void handle(routes, req).then(([status, body]) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

interface Route {
  readonly method: string;
  readonly pattern: RegExp;
  readonly keys: readonly string[];
  readonly handler: Handler;
}

function route(method: string, path: string, handler: Handler): Route {
  const keys: string[] = [];
  const source = path.replace(/:(\w+)/g, (_, key: string) => {
    keys.push(key);
    return '([^/]+)';
  });
  return { method, pattern: new RegExp(`^${source}/?$`), keys, handler };
}

async function handle(routes: readonly Route[], req: http.IncomingMessage): Promise<[number, unknown]> {
  try {
    const url = new URL(req.url ?? '/', 'http://backend');
    const matching = routes.filter((r) => r.pattern.test(url.pathname));
    if (matching.length === 0) throw new HttpError(404, `no route for ${url.pathname}`);
    const r = matching.find((m) => m.method === req.method);
    if (r === undefined) throw new HttpError(405, `method ${req.method} not allowed on ${url.pathname}`);
    const match = r.pattern.exec(url.pathname)!;
    const params: Record<string, string> = {};
    r.keys.forEach((k, i) => {
      params[k] = decodePathSegment(k, match[i + 1]);
    });
    return await r.handler(params, req, url);
  } catch (err) {
    if (err instanceof HttpError) return [err.status, { error: err.message }];
    // a bug in this backend: say so where its operator looks, keep the details out of the response
    process.stderr.write(
      `support-desk backend: ${req.method} ${req.url}: ${err instanceof Error ? err.stack : String(err)}\n`,
    );
    return [500, { error: 'internal error' }];
  }
}

function decodePathSegment(key: string, raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, `${key}: invalid percent-encoding in the path`);
  }
}

function supportDeskRoutes(store: SupportDeskStore): Route[] {
  return [
    route('GET', '/health', async () => [200, { status: 'ok' }]),
    route('GET', '/customers/:customer_id', async ({ customer_id }) => {
      const customer = store.customer(customer_id);
      if (customer === undefined) throw new HttpError(404, `customer ${customer_id} not found`);
      return [200, customer];
    }),
    route('GET', '/tickets', async (_, __, url) => {
      const tickets = store.searchTickets(ticketQuery(url.searchParams));
      return [200, { tickets, count: tickets.length }];
    }),
    route('GET', '/tickets/:id', async ({ id }) => {
      const ticket = store.ticket(id);
      if (ticket === undefined) throw new HttpError(404, `ticket ${id} not found`);
      return [200, ticket];
    }),
    route('POST', '/tickets', async (_, req) => [201, store.createTicket(newTicket(await readJson(req)))]),
    route('GET', '/settings/:team', async ({ team }) => [200, { team, settings: store.teamSettings(team) }]),
    route('PUT', '/settings/:team', async ({ team }, req) => {
      const settings = (await readJson(req)).settings;
      if (!isObject(settings)) throw new HttpError(400, 'settings: expected an object');
      return [200, { team, settings: store.updateSettings(team, settings) }];
    }),
    route('GET', '/tasks', async () => [200, { tasks: store.listTasks() }]),
    route('POST', '/tasks', async (_, req) => {
      const body = await readJson(req);
      const title = requireString(body, 'title');
      const description = requireString(body, 'description');
      const due = optional(body, 'due', 'string');
      return [201, store.createTask({ title, description, ...(due !== undefined ? { due } : {}) })];
    }),
  ];
}

function ticketQuery(params: URLSearchParams): TicketQuery {
  const int = (name: string): number | undefined => {
    const raw = params.get(name);
    if (raw === null) return undefined;
    if (!/^-?\d+$/.test(raw)) throw new HttpError(400, `${name}: expected an integer`);
    return Number(raw);
  };
  const createdAfter = params.get('created_after');
  const parsed = createdAfter === null ? undefined : Date.parse(createdAfter);
  if (Number.isNaN(parsed)) throw new HttpError(400, 'created_after: expected a date-time');
  return {
    query: params.get('query') ?? undefined,
    status: params.get('status') ?? undefined,
    priority: int('priority'),
    limit: int('limit'),
    createdAfter: parsed,
  };
}

function newTicket(body: Json): NewTicket {
  const customer = body.customer;
  if (!isObject(customer)) throw new HttpError(400, 'customer: expected an object');
  const priority = optional(body, 'priority', 'number');
  const tags = body.tags;
  if (tags !== undefined && !(Array.isArray(tags) && tags.every((t) => typeof t === 'string'))) {
    throw new HttpError(400, 'tags: expected an array of strings');
  }
  return {
    subject: requireString(body, 'subject'),
    body: requireString(body, 'body'),
    customer: {
      name: requireString(customer, 'name', 'customer.'),
      email: requireString(customer, 'email', 'customer.'),
      ...(Array.isArray(customer.addresses)
        ? { addresses: customer.addresses as NewTicket['customer']['addresses'] }
        : {}),
    },
    ...(priority !== undefined ? { priority } : {}),
    ...(tags !== undefined ? { tags: tags as string[] } : {}),
  };
}

function requireString(o: Json, key: string, prefix = ''): string {
  const v = o[key];
  if (typeof v !== 'string' || v === '') throw new HttpError(400, `${prefix}${key}: required string`);
  return v;
}

function optional<T extends 'string' | 'number'>(
  o: Json,
  key: string,
  type: T,
): (T extends 'string' ? string : number) | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== type) throw new HttpError(400, `${key}: expected a ${type}`);
  return v as T extends 'string' ? string : number;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

async function readJson(req: http.IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'request body too large');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'request body is not valid JSON');
  }
  if (!isObject(parsed)) throw new HttpError(400, 'request body: expected a JSON object');
  return parsed;
}
