/**
 * Builders for gateway config documents (`src/config/gateway-config.ts`), so a test states only what it is about.
 */
import type { BackendMethod, GatewayConfig, GatewaySettings, ToolConfig } from '../../src/config';
import { BOT, OTHER, type TestToken, tokenEntry } from './tokens';

/** Everything of the gateway settings except `name` and `auth`, which {@link gatewayConfig} fills. */
export type SettingsOverrides = Partial<Omit<GatewaySettings, 'name' | 'auth'>>;

export interface GatewayConfigOptions {
  /** @default 'test-gateway' */
  readonly name?: string;
  /** Tokens accepted; `'none'` turns authentication off. */
  readonly tokens: readonly TestToken[] | 'none';
  readonly tools: readonly ToolConfig[];
  /** Other settings (host, port, validate_input, …). @default - host 127.0.0.1, port 8080, the rest per the config defaults */
  readonly settings?: SettingsOverrides;
}

/**
 * A gateway config document bound to 127.0.0.1 (port 8080 in the document; tests override it with port 0). Its
 * refusals are JSON-RPC errors (`validation_errors: protocol`) whatever the client's revision, so a test asserts one
 * shape; the default channel, `auto`, has tests of its own (test/gateway/tools/call-pipeline.test.ts).
 * @example
 * const config = gatewayConfig({ tokens: [bot], tools: [echoTool('get_customer', backend.url)] });
 */
export function gatewayConfig(options: GatewayConfigOptions): GatewayConfig {
  return {
    version: 1,
    gateway: {
      name: options.name ?? 'test-gateway',
      host: '127.0.0.1',
      // The document's port must be a real one; tests pass --port 0 (or `port: 0` to startGateway) to override it.
      port: 8080,
      auth: options.tokens === 'none' ? 'none' : { tokens: options.tokens.map(tokenEntry) },
      validation_errors: 'protocol',
      ...options.settings,
    },
    tools: options.tools,
  };
}

/** Gateway settings {@link botConfig} takes: any, plus `name` and `auth: 'none'`. */
export type BotSettings = SettingsOverrides & { readonly name?: string; readonly auth?: 'none' };

/**
 * A config named `test` that accepts {@link BOT} and {@link OTHER}, without an audit log unless `settings` sets one.
 * @example
 * const gateway = await startSilentGateway(botConfig([tool('lookup', `${service.url}/lookup`)], { max_body_bytes: 1000 }));
 */
export function botConfig(tools: readonly ToolConfig[], settings: BotSettings = {}): GatewayConfig {
  const { name = 'test', auth, ...rest } = settings;
  return gatewayConfig({
    name,
    tokens: auth === 'none' ? 'none' : [BOT, OTHER],
    tools,
    settings: { audit_log: false, ...rest },
  });
}

/** A closed object schema (root form of a generated schema, docs/input-and-validation.md). */
export function objectSchema(
  properties: Record<string, Record<string, unknown>>,
  required: readonly string[] = [],
): Record<string, unknown> {
  return { type: 'object', properties, required: [...required], additionalProperties: false };
}

export interface ToolOptions {
  readonly description?: string;
  /** @default 'GET' */
  readonly method?: BackendMethod;
  /** @default - parameterless: `{"type":"object","properties":{},"required":[],"additionalProperties":false}` */
  readonly inputSchema?: Record<string, unknown>;
  readonly aliases?: Record<string, string>;
  readonly forwardAs?: Record<string, string>;
  /** @default - the config default (10000) */
  readonly timeoutMs?: number;
}

/** A tool calling `url` (which may hold `{field}` placeholders). */
export function tool(name: string, url: string, options: ToolOptions = {}): ToolConfig {
  return {
    name,
    description: options.description ?? `Test tool ${name}`,
    input_schema: options.inputSchema ?? objectSchema({}),
    ...(options.aliases ? { aliases: options.aliases } : {}),
    ...(options.forwardAs ? { forward_as: options.forwardAs } : {}),
    backend: {
      url,
      method: options.method ?? 'GET',
      ...(options.timeoutMs !== undefined ? { timeout_ms: options.timeoutMs } : {}),
    },
  };
}

/**
 * The support-desk-like tools most e2e tests use, all pointing at one echo backend:
 * - `get_customer`  GET  `/customers/{customer_id}`; `customer_id` required, pattern `^C-[0-9]{4}$`;
 *                        `query` string maxLength 200; `limit` integer 1–100.
 * - `create_ticket` POST `/tickets`; `subject` required; `customer` object required {`name` required,
 *                        `addresses` array of {`zip_code` integer required}}.
 * - `create_task`   POST `/tasks`; `title` required; `prompt` required, alias `description`, forwarded as `description`.
 * - `health`        GET  `/health`; parameterless.
 */
export function supportDeskTools(backendUrl: string): ToolConfig[] {
  return [
    tool('get_customer', `${backendUrl}/customers/{customer_id}`, {
      inputSchema: objectSchema(
        {
          customer_id: { type: 'string', pattern: '^C-[0-9]{4}$' },
          query: { type: 'string', maxLength: 200 },
          limit: { type: 'integer', minimum: 1, maximum: 100 },
        },
        ['customer_id'],
      ),
    }),
    tool('create_ticket', `${backendUrl}/tickets`, {
      method: 'POST',
      inputSchema: objectSchema(
        {
          subject: { type: 'string', maxLength: 200 },
          customer: objectSchema(
            {
              name: { type: 'string' },
              addresses: {
                type: 'array',
                maxItems: 5,
                items: objectSchema({ zip_code: { type: 'integer' } }, ['zip_code']),
              },
            },
            ['name'],
          ),
        },
        ['subject', 'customer'],
      ),
    }),
    tool('create_task', `${backendUrl}/tasks`, {
      method: 'POST',
      inputSchema: objectSchema({ title: { type: 'string' }, prompt: { type: 'string' } }, ['title', 'prompt']),
      aliases: { description: 'prompt' },
      forwardAs: { prompt: 'description' },
    }),
    tool('health', `${backendUrl}/health`),
  ];
}

/**
 * `config` with every tool's backend URL moved from origin `from` (a synthesized config's Docker network name, an
 * OpenAPI server) to `to` (a test backend's URL), and nothing else changed.
 */
export function withBackendOrigin(config: GatewayConfig, from: string, to: string): GatewayConfig {
  return {
    ...config,
    tools: config.tools.map((t) => ({ ...t, backend: { ...t.backend, url: t.backend.url.replace(from, to) } })),
  };
}
