/**
 * The gateway the conformance suite runs against: authentication off (the suite's client sends no token; allowed
 * on 127.0.0.1), validation on, and, as ordinary HTTP-backed tools on the test backend, the tools that the
 * applicable scenarios call by name.
 */
import type { GatewayConfig } from '../../src/config';
import { gatewayConfig, tool } from '../helpers/config';

/** The raw input schema the `json-schema-2020-12` scenario expects back verbatim from tools/list (SEP-1613). */
export const JSON_SCHEMA_2020_12_INPUT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
  },
  additionalProperties: false,
} as const;

/**
 * A gateway config serving the suite's tools from `backendUrl` (a `test/helpers/backend.ts` backend).
 * @example
 * const gw = await startGatewayProcess({ config: conformanceGatewayConfig(backend.url) });
 */
export function conformanceGatewayConfig(backendUrl: string): GatewayConfig {
  return gatewayConfig({
    name: 'conformance',
    tokens: 'none',
    settings: { validate_input: true },
    tools: [
      tool('test_simple_text', `${backendUrl}/simple-text`, {
        description: 'Answers a small JSON object (shown as text content)',
      }),
      tool('test_error_handling', `${backendUrl}/status/500`, {
        description: 'Its backend always answers HTTP 500',
      }),
      tool('json_schema_2020_12_tool', `${backendUrl}/json-schema`, {
        description: 'Tool with JSON Schema 2020-12 features',
        method: 'POST',
        inputSchema: JSON_SCHEMA_2020_12_INPUT,
      }),
      tool('test_reconnection', `${backendUrl}/reconnection`, {
        description: 'Answers at once (the gateway answers POST with JSON, never an SSE stream)',
      }),
    ],
  });
}
