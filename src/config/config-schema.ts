import { SECRET_NAME_PATTERN } from './backend-rules';
import { OAUTH_CONFIG_SCHEMA, SCOPES_SCHEMA, SECURE_URL_PATTERN } from './oauth-config';
import {
  BACKEND_METHODS,
  MAX_PORT,
  MAX_SERVICE_TIMEOUT_MS,
  TOKEN_SHA256_PATTERN,
  TOOL_NAME_PATTERN,
  VALIDATION_CHANNELS,
} from './rules';
import { RATE_LIMITS_SCHEMA, STORE_CONFIG_SCHEMA } from './rate-limits';
import { MAX_RESPONSE_MAX_BYTES, RESPONSE_FIELDS } from '../response/response-rules';

const positiveInteger = (what: string) => ({
  type: 'integer',
  minimum: 1,
  'x-message': `must be a positive integer (${what})`,
});

const PORT_SCHEMA = {
  type: 'integer',
  minimum: 1,
  maximum: MAX_PORT,
  'x-message': `must be an integer 1-${MAX_PORT}`,
} as const;

const secretName = {
  type: 'string',
  pattern: SECRET_NAME_PATTERN,
  'x-message': `must be a secret name matching ${SECRET_NAME_PATTERN}`,
};

const nameMap = {
  type: 'object',
  additionalProperties: { type: 'string', minLength: 1, 'x-message': 'must be a non-empty string' },
  'x-message': 'must be an object mapping names to names',
};

/** A tool's `response` (the cross-field checks are `responseSettingsProblem`'s). */
const RESPONSE_CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  'x-message': 'must be an object { fields?, redact?, redact_patterns?, max_bytes? }',
  properties: {
    fields: { enum: [...RESPONSE_FIELDS], 'x-message': 'must be "declared" or "all"' },
    redact: {
      type: 'array',
      items: { type: 'string', minLength: 1, 'x-message': 'must be a non-empty string (a path)' },
      'x-message': 'must be an array of paths',
    },
    redact_patterns: {
      type: 'object',
      additionalProperties: { type: 'string', minLength: 1, 'x-message': 'must be a non-empty string (a pattern)' },
      'x-message': 'must be an object mapping names to patterns',
    },
    max_bytes: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_RESPONSE_MAX_BYTES,
      'x-message': `must be an integer 1-${MAX_RESPONSE_MAX_BYTES} (bytes)`,
    },
  },
} as const;

/**
 * The JSON Schema of the gateway config document (`gateway-config.ts` is the TypeScript twin).
 * `x-message` is this module's own annotation: the one-line reason reported for a failure at that node,
 * so a refusal reads `gateway.port: must be an integer 1-65535` rather than an ajv keyword dump.
 */
export const GATEWAY_CONFIG_SCHEMA = {
  type: 'object',
  required: ['version', 'gateway', 'tools'],
  additionalProperties: false,
  'x-message': 'must be an object with version, gateway and tools',
  properties: {
    version: { const: 1, 'x-message': 'unsupported config version (this gateway reads version 1)' },
    gateway: {
      type: 'object',
      required: ['name', 'auth'],
      additionalProperties: false,
      'x-message': 'must be an object',
      properties: {
        name: { type: 'string', minLength: 1, 'x-message': 'must be a non-empty string' },
        host: { type: 'string', minLength: 1, 'x-message': 'must be a non-empty string' },
        port: PORT_SCHEMA,
        validate_input: { type: 'boolean', 'x-message': 'must be true or false' },
        validate_output: { type: 'boolean', 'x-message': 'must be true or false' },
        validation_errors: {
          enum: [...VALIDATION_CHANNELS],
          'x-message': `must be one of ${VALIDATION_CHANNELS.map((c) => JSON.stringify(c)).join(', ')}`,
        },
        refusal_structured_content: { type: 'boolean', 'x-message': 'must be true or false' },
        auth: {
          if: { type: 'string' },
          then: { const: 'none', 'x-message': 'must be "none" or { tokens?, oauth? }' },
          else: {
            type: 'object',
            minProperties: 1,
            additionalProperties: false,
            'x-message': 'must be "none" or { tokens?, oauth? } with at least one of them',
            properties: {
              tokens: {
                type: 'array',
                minItems: 1,
                'x-message': 'must be a non-empty array (or set auth: "none")',
                items: {
                  type: 'object',
                  required: ['id', 'sha256'],
                  additionalProperties: false,
                  'x-message': 'must be an object { id, sha256, scopes? }',
                  properties: {
                    id: {
                      type: 'string',
                      minLength: 1,
                      maxLength: 256,
                      'x-message': 'must be a non-empty string of at most 256 characters',
                    },
                    sha256: {
                      type: 'string',
                      pattern: TOKEN_SHA256_PATTERN,
                      'x-message': 'must be 64 lowercase hex characters (the SHA-256 of the token)',
                    },
                    scopes: SCOPES_SCHEMA,
                  },
                },
              },
              oauth: OAUTH_CONFIG_SCHEMA,
            },
          },
        },
        resource_url: {
          type: 'string',
          pattern: SECURE_URL_PATTERN,
          'x-message':
            'must be the https:// URL agents reach the MCP endpoint at (http:// only on localhost), e.g. https://gw.example.com/mcp',
        },
        audit_log: {
          if: { type: 'object' },
          then: {
            type: 'object',
            required: ['path'],
            additionalProperties: false,
            'x-message': "must be true, false, 'store' or { path }",
            properties: { path: { type: 'string', minLength: 1, 'x-message': 'must be a non-empty string' } },
          },
          else: { enum: [true, false, 'store'], 'x-message': "must be true, false, 'store' or { path }" },
        },
        allowed_hosts: {
          type: 'array',
          items: { type: 'string', minLength: 1, 'x-message': 'must be a non-empty string' },
          'x-message': 'must be an array of host names',
        },
        allowed_origins: {
          type: 'array',
          items: { type: 'string', minLength: 1, 'x-message': 'must be a non-empty string' },
          'x-message': 'must be an array of origins',
        },
        max_body_bytes: positiveInteger('bytes'),
        max_response_bytes: positiveInteger('bytes'),
        max_held_response_bytes: positiveInteger('bytes'),
        max_concurrent_calls: positiveInteger('calls'),
        max_concurrent_calls_per_principal: positiveInteger('calls'),
        max_revoked_sessions_per_principal: positiveInteger('sessions'),
        rate_limits: RATE_LIMITS_SCHEMA,
        store: STORE_CONFIG_SCHEMA,
        header_timeout_ms: positiveInteger('milliseconds'),
        request_timeout_ms: positiveInteger('milliseconds'),
        write_timeout_ms: positiveInteger('milliseconds'),
        max_connections_per_address: positiveInteger('connections'),
        session_ttl_ms: positiveInteger('milliseconds'),
        session_key_file: { type: 'string', minLength: 1, 'x-message': 'must be a non-empty string (a file path)' },
        session_key_store: { type: 'string', minLength: 1, 'x-message': 'must be a non-empty string (a file path)' },
        max_streams_per_principal: positiveInteger('streams'),
        tools_list_page_size: positiveInteger('tools'),
        tools_list_ttl_ms: {
          type: 'integer',
          minimum: 0,
          'x-message': 'must be a non-negative integer (milliseconds)',
        },
        metrics: {
          if: { type: 'object' },
          then: {
            type: 'object',
            required: ['port'],
            additionalProperties: false,
            'x-message': 'must be true, false or { port }',
            properties: {
              port: PORT_SCHEMA,
            },
          },
          else: { type: 'boolean', 'x-message': 'must be true, false or { port }' },
        },
      },
    },
    tools: {
      type: 'array',
      'x-message': 'must be an array',
      items: {
        type: 'object',
        required: ['name', 'description', 'input_schema', 'backend'],
        additionalProperties: false,
        'x-message': 'must be an object',
        properties: {
          name: {
            type: 'string',
            pattern: TOOL_NAME_PATTERN,
            'x-message': `must match ${TOOL_NAME_PATTERN}`,
          },
          description: { type: 'string', 'x-message': 'must be a string' },
          input_schema: { type: 'object', 'x-message': 'must be a JSON Schema object' },
          aliases: nameMap,
          output_schema: { type: 'object', 'x-message': 'must be a JSON Schema object' },
          response: RESPONSE_CONFIG_SCHEMA,
          forward_as: nameMap,
          required_scopes: SCOPES_SCHEMA,
          backend: {
            type: 'object',
            required: ['url', 'method'],
            additionalProperties: false,
            'x-message':
              'must be an object { url, method, timeout_ms?, headers?, tls?, forward_identity?, idempotent?, query_params?, body_param? }',
            properties: {
              url: { type: 'string', pattern: '^https?://', 'x-message': 'must be an http(s) URL' },
              method: {
                enum: [...BACKEND_METHODS],
                'x-message': `must be one of ${BACKEND_METHODS.join(', ')}`,
              },
              timeout_ms: {
                type: 'integer',
                minimum: 1,
                maximum: MAX_SERVICE_TIMEOUT_MS,
                'x-message': `must be an integer 1-${MAX_SERVICE_TIMEOUT_MS} (milliseconds)`,
              },
              headers: {
                type: 'object',
                'x-message': 'must be an object mapping header names to a value or { secret: NAME }',
                additionalProperties: {
                  if: { type: 'string' },
                  then: { type: 'string' },
                  else: {
                    type: 'object',
                    required: ['secret'],
                    additionalProperties: false,
                    'x-message': 'must be a string or { secret: NAME }',
                    properties: { secret: secretName },
                  },
                },
              },
              tls: {
                type: 'object',
                additionalProperties: false,
                minProperties: 1,
                maxProperties: 1,
                'x-message': 'must be { ca_file: PATH } or { ca_secret: NAME }',
                properties: {
                  ca_file: { type: 'string', minLength: 1, 'x-message': 'must be a non-empty string' },
                  ca_secret: secretName,
                },
              },
              forward_identity: { type: 'boolean', 'x-message': 'must be true or false' },
              idempotent: { type: 'boolean', 'x-message': 'must be true or false' },
              query_params: {
                type: 'array',
                items: { type: 'string', minLength: 1 },
                uniqueItems: true,
                'x-message': 'must be a list of distinct field names',
              },
              body_param: { type: 'string', minLength: 1, 'x-message': 'must be a field name' },
            },
          },
        },
      },
    },
  },
} as const;
