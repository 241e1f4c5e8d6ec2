/**
 * The gateway the 0.2.0-alpha suite runs against at `--spec-version 2026-07-28`: authentication off (the suite
 * sends no token; allowed on 127.0.0.1), validation on, and the tools the scenarios call by name as ordinary
 * HTTP-backed tools on a backend this file starts.
 *
 * Order matters: `http-header-validation` calls the FIRST listed tool with `{}` and expects success, so
 * `test_simple_text` (parameterless) comes first.
 *
 * `test_trigger_tool_change` is real: its backend route rewrites the gateway's config (adding or removing the
 * tool `test_tool_added_by_trigger`) and sends SIGHUP, so the gateway reloads and must notify open
 * `subscriptions/listen` streams with `notifications/tools/list_changed` (checked by `server-stateless`).
 */
import type { GatewayConfig } from '../../src/config/gateway-config';
import { startBackend, type BackendAnswer, type ReceivedRequest, type TestBackend } from '../helpers/backend';
import { gatewayConfig, tool } from '../helpers/config';
import type { GatewayProcess } from '../helpers/gateway-process';
import { JSON_SCHEMA_2020_12_INPUT } from './conformance-gateway';

/** The gateway config; with `added`, one more tool at the end (what the trigger toggles). */
export function conformance2026GatewayConfig(backendUrl: string, added = false): GatewayConfig {
  return gatewayConfig({
    name: 'conformance-2026',
    tokens: 'none',
    settings: { validate_input: true },
    tools: [
      tool('test_simple_text', `${backendUrl}/simple-text`, {
        description: 'Answers a small JSON object (shown as text content)',
      }),
      tool('test_error_handling', `${backendUrl}/status/500`, { description: 'Its backend always answers HTTP 500' }),
      tool('json_schema_2020_12_tool', `${backendUrl}/json-schema`, {
        description: 'Tool with JSON Schema 2020-12 features',
        method: 'POST',
        inputSchema: JSON_SCHEMA_2020_12_INPUT,
      }),
      tool('test_trigger_tool_change', `${backendUrl}/trigger-tool-change`, {
        description: 'Changes the tool list (the backend rewrites the gateway config and sends SIGHUP)',
      }),
      // An ordinary tool: the gateway answers every tools/call with a result and never sends requests on the
      // response stream, which is what the check behind this name verifies.
      tool('test_streaming_elicitation', `${backendUrl}/simple-text`, {
        description: 'Answers at once (no server-to-client request)',
      }),
      // An ordinary tool: the gateway never sends notifications/message, which is what the check verifies.
      tool('test_logging_tool', `${backendUrl}/simple-text`, { description: 'Answers at once (no log notification)' }),
      ...(added
        ? [
            tool('test_tool_added_by_trigger', `${backendUrl}/simple-text`, {
              description: 'Present after an odd number of triggers',
            }),
          ]
        : []),
    ],
  });
}

/** The backend of those tools, and the hook the trigger route needs once the gateway runs. */
export interface Conformance2026Backend {
  readonly backend: TestBackend;
  /** Set after the gateway started: the trigger rewrites its config and sends SIGHUP. */
  attach(gateway: GatewayProcess): void;
  /** How many times the trigger ran. */
  readonly triggers: number;
}

/** Starts the backend: `/simple-text` → `{"text":"…"}`, `/status/500` → 500, `/trigger-tool-change` → reload. */
export async function startConformance2026Backend(): Promise<Conformance2026Backend> {
  let gateway: GatewayProcess | undefined;
  let triggers = 0;
  let url = '';
  const json = (status: number, body: unknown): BackendAnswer => ({ status, body: JSON.stringify(body) });
  const respond = (request: ReceivedRequest): BackendAnswer => {
    const path = request.url.split('?')[0];
    if (path === '/status/500') return json(500, { error: 'status 500' });
    if (path === '/trigger-tool-change') {
      if (gateway === undefined) return json(503, { error: 'gateway not attached' });
      triggers++;
      gateway.writeConfig(conformance2026GatewayConfig(url, triggers % 2 === 1));
      gateway.signal('SIGHUP');
      return json(200, { triggered: triggers });
    }
    return json(200, { text: 'This is a simple text response for testing.' });
  };
  const backend = await startBackend({ respond });
  url = backend.url;
  return {
    backend,
    attach(g: GatewayProcess): void {
      gateway = g;
    },
    get triggers(): number {
      return triggers;
    },
  };
}
