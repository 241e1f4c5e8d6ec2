import { performance } from 'node:perf_hooks';
import { isJsonObject, messages, normalizeAliases, type Violation } from '../../validation';
import { cutName } from '../../validation/path';
import type { AuditOutcome, AuditSink } from '../audit/audit-log';
import type { ServiceClient } from '../upstream/service-client';
import type { ServiceOutcome } from '../upstream/service-outcome';
import type { GatewayState } from '../gateway-state';
import { RpcCode } from '../mcp/jsonrpc';
import type { Logger } from '../logger';
import { placeholderProblemOf } from '../upstream/request-plan';
import type { McpSession } from '../mcp/session-store';

/** The answer to a `tools/call`: a result (JSON text) or a JSON-RPC error. */
export type CallReply =
  | { readonly result: string }
  | { readonly error: { readonly code: number; readonly message: string; readonly data?: unknown } };

/** What a call needs besides its state and session: shared for the gateway's life. */
export interface CallServices {
  readonly services: ServiceClient;
  readonly audit: AuditSink;
  /** Calls currently waiting on a service (the `max_concurrent_calls` limit). */
  readonly concurrency: { active: number };
  readonly log: Logger;
}

/** The first protocol version whose sessions get validation refusals as tool results under `auto`. */
const TOOL_RESULT_ERRORS_SINCE = '2025-11-25';

/**
 * Runs one `tools/call` through the rest of SPEC §4's order (the request is authenticated and its session
 * checked): tool lookup → `arguments` an object → alias normalization → validation → what the URL cannot carry →
 * the service call → audit. Each failing step stops everything after it; every outcome, refusals included, is
 * audited. Never rejects: an unexpected fault is answered -32603 `Internal error`, logged and audited as `error`.
 */
export async function callTool(
  state: GatewayState,
  session: McpSession,
  params: Record<string, unknown> | undefined,
  ctx: CallServices,
): Promise<CallReply> {
  const started = performance.now();
  // One try around the whole call (no wrapper function): free on the path that does not throw.
  try {
    const name = params?.name;
    if (typeof name !== 'string') {
      return refuse(state, session, ctx, started, '', RpcCode.INVALID_PARAMS, 'INVALID_PARAMS', 'Invalid params: `name` must be a string');
    }
    const tool = state.toolSet.tools.get(name);
    if (tool === undefined) {
      // Cut like the message: one request must not write a megabyte-long line into the audit log.
      return refuse(state, session, ctx, started, cutName(name), RpcCode.INVALID_PARAMS, 'UNKNOWN_TOOL', messages.unknownTool(name));
    }
    if (tool.validator === undefined) {
      return refuse(state, session, ctx, started, name, RpcCode.INTERNAL_ERROR, 'TOOL_UNAVAILABLE', messages.toolUnavailable(name));
    }

    const raw: unknown = params!.arguments === undefined ? {} : params!.arguments;
    if (!isJsonObject(raw)) {
      const message = messages.invalidArgumentsObject;
      return invalid(state, session, ctx, started, name, message, [{ path: '', rule: 'type', message }]);
    }
    let args: Record<string, unknown> = raw;
    if (tool.aliases !== undefined) {
      const normalized = normalizeAliases(args, tool.aliases);
      if (!normalized.ok) return invalid(state, session, ctx, started, name, normalized.message, normalized.violations);
      args = normalized.args;
    }
    if (state.validateInput) {
      const verdict = tool.validator.validate(args);
      if (!verdict.valid) return invalid(state, session, ctx, started, name, verdict.message, verdict.violations);
    }
    // Checked with validate_input off too: a call the URL cannot carry would reach another endpoint than declared.
    if (tool.plan.placeholderSlots.length > 0) {
      const problem = placeholderProblemOf(tool.plan, args);
      if (problem !== undefined) return invalid(state, session, ctx, started, name, problem.message, problem.violations);
    }

    if (ctx.concurrency.active >= state.maxConcurrentCalls) {
      return refuse(state, session, ctx, started, name, RpcCode.SERVER_ERROR, 'GATEWAY_BUSY', 'Gateway busy: too many concurrent calls');
    }
    ctx.concurrency.active++;
    let outcome: ServiceOutcome;
    try {
      outcome = await ctx.services.call(tool.plan, args);
    } finally {
      ctx.concurrency.active--;
    }
    if (outcome.ok) {
      audit(state, session, ctx, started, name, 'ok', null);
      return { result: outcome.resultJson };
    }
    audit(state, session, ctx, started, name, 'error', { code: outcome.code, message: outcome.message });
    return { result: JSON.stringify({ isError: true, content: [{ type: 'text', text: outcome.message }] }) };
  } catch (err) {
    return internalError(state, session, params, ctx, started, err);
  }
}

/** The answer to a fault no step expected: logged (without argument values) and audited, never a lost request. */
function internalError(
  state: GatewayState,
  session: McpSession,
  params: Record<string, unknown> | undefined,
  ctx: CallServices,
  started: number,
  err: unknown,
): CallReply {
  const name = params?.name;
  const tool = typeof name === 'string' ? cutName(name) : '';
  // Only the error's kind: the message of an unexpected error may quote an argument value.
  ctx.log('error', 'internal error in tools/call', { tool, error: errorKind(err) });
  try {
    audit(state, session, ctx, started, tool, 'error', { code: 'INTERNAL_ERROR', message: 'Internal error' });
  } catch (auditErr) {
    ctx.log('error', 'audit record not written', { tool, error: errorKind(auditErr) });
  }
  return { error: { code: RpcCode.INTERNAL_ERROR, message: 'Internal error' } };
}

function errorKind(err: unknown): string {
  return err instanceof Error ? err.name : typeof err;
}

// The helpers below take everything as arguments (no closures per call: this runs for every tools/call).

function audit(
  state: GatewayState,
  session: McpSession,
  ctx: CallServices,
  started: number,
  tool: string,
  outcome: AuditOutcome,
  error: { code: string; message: string } | null,
): void {
  ctx.audit.write({
    ts: new Date().toISOString(),
    gateway: state.name,
    session: session.id,
    principal: session.principal,
    client: session.client,
    tool,
    outcome,
    error,
    duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
  });
}

function refuse(
  state: GatewayState,
  session: McpSession,
  ctx: CallServices,
  started: number,
  tool: string,
  code: number,
  auditCode: string,
  message: string,
): CallReply {
  audit(state, session, ctx, started, tool, 'refused', { code: auditCode, message });
  return { error: { code, message } };
}

function invalid(
  state: GatewayState,
  session: McpSession,
  ctx: CallServices,
  started: number,
  tool: string,
  message: string,
  violations: readonly Violation[],
): CallReply {
  audit(state, session, ctx, started, tool, 'refused', { code: 'INVALID_ARGS', message });
  if (usesToolResult(state, session)) {
    return { result: JSON.stringify({ isError: true, content: [{ type: 'text', text: message }], structuredContent: { violations } }) };
  }
  return { error: { code: RpcCode.INVALID_PARAMS, message, data: { code: 'INVALID_ARGS', violations } } };
}

function usesToolResult(state: GatewayState, session: McpSession): boolean {
  return state.channel === 'tool_result' || (state.channel === 'auto' && session.protocolVersion >= TOOL_RESULT_ERRORS_SINCE);
}
