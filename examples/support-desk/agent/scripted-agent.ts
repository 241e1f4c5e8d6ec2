/**
 * A scripted agent (no LLM) on the official MCP SDK client: it lists the tools, makes the kind of
 * malformed `create_ticket` call a model makes (a required field left out, a zip code sent as a
 * string, a hallucinated `urgency`), and repairs its arguments from the refusal text alone until
 * the call goes through.
 *
 * @example
 * const run = await runScriptedAgent({ url: 'http://127.0.0.1:8080/mcp', token, onStep: (s) => console.log(formatStep(s)) });
 * run.succeeded; // true
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { parseRefusal } from './refusal-message';
import { repairArguments } from './repair-arguments';

/** Options of {@link runScriptedAgent}. */
export interface ScriptedAgentOptions {
  /** The gateway's MCP endpoint, `http://HOST:PORT/mcp`. */
  readonly url: string;
  /** Bearer token. @default - no Authorization header */
  readonly token?: string;
  /** Retries after the first call. @default 2 */
  readonly maxRetries?: number;
  /** Receives each step as it happens. @default - ignored */
  readonly onStep?: (step: AgentStep) => void;
  /** @default 'create_ticket' */
  readonly tool?: string;
  /** The first (malformed) arguments. @default {@link MALFORMED_CREATE_TICKET} */
  readonly args?: Record<string, unknown>;
}

/** One step of the exchange, for printing and for tests. */
export type AgentStep =
  | { readonly kind: 'tools'; readonly names: readonly string[] }
  | { readonly kind: 'call'; readonly attempt: number; readonly tool: string; readonly args: Record<string, unknown> }
  | {
      readonly kind: 'refusal';
      readonly attempt: number;
      readonly channel: 'protocol' | 'tool_result';
      readonly message: string;
    }
  | { readonly kind: 'repair'; readonly attempt: number; readonly notes: readonly string[] }
  | { readonly kind: 'success'; readonly attempt: number; readonly result: unknown }
  | { readonly kind: 'failure'; readonly attempt: number; readonly reason: string };

/** The whole run. */
export interface AgentRun {
  readonly succeeded: boolean;
  /** Retries used (0 = the first call went through). */
  readonly retries: number;
  readonly steps: readonly AgentStep[];
  /** The successful call's structured result. @default - none */
  readonly result?: unknown;
}

/** What a model typically sends first: `body` forgotten, `zip_code` as a string, an invented `urgency`. */
export const MALFORMED_CREATE_TICKET: Readonly<Record<string, unknown>> = {
  subject: 'Charged twice for the March invoice',
  priority: 1,
  customer: {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    addresses: [{ street: '12 Analytical Row', city: 'Berlin', zip_code: '10115' }],
  },
  tags: ['billing', 'refund'],
  urgency: 'high',
};

/** The text of a refusal, whichever channel carried it; `undefined` for a result that is not a refusal. */
function refusalOf(outcome: {
  error?: unknown;
  result?: unknown;
}): { channel: 'protocol' | 'tool_result'; message: string } | undefined {
  if (outcome.error !== undefined) {
    const message = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
    return parseRefusal(message).length > 0
      ? { channel: 'protocol', message: message.replace(/^MCP error -?\d+: /, '') }
      : undefined;
  }
  const result = outcome.result as { isError?: boolean; content?: { type: string; text?: string }[] } | undefined;
  if (result?.isError !== true) return undefined;
  const text = (result.content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text ?? '')
    .join('\n');
  return parseRefusal(text).length > 0 ? { channel: 'tool_result', message: text } : undefined;
}

/** Connects, lists the tools, and calls the tool until it succeeds or the retries run out. */
export async function runScriptedAgent(options: ScriptedAgentOptions): Promise<AgentRun> {
  const steps: AgentStep[] = [];
  const step = (s: AgentStep): void => {
    steps.push(s);
    options.onStep?.(s);
  };
  const toolName = options.tool ?? 'create_ticket';
  const maxRetries = options.maxRetries ?? 2;
  const client = new Client({ name: 'support-desk-scripted-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(options.url), {
    requestInit: options.token !== undefined ? { headers: { Authorization: `Bearer ${options.token}` } } : {},
  });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    step({ kind: 'tools', names: tools.map((t) => t.name) });
    const tool = tools.find((t) => t.name === toolName);
    if (tool === undefined) {
      step({ kind: 'failure', attempt: 0, reason: `the gateway has no tool ${toolName}` });
      return { succeeded: false, retries: 0, steps };
    }
    let args: Record<string, unknown> = structuredClone({ ...(options.args ?? MALFORMED_CREATE_TICKET) });
    for (let attempt = 0; attempt <= maxRetries; attempt++) {
      step({ kind: 'call', attempt, tool: toolName, args });
      const outcome = await client.callTool({ name: toolName, arguments: args }).then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
      const refusal = refusalOf(outcome);
      if (refusal === undefined) {
        if ('error' in outcome) {
          step({
            kind: 'failure',
            attempt,
            reason: outcome.error instanceof Error ? outcome.error.message : String(outcome.error),
          });
          return { succeeded: false, retries: attempt, steps };
        }
        const result = outcome.result as { isError?: boolean; structuredContent?: unknown; content?: unknown };
        if (result.isError === true) {
          step({ kind: 'failure', attempt, reason: `the service failed: ${JSON.stringify(result.content)}` });
          return { succeeded: false, retries: attempt, steps };
        }
        step({ kind: 'success', attempt, result: result.structuredContent ?? result.content });
        return { succeeded: true, retries: attempt, steps, result: result.structuredContent ?? result.content };
      }
      step({ kind: 'refusal', attempt, channel: refusal.channel, message: refusal.message });
      if (attempt === maxRetries) break;
      const repair = repairArguments(args, parseRefusal(refusal.message), tool.inputSchema as Record<string, unknown>);
      step({ kind: 'repair', attempt, notes: repair.notes });
      args = repair.args;
    }
    step({ kind: 'failure', attempt: maxRetries, reason: `still refused after ${maxRetries} retries` });
    return { succeeded: false, retries: maxRetries, steps };
  } finally {
    await client.close();
  }
}

/** One readable block of text per step (what `npm run demo` prints). */
export function formatStep(s: AgentStep): string {
  const indent = (text: string): string =>
    text
      .split('\n')
      .map((l) => `    ${l}`)
      .join('\n');
  switch (s.kind) {
    case 'tools':
      return `agent: tools/list -> ${s.names.join(', ')}`;
    case 'call':
      return `agent: call #${s.attempt + 1} ${s.tool}\n${indent(JSON.stringify(s.args, null, 2))}`;
    case 'refusal':
      return `gateway: refused (${s.channel === 'protocol' ? 'JSON-RPC error -32602' : 'tool result, isError'})\n    ${s.message}`;
    case 'repair':
      return `agent: repairs from the message\n${s.notes.map((n) => `    - ${n}`).join('\n')}`;
    case 'success':
      return `gateway: ok after ${s.attempt} ${s.attempt === 1 ? 'retry' : 'retries'}\n${indent(JSON.stringify(s.result, null, 2))}`;
    case 'failure':
      return `agent: gave up: ${s.reason}`;
  }
}
