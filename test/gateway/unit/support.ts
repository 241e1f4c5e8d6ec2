/**
 * What the gateway unit tests share beyond `test/helpers/`: two fixed tokens, a config with the tools of a fake
 * service, an in-process gateway with a silent logger, and the short call forms these tests are written in.
 * Each is a thin layer over a shared helper, so every job (hashing, serving, posting, polling) is done once.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { GatewayConfig, ToolConfig } from '../../../src/contract';
import { silentLogger, startGateway, type RunningGateway, type StartGatewayOptions } from '../../../src/gateway';
import { startBackend, type BackendAnswer, type ReceivedRequest } from '../../helpers/backend';
import { gatewayConfig, tool as configTool, type SettingsOverrides } from '../../helpers/config';
import { rawRequest } from '../../helpers/http';
import { connectSdkClient, initializeRequest, postMcp, toolsCallRequest } from '../../helpers/mcp';
import { makeToken } from '../../helpers/tokens';

export { eventually } from '../../helpers/eventually';

/** The principal `bot`; its token is fixed so a test can also write it inline. */
export const BOT = makeToken('bot', 'test-token-1');
/** The principal `other`, for what one principal must not see of another. */
export const OTHER = makeToken('other', 'test-token-2');
export const TOKEN = BOT.token;
export const OTHER_TOKEN = OTHER.token;

/** A service on an ephemeral port that records requests and answers with `respond`, which a test may replace. */
export interface FakeService {
  readonly origin: string;
  readonly received: readonly ReceivedRequest[];
  /** @default - echoes `{ method, url, body }` as JSON */
  respond: (req: ReceivedRequest) => BackendAnswer;
  close(): Promise<void>;
}

export async function startFakeService(): Promise<FakeService> {
  let respond: FakeService['respond'] = (req) => ({ body: JSON.stringify({ method: req.method, url: req.url, body: req.body }) });
  // Keeps every request: tests compare `received.length` before and after a call.
  const backend = await startBackend({ keepReceived: Infinity, respond: (req) => respond(req) });
  return {
    origin: backend.url,
    get received() { return backend.received; },
    get respond() { return respond; },
    set respond(fn) { respond = fn; },
    close: () => backend.close(),
  };
}

/** A tool of the fake service at `origin` + `path`; `extra` overrides any field. */
export function tool(origin: string, name: string, path: string, schema: Record<string, unknown>, extra: Partial<ToolConfig> = {}): ToolConfig {
  return { ...configTool(name, `${origin}${path}`, { description: `The ${name} tool`, inputSchema: schema }), ...extra };
}

/** Gateway settings a unit test may set: any, plus `name` and `auth: 'none'`. */
export type UnitSettings = SettingsOverrides & { readonly name?: string; readonly auth?: 'none' };

/** A config named `test` that accepts {@link BOT} and {@link OTHER}, without an audit log unless `gateway` sets one. */
export function config(tools: readonly ToolConfig[], gateway: UnitSettings = {}): GatewayConfig {
  const { name = 'test', auth, ...settings } = gateway;
  return gatewayConfig({ name, tokens: auth === 'none' ? 'none' : [BOT, OTHER], tools, settings: { audit_log: false, ...settings } });
}

/** `startGateway` on 127.0.0.1, port 0, with a silent logger. */
export function start(cfg: GatewayConfig, options: Partial<StartGatewayOptions> = {}): Promise<RunningGateway> {
  return startGateway({ config: cfg, port: 0, host: '127.0.0.1', logger: silentLogger, ...options });
}

/** An official SDK client connected to the gateway, as client `unit-test` 1.2.3 (the audit tests read it). */
export async function connect(url: string, token = TOKEN): Promise<Client> {
  return (await connectSdkClient(url, token, { name: 'unit-test', version: '1.2.3' })).client;
}

/** Calls a tool over a raw session and returns the JSON-RPC response. */
export async function rawCall(url: string, session: string, name: string, args?: unknown, headers: Record<string, string> = {}): Promise<any> {
  // Always id 1: tests compare whole responses.
  const res = await post(url, { ...toolsCallRequest(name, args), id: 1 }, { 'mcp-session-id': session, ...headers });
  return res.json;
}

/** Raw JSON-RPC as {@link TOKEN} (unless `headers` says otherwise); the body must be JSON (or empty). */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; json: any }> {
  const res = await postMcp(url, body, { token: TOKEN, headers });
  // The whole body, not postMcp's one message: batch tests read the array, and an SSE answer must fail here.
  return { status: res.status, headers: res.headers, json: res.text === '' ? undefined : JSON.parse(res.text) };
}

/**
 * Sends `initialize` (as client `raw` 0.1) and returns the session id. It does not send
 * `notifications/initialized`, unlike `openSession`: these tests need no more than the session.
 */
export async function initialize(url: string, protocolVersion = '2025-06-18', token = TOKEN): Promise<string> {
  const res = await post(url, initializeRequest(protocolVersion, { name: 'raw', version: '0.1' }), { authorization: `Bearer ${token}` });
  return res.headers.get('mcp-session-id')!;
}

/** A request by node:http (any header, Host included, any body), with the body also parsed when it is JSON. */
export async function httpRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string; json: any }> {
  const res = await rawRequest({ url, ...options, timeoutMs: 5_000 });
  let json: unknown;
  try {
    json = res.text === '' ? undefined : JSON.parse(res.text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, body: res.text, json };
}
