/** Two versions of one config for reload tests: `lookup` takes a string `q`, then an integer `q` beside `health`. */
import type { GatewayConfig } from '../../src/config';
import { botConfig, objectSchema, tool } from './config';
import { postJson } from './mcp';

/** An object of one required property `q` of JSON type `type`. */
export const qSchema = (type: string) => ({
  type: 'object',
  properties: { q: { type } },
  required: ['q'],
  additionalProperties: false,
});

/** v1: `lookup` with a string `q`; v2: `lookup` with an integer `q`, and `health`. */
export function reloadVersions(serviceUrl: string): { v1: GatewayConfig; v2: GatewayConfig } {
  return {
    v1: botConfig([tool('lookup', `${serviceUrl}/lookup`, { inputSchema: qSchema('string') })]),
    v2: botConfig([
      tool('lookup', `${serviceUrl}/lookup`, { inputSchema: qSchema('integer') }),
      tool('health', `${serviceUrl}/health`, { inputSchema: objectSchema({}) }),
    ]),
  };
}

/** The names `tools/list` answers in `session`. */
export async function listedTools(url: string, session: string): Promise<string[]> {
  const { json } = await postJson(url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': session });
  return (json as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
}
