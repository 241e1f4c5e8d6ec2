import { performance } from 'node:perf_hooks';
import type { ValidationErrorsChannel } from '../../config';
import { cutName, isJsonObject, messages, normalizeAliases, type Violation } from '../../validation';
import type { AuditOutcome, AuditSink } from '../audit';
import { principalKey, type Principal } from '../auth/bearer-tokens';
import { insufficientScopeError } from '../auth/oauth-challenge';
import type { HttpError } from '../errors/http-error';
import { rateLimited, storeUnavailable, type LimitDecision, type RateLimiter } from '../limits';
import { missingScopes } from '../auth/oauth-scopes';
import type { Logger } from '../log/logger';
import type { GatewayMetrics } from '../metrics';
import { RpcCode, type RequestId } from '../errors/jsonrpc';
import { sessionDigest } from '../audit/session-digest';
import { forwardingProblemOf, type ServiceClient, type ServiceOutcome } from '../upstream';
import type { BackendHealth } from '../upstream/backend-health';
import type { JsonText, ShapeCounts } from '../../response';
import type { Authenticator } from '../auth/authenticator';
import type { LimitRules } from '../limits/limit-rules';
import type { Tool, ToolSet } from './tool-set';

/**
 * The answer to a `tools/call`: a result (JSON text), a JSON-RPC error, or a refusal at the HTTP level (the
 * caller's scopes do not allow the tool: 403 `insufficient_scope`), which the endpoint turns into the response.
 */
/** What a call reads of the state of the config being served (the gateway's state extends it). */
export interface CallState {
  /** The gateway's name, in audit records. */
  readonly name: string;
  readonly toolSet: ToolSet;
  readonly auth: Authenticator;
  readonly validateInput: boolean;
  /** How a refused call's violations reach the agent (`validation_errors`). */
  readonly channel: ValidationErrorsChannel;
  /** Whether a tool-result refusal carries `structuredContent: {violations}`. */
  readonly refusalStructuredContent: boolean;
  readonly maxConcurrentCalls: number;
  /** One principal's share of `maxConcurrentCalls`. */
  readonly maxConcurrentCallsPerPrincipal: number;
  /** The rate limits each tool's calls count against. */
  readonly limits: LimitRules;
}

export type CallReply =
  | { readonly result: JsonText }
  | { readonly error: { readonly code: number; readonly message: string; readonly data?: unknown } }
  | { readonly refusal: HttpError };

/** What a call needs besides its state and caller: shared for the gateway's life. */
export interface CallServices {
  readonly services: ServiceClient;
  readonly audit: AuditSink;
  /** Counts every answered call for `/metrics`, when metrics are on. */
  readonly metrics?: GatewayMetrics;
  /**
   * Calls currently waiting on a service: all of them (the `max_concurrent_calls` limit) and per principal key
   * (`max_concurrent_calls_per_principal`).
   */
  readonly concurrency: { active: number; readonly byPrincipal: Map<Principal, number> };
  /** Counts calls against `state.limits`. @default - no counting (a gateway without limits) */
  readonly limiter?: RateLimiter;
  /** Told whether each call reached its backend, for `/readyz`. @default - not told */
  readonly health?: BackendHealth;
  readonly log: Logger;
}

/** Who makes a call, as the audit log records it: a 2025 session, or a stateless request (`sessionId` null). */
export interface Caller {
  readonly sessionId: string | null;
  readonly principal: Principal;
  readonly client: { readonly name: string | null; readonly version: string | null };
  /** The protocol version the caller speaks (decides the refusal channel under `auto`). */
  readonly protocolVersion: string;
  /** The scopes the caller's credential grants; `undefined` (or absent): unrestricted, every tool. */
  readonly scopes?: ReadonlySet<string>;
  /** The OAuth client the token was issued to (`client_id`/`azp`); absent or `null` for static tokens. */
  readonly clientId?: string | null;
  /** An OAuth access token named the caller: metrics count it as `_other`, even if a token id has its name. */
  readonly oauth?: boolean;
}

/** The first protocol version whose callers get validation refusals as tool results under `auto`. */
const TOOL_RESULT_ERRORS_SINCE = '2025-11-25';

/** One call in progress: everything its refusal, error or audit record needs. */
interface Call {
  readonly state: CallState;
  readonly caller: Caller;
  readonly ctx: CallServices;
  readonly started: number;
  /** The tool name as audited (cut when unknown: one request must not write a megabyte-long line). */
  tool: string;
}

/**
 * Runs one `tools/call` through the rest of the documented order (docs/gateway.md) (the request is authenticated and its caller
 * checked): tool lookup → the caller's scopes → `arguments` an object → alias normalization → validation → what
 * the URL cannot carry → rate limits → the service call → audit. Each failing step stops everything after it; every outcome,
 * refusals included, is audited. An unexpected fault is answered -32603 `Internal error`, logged and audited as
 * `error`.
 *
 * @param id the request's id, echoed by the 403
 * @returns the reply; `{ refusal }` with HTTP 403 `insufficient_scope` naming the scope when the caller's scopes
 * do not allow the tool (audited as refused, `INSUFFICIENT_SCOPE`). Never throws.
 */
export async function callTool(
  state: CallState,
  caller: Caller,
  params: Record<string, unknown> | undefined,
  ctx: CallServices,
  id: RequestId | null = null,
): Promise<CallReply> {
  const call: Call = { state, caller, ctx, started: performance.now(), tool: '' };
  const refusal = scopeRefusalOf(call, params, id);
  if (refusal !== undefined) return { refusal };
  // One try around the whole call (no wrapper function): free on the path that does not throw.
  try {
    const name = params?.name;
    if (typeof name !== 'string') {
      return refuse(call, RpcCode.INVALID_PARAMS, 'INVALID_PARAMS', 'Invalid params: `name` must be a string');
    }
    const tool = state.toolSet.tools.get(name);
    if (tool === undefined) {
      call.tool = cutName(name);
      return refuse(call, RpcCode.INVALID_PARAMS, 'UNKNOWN_TOOL', messages.unknownTool(name));
    }
    call.tool = name;
    if (tool.validator === undefined) {
      return refuse(call, RpcCode.INTERNAL_ERROR, 'TOOL_UNAVAILABLE', messages.toolUnavailable(name));
    }
    const args = checkArguments(call, tool, params!.arguments);
    if (!('args' in args)) return args;
    const limits = state.limits.forTool(name);
    if (limits.length > 0 && ctx.limiter !== undefined) {
      const refusal = limitRefusal(call, await ctx.limiter.count(limits, callerKey(caller)), id);
      if (refusal !== undefined) return { refusal };
    }
    return await forward(call, tool, args.args);
  } catch (err) {
    return internalError(call, params, err);
  }
}

/**
 * The 403 a `tools/call` with these `params` gets before anything runs, when the caller's scopes do not allow the
 * tool (audited as refused, `INSUFFICIENT_SCOPE`); `undefined` when they do. A batch asks this of every call
 * before any of them runs, so that no call reaches its service in a batch that is refused as a whole.
 */
export function scopeRefusal(
  state: CallState,
  caller: Caller,
  params: Record<string, unknown> | undefined,
  ctx: CallServices,
  id: RequestId | null = null,
): HttpError | undefined {
  return scopeRefusalOf({ state, caller, ctx, started: performance.now(), tool: '' }, params, id);
}

/**
 * The caller's scopes against the tool's: a caller that may not use the tool is refused with HTTP 403 naming the
 * scopes it lacks, audited as refused (`INSUFFICIENT_SCOPE`). An unknown tool is answered as unknown whatever the
 * scopes (its name reveals nothing the caller did not send).
 */
function scopeRefusalOf(
  call: Call,
  params: Record<string, unknown> | undefined,
  id: RequestId | null,
): HttpError | undefined {
  const granted = call.caller.scopes;
  const tool = typeof params?.name === 'string' ? call.state.toolSet.tools.get(params.name) : undefined;
  if (tool === undefined || granted === undefined) return undefined;
  const missing = missingScopes(tool.requiredScopes, granted);
  if (missing.length === 0) return undefined;
  const refusal = insufficientScopeError(call.state.auth.resource?.metadataUrl, missing, tool.requiredScopes, id);
  call.tool = tool.name;
  audit(call, 'refused', { code: 'INSUFFICIENT_SCOPE', message: refusal.message });
  return refusal;
}

/**
 * `arguments` an object → aliases → validation (when on) → what the URL cannot carry: the arguments to forward,
 * or the refusal.
 */
function checkArguments(call: Call, tool: Tool, raw: unknown): { readonly args: Record<string, unknown> } | CallReply {
  const given: unknown = raw === undefined ? {} : raw;
  if (!isJsonObject(given)) {
    const message = messages.invalidArgumentsObject;
    return invalid(call, message, [{ path: '', rule: 'type', message }], tool);
  }
  let args: Record<string, unknown> = given;
  if (tool.aliases !== undefined) {
    const normalized = normalizeAliases(args, tool.aliases);
    if (!normalized.ok) return invalid(call, normalized.message, normalized.violations, tool);
    args = normalized.args;
  }
  if (call.state.validateInput) {
    const verdict = tool.validator!.validate(args);
    if (!verdict.valid) return invalid(call, verdict.message, verdict.violations, tool);
  }
  // Checked with validate_input off too: a call the URL cannot carry would reach another endpoint than declared,
  // and a number JSON cannot carry (1e400) would reach the service as null or Infinity.
  const problem = forwardingProblemOf(tool.plan, args);
  if (problem !== undefined) return invalid(call, problem.message, problem.violations, tool);
  return { args };
}

/** A call over one of its limits (or uncountable while the store is down, under `refuse`), audited as refused. */
function limitRefusal(call: Call, decision: LimitDecision, id: RequestId | null): HttpError | undefined {
  if (decision.admitted) return undefined;
  const refusal =
    'storeUnavailable' in decision ? storeUnavailable(id) : rateLimited(decision.limit, decision.retryAfterMs, id);
  audit(call, 'refused', {
    code: 'storeUnavailable' in decision ? 'LIMIT_STORE_UNAVAILABLE' : 'RATE_LIMITED',
    message: refusal.message,
  });
  return refusal;
}

/** The principal key a caller's limits and concurrency share are counted under (its kind and its name). */
function callerKey(caller: Caller): Principal {
  return principalKey({ principal: caller.principal, oauth: caller.oauth === true });
}

/** The service call, within the concurrency limit, and its audit record. */
async function forward(call: Call, tool: Tool, args: Record<string, unknown>): Promise<CallReply> {
  const { ctx } = call;
  if (ctx.concurrency.active >= call.state.maxConcurrentCalls) {
    return refuse(call, RpcCode.INTERNAL_ERROR, 'GATEWAY_BUSY', 'Gateway busy: too many concurrent calls');
  }
  // One principal's share: a token with slow calls cannot take every slot from the others. Without
  // authentication every caller is the same anonymous principal, so there are no others: only the gateway's cap.
  const shared = call.caller.principal !== null;
  const key = callerKey(call.caller);
  const { byPrincipal } = ctx.concurrency;
  const mine = shared ? (byPrincipal.get(key) ?? 0) : 0;
  const share = call.state.maxConcurrentCallsPerPrincipal;
  if (shared && mine >= share) {
    return refuse(
      call,
      RpcCode.INTERNAL_ERROR,
      'PRINCIPAL_BUSY',
      `Gateway busy: at most ${share} concurrent calls per principal (max_concurrent_calls_per_principal); wait for one to finish`,
    );
  }
  ctx.concurrency.active++;
  if (shared) byPrincipal.set(key, mine + 1);
  let outcome: ServiceOutcome;
  try {
    outcome = await ctx.services.call(tool.plan, args, call.caller, tool.shaper);
  } finally {
    ctx.concurrency.active--;
    if (shared) {
      const left = (byPrincipal.get(key) ?? 1) - 1;
      if (left === 0) byPrincipal.delete(key);
      else byPrincipal.set(key, left);
    }
  }
  ctx.health?.record(outcome.ok || outcome.code !== 'SERVICE_UNAVAILABLE');
  if (outcome.ok) {
    audit(call, 'ok', null, outcome.counts);
    return { result: outcome.resultJson };
  }
  audit(call, 'error', { code: outcome.code, message: outcome.message });
  return { result: JSON.stringify({ isError: true, content: [{ type: 'text', text: outcome.message }] }) };
}

/** The answer to a fault no step expected: logged (without argument values) and audited, never a lost request. */
function internalError(call: Call, params: Record<string, unknown> | undefined, err: unknown): CallReply {
  const name = params?.name;
  if (call.tool === '' && typeof name === 'string') call.tool = cutName(name);
  // Only the error's kind: the message of an unexpected error may quote an argument value.
  call.ctx.log('error', 'internal error in tools/call', { tool: call.tool, error: errorKind(err) });
  try {
    audit(call, 'error', { code: 'INTERNAL_ERROR', message: 'Internal error' });
  } catch (auditErr) {
    call.ctx.log('error', 'audit record not written', { tool: call.tool, error: errorKind(auditErr) });
  }
  return { error: { code: RpcCode.INTERNAL_ERROR, message: 'Internal error' } };
}

function errorKind(err: unknown): string {
  return err instanceof Error ? err.name : typeof err;
}

/** The audit record of an answered call, and its count in the metrics: every outcome passes through here. */
function audit(
  call: Call,
  outcome: AuditOutcome,
  error: { code: string; message: string } | null,
  response?: ShapeCounts,
): void {
  const { caller } = call;
  const seconds = (performance.now() - call.started) / 1000;
  call.ctx.metrics?.recordCall(
    call.tool,
    caller.oauth === true ? null : caller.principal,
    outcome,
    error?.code ?? 'none',
    seconds,
  );
  call.ctx.audit.write({
    ts: new Date().toISOString(),
    gateway: call.state.name,
    session: caller.sessionId === null ? null : sessionDigest(caller.sessionId),
    principal: caller.principal,
    auth: caller.principal === null ? null : caller.oauth === true ? 'oauth' : 'token',
    client: caller.client,
    ...(caller.clientId !== undefined && caller.clientId !== null ? { client_id: caller.clientId } : {}),
    tool: call.tool,
    outcome,
    error,
    ...(response !== undefined ? { response } : {}),
    duration_ms: Math.round(seconds * 1_000_000) / 1000,
  });
}

function refuse(call: Call, code: number, auditCode: string, message: string): CallReply {
  audit(call, 'refused', { code: auditCode, message });
  return { error: { code, message } };
}

function invalid(call: Call, message: string, violations: readonly Violation[], tool: Tool): CallReply {
  audit(call, 'refused', { code: 'INVALID_ARGS', message });
  if (usesToolResult(call)) {
    // A tool with a declared output: `{violations}` is not its output, and clients (the official SDK) check an
    // error result's structuredContent against the outputSchema too, throwing instead of showing the refusal.
    const structured =
      tool.advertisesOutput || !call.state.refusalStructuredContent ? {} : { structuredContent: { violations } };
    const result = { isError: true, content: [{ type: 'text', text: message }], ...structured };
    return { result: JSON.stringify(result) };
  }
  return { error: { code: RpcCode.INVALID_PARAMS, message, data: { code: 'INVALID_ARGS', violations } } };
}

function usesToolResult(call: Call): boolean {
  const { channel } = call.state;
  return channel === 'tool_result' || (channel === 'auto' && call.caller.protocolVersion >= TOOL_RESULT_ERRORS_SINCE);
}
