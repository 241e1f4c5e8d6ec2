/**
 * The gateway config has two descriptions, the TypeScript type (`gateway-config.ts`) that the constructs build and
 * the JSON Schema (`config-schema.ts`) that `serve` checks. These tests hold them equal: the same fields at every
 * level, the same required ones, the same enumerations. The type-level half fails `npm run typecheck`.
 */
import assert from 'node:assert/strict';
import { RESPONSE_FIELDS } from '../../src/response';
import {
  BACKEND_METHODS,
  GATEWAY_CONFIG_SCHEMA,
  VALIDATION_CHANNELS,
  type GatewayConfig,
  type AuthConfig,
  type GatewaySettings,
  type OAuthConfig,
  OAUTH_CONFIG_SCHEMA,
  type TokenConfig,
  type ToolConfig,
  type ResponseConfig,
  type RateLimitConfig,
  type StoreConfig,
} from '../../src/config';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;
type RequiredKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? never : K }[keyof T];

const S = GATEWAY_CONFIG_SCHEMA;
const gatewaySchema = S.properties.gateway;
type AuthSchema = typeof gatewaySchema.properties.auth.else;
type TokenSchema = AuthSchema['properties']['tokens']['items'];
const toolSchema = S.properties.tools.items;
const backendSchema = toolSchema.properties.backend;

type Keys<T extends { properties: object }> = keyof T['properties'];
type Req<T extends { required: readonly string[] }> = T['required'][number];

// Field names: the schema's `properties` and the type's keys, level by level.
export type FieldChecks = [
  Expect<Equal<Keys<typeof S>, keyof GatewayConfig>>,
  Expect<Equal<Keys<typeof gatewaySchema>, keyof GatewaySettings>>,
  Expect<Equal<Keys<AuthSchema>, keyof AuthConfig>>,
  Expect<Equal<Keys<TokenSchema>, keyof TokenConfig>>,
  Expect<Equal<Keys<typeof OAUTH_CONFIG_SCHEMA>, keyof OAuthConfig>>,
  Expect<Equal<Keys<typeof toolSchema>, keyof ToolConfig>>,
  Expect<Equal<Keys<typeof backendSchema>, keyof ToolConfig['backend']>>,
  Expect<Equal<Keys<typeof toolSchema.properties.response>, keyof ResponseConfig>>,
  Expect<Equal<Keys<typeof gatewaySchema.properties.rate_limits.items>, keyof RateLimitConfig>>,
  Expect<Equal<Keys<typeof gatewaySchema.properties.store>, keyof StoreConfig>>,
];

// Required fields: the schema's `required` and the type's non-optional keys.
export type RequiredChecks = [
  Expect<Equal<Req<typeof S>, RequiredKeys<GatewayConfig>>>,
  Expect<Equal<Req<typeof gatewaySchema>, RequiredKeys<GatewaySettings>>>,
  Expect<Equal<Req<TokenSchema>, RequiredKeys<TokenConfig>>>,
  Expect<Equal<Req<typeof OAUTH_CONFIG_SCHEMA>, RequiredKeys<OAuthConfig>>>,
  Expect<Equal<RequiredKeys<AuthConfig>, never>>,
  Expect<Equal<Req<typeof toolSchema>, RequiredKeys<ToolConfig>>>,
  Expect<Equal<Req<typeof backendSchema>, RequiredKeys<ToolConfig['backend']>>>,
  Expect<Equal<Req<typeof gatewaySchema.properties.rate_limits.items>, RequiredKeys<RateLimitConfig>>>,
  Expect<Equal<Req<typeof gatewaySchema.properties.store>, RequiredKeys<StoreConfig>>>,
];

describe('the config type and the config schema', () => {
  it('name the same fields at every level (also checked by the compiler)', () => {
    const keys = (o: { properties: object }): string[] => Object.keys(o.properties).sort();
    const sample: GatewayConfig = {
      version: 1,
      gateway: {
        name: 'g',
        host: 'h',
        port: 1,
        validate_input: true,
        validate_output: true,
        validation_errors: 'auto',
        refusal_structured_content: false,
        auth: 'none',
        audit_log: true,
        allowed_hosts: [],
        allowed_origins: [],
        max_body_bytes: 1,
        max_held_response_bytes: 1,
        max_response_bytes: 1,
        max_concurrent_calls: 1,
        max_concurrent_calls_per_principal: 1,
        max_revoked_sessions_per_principal: 1,
        header_timeout_ms: 1,
        request_timeout_ms: 1,
        write_timeout_ms: 1,
        max_connections_per_address: 1,
        session_ttl_ms: 1,
        session_key_file: 'k',
        session_key_store: '/var/lib/cdktf-mcp-gateway/session-key',
        max_streams_per_principal: 1,
        tools_list_ttl_ms: 0,
        tools_list_page_size: 1,
        metrics: true,
        resource_url: 'https://gw.example.com/mcp',
        rate_limits: [{ calls: 1, per: 'minute', tool: 't' }],
        store: { url: 'redis://store:6379', password: { secret: 'P' }, on_unavailable: 'allow', timeout_ms: 1 },
      },
      tools: [
        {
          name: 't',
          description: '',
          input_schema: {},
          aliases: {},
          forward_as: {},
          output_schema: {},
          response: { fields: 'declared', redact: [], redact_patterns: {}, max_bytes: 1 },
          required_scopes: [],
          backend: {
            url: 'https://x',
            method: 'GET',
            timeout_ms: 1,
            headers: {},
            tls: { ca_file: 'ca.pem' },
            forward_identity: true,
            idempotent: true,
            query_params: [],
            body_param: 'b',
          },
        },
      ],
    };
    assert.deepEqual(keys(S), Object.keys(sample).sort());
    assert.deepEqual(keys(gatewaySchema), Object.keys(sample.gateway).sort());
    assert.deepEqual(keys(toolSchema), Object.keys(sample.tools[0]).sort());
    assert.deepEqual(keys(backendSchema), Object.keys(sample.tools[0].backend).sort());
    assert.deepEqual(keys(toolSchema.properties.response), Object.keys(sample.tools[0].response!).sort());
    assert.deepEqual(
      keys(gatewaySchema.properties.rate_limits.items),
      Object.keys(sample.gateway.rate_limits![0]).sort(),
    );
    assert.deepEqual(keys(gatewaySchema.properties.store), Object.keys(sample.gateway.store!).sort());
  });

  it('enumerate the channels and methods of the shared rules', () => {
    assert.deepEqual(gatewaySchema.properties.validation_errors.enum, [...VALIDATION_CHANNELS]);
    assert.deepEqual(backendSchema.properties.method.enum, [...BACKEND_METHODS]);
    assert.deepEqual(toolSchema.properties.response.properties.fields.enum, [...RESPONSE_FIELDS]);
  });
});
