import { MINUTE_MS, type AuditStore, type Series } from './audit-store';
import { isFlagged, refusalRate, type FlagRule } from './flag-rule';
import type { PrincipalKind } from './gateway-shared';
import { WINDOWS, type WindowName } from './windows';

/** Messages listed per agent × tool. */
export const TOP_MESSAGES = 5;

/** A message and how often it was answered, as `/api/summary` lists them. */
export interface MessageCount {
  readonly message: string;
  readonly count: number;
}

/** One agent × tool row of `/api/summary`. */
export interface ToolSummary {
  readonly gateway: string;
  readonly tool: string;
  readonly calls: number;
  readonly refusals: number;
  readonly errors: number;
  readonly refusal_rate: number;
  /** This row alone meets the flag rule. */
  readonly flagged: boolean;
  readonly last_seen: string;
  /** The most frequent messages of refused and failed calls, most frequent first (ties by text). */
  readonly top_messages: MessageCount[];
  /** Refused and failed calls whose message is not among `top_messages`. */
  readonly other_messages: number;
}

/** One agent (principal) of `/api/summary`: totals over its tools, then the tools. */
export interface AgentSummary {
  /** The token id or OAuth subject; `null` for calls to a gateway with `auth: 'none'`. */
  readonly principal: string | null;
  /** The principal's kind: `token` (a static token id) or `oauth` (an OAuth subject); `null` without one. */
  readonly auth: PrincipalKind | null;
  /** The row that counts series past the store's bound, not a real principal. */
  readonly overflow: boolean;
  readonly calls: number;
  readonly refusals: number;
  readonly errors: number;
  readonly refusal_rate: number;
  /** The agent fails systematically: its totals meet the flag rule. */
  readonly flagged: boolean;
  /** Calls refused because the agent reached a rate limit (counted among `refusals`). */
  readonly throttled: number;
  readonly last_seen: string;
  readonly tools: ToolSummary[];
}

/**
 * One service (gateway × tool) of `/api/summary`, over every agent: how often the service itself failed (its
 * errors, invalid and too-large responses among them), beside the agents' refusals.
 */
export interface ServiceSummary {
  readonly gateway: string;
  readonly tool: string;
  readonly calls: number;
  readonly errors: number;
  /** Errors per call (0 when there were no calls). */
  readonly error_rate: number;
  /** The most frequent messages of the service's own errors (`Service …`), most frequent first. */
  readonly top_messages: MessageCount[];
  readonly last_seen: string;
}

/** Every service message starts so (a refusal of the agent's call never does). */
const SERVICE_MESSAGE_PREFIX = 'Service ';

/** Every refusal for a rate limit starts so (the gateway's `limit-rules.ts` writes them). */
const RATE_LIMIT_MESSAGE_PREFIX = 'Rate limit reached: ';

/** The body of `/api/summary` (without the server's `ingest` counters). */
export interface Summary {
  readonly window: WindowName;
  /** The first millisecond counted (the start of the window's first minute). */
  readonly from: string;
  /** The end of the current minute, the last counted. */
  readonly to: string;
  readonly flag_rule: { readonly min_refusals: number; readonly min_rate: number };
  readonly totals: { readonly calls: number; readonly refusals: number; readonly errors: number };
  readonly agents: AgentSummary[];
  /** Services with at least one error in the window, most errors first. */
  readonly services: ServiceSummary[];
}

interface Row {
  readonly series: Series;
  calls: number;
  refusals: number;
  errors: number;
  lastMs: number;
  readonly messages: Map<string, number>;
  otherMessages: number;
}

/** The minutes a window covers at `nowMs`: the current one and the ones before it. */
export function windowMinutes(window: WindowName, nowMs: number): { from: number; to: number } {
  const to = Math.floor(nowMs / MINUTE_MS);
  return { from: to - WINDOWS[window].minutes + 1, to };
}

/** Agents × tools over a window: counts, rates, top messages, last seen, flags. */
export function summarize(store: AuditStore, window: WindowName, rule: FlagRule): Summary {
  const { from, to } = windowMinutes(window, store.now());
  const rows = new Map<number, Row>();
  store.forEachCell(from, to, (_minute, series, cell) => {
    let row = rows.get(series.id);
    if (row === undefined) {
      row = { series, calls: 0, refusals: 0, errors: 0, lastMs: cell.lastMs, messages: new Map(), otherMessages: 0 };
      rows.set(series.id, row);
    }
    row.calls += cell.calls;
    row.refusals += cell.refusals;
    row.errors += cell.errors;
    if (cell.lastMs > row.lastMs) row.lastMs = cell.lastMs;
    if (cell.messages !== undefined)
      for (const [message, count] of cell.messages) row.messages.set(message, (row.messages.get(message) ?? 0) + count);
    row.otherMessages += cell.otherMessages;
  });

  const byAgent = new Map<string, Row[]>();
  for (const row of rows.values()) {
    const key = row.series.overflow
      ? 'o'
      : row.series.principal === null
        ? 'n'
        : `${row.series.auth}=${row.series.principal}`;
    const list = byAgent.get(key);
    if (list === undefined) byAgent.set(key, [row]);
    else list.push(row);
  }
  const agents: AgentSummary[] = [];
  const totals = { calls: 0, refusals: 0, errors: 0 };
  for (const list of byAgent.values()) {
    let calls = 0;
    let refusals = 0;
    let errors = 0;
    let throttled = 0;
    let lastMs = -Infinity;
    for (const row of list) {
      calls += row.calls;
      refusals += row.refusals;
      errors += row.errors;
      if (row.lastMs > lastMs) lastMs = row.lastMs;
      for (const [message, count] of row.messages)
        if (message.startsWith(RATE_LIMIT_MESSAGE_PREFIX)) throttled += count;
    }
    totals.calls += calls;
    totals.refusals += refusals;
    totals.errors += errors;
    const tools = list.map((row) => toolSummary(row, rule)).sort(byFailures);
    agents.push({
      principal: list[0].series.principal,
      auth: list[0].series.auth,
      overflow: list[0].series.overflow,
      calls,
      refusals,
      errors,
      refusal_rate: refusalRate(calls, refusals),
      flagged: isFlagged(rule, calls, refusals),
      throttled,
      last_seen: new Date(lastMs).toISOString(),
      tools,
    });
  }
  agents.sort(
    (a, b) =>
      Number(b.flagged) - Number(a.flagged) ||
      byFailures(a, b) ||
      compareText(a.principal ?? '', b.principal ?? '') ||
      compareText(a.auth ?? '', b.auth ?? ''),
  );
  return {
    window,
    from: new Date(from * MINUTE_MS).toISOString(),
    to: new Date((to + 1) * MINUTE_MS).toISOString(),
    flag_rule: { min_refusals: rule.minRefusals, min_rate: rule.minRate },
    totals,
    agents,
    services: serviceSummaries(rows.values()),
  };
}

/** The agents' rows folded per gateway × tool, keeping the services' own error messages. */
function serviceSummaries(rows: Iterable<Row>): ServiceSummary[] {
  const byService = new Map<
    string,
    { gateway: string; tool: string; calls: number; errors: number; lastMs: number; messages: Map<string, number> }
  >();
  for (const row of rows) {
    const key = JSON.stringify([row.series.gateway, row.series.tool]);
    let service = byService.get(key);
    if (service === undefined) {
      service = {
        gateway: row.series.gateway,
        tool: row.series.tool,
        calls: 0,
        errors: 0,
        lastMs: row.lastMs,
        messages: new Map(),
      };
      byService.set(key, service);
    }
    service.calls += row.calls;
    service.errors += row.errors;
    if (row.lastMs > service.lastMs) service.lastMs = row.lastMs;
    for (const [message, count] of row.messages) {
      if (message.startsWith(SERVICE_MESSAGE_PREFIX))
        service.messages.set(message, (service.messages.get(message) ?? 0) + count);
    }
  }
  return [...byService.values()]
    .filter((s) => s.errors > 0)
    .map((s) => ({
      gateway: s.gateway,
      tool: s.tool,
      calls: s.calls,
      errors: s.errors,
      error_rate: s.calls === 0 ? 0 : s.errors / s.calls,
      top_messages: [...s.messages]
        .sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]))
        .slice(0, TOP_MESSAGES)
        .map(([message, count]) => ({ message, count })),
      last_seen: new Date(s.lastMs).toISOString(),
    }))
    .sort((a, b) => b.errors - a.errors || compareText(a.gateway, b.gateway) || compareText(a.tool, b.tool));
}

function toolSummary(row: Row, rule: FlagRule): ToolSummary {
  const ranked = [...row.messages].sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]));
  const top = ranked.slice(0, TOP_MESSAGES);
  let other = row.otherMessages;
  for (let i = TOP_MESSAGES; i < ranked.length; i++) other += ranked[i][1];
  return {
    gateway: row.series.gateway,
    tool: row.series.tool,
    calls: row.calls,
    refusals: row.refusals,
    errors: row.errors,
    refusal_rate: refusalRate(row.calls, row.refusals),
    flagged: isFlagged(rule, row.calls, row.refusals),
    last_seen: new Date(row.lastMs).toISOString(),
    top_messages: top.map(([message, count]) => ({ message, count })),
    other_messages: other,
  };
}

function byFailures(
  a: { refusals: number; calls: number; gateway?: string; tool?: string },
  b: { refusals: number; calls: number; gateway?: string; tool?: string },
): number {
  return (
    b.refusals - a.refusals ||
    b.calls - a.calls ||
    compareText(a.gateway ?? '', b.gateway ?? '') ||
    compareText(a.tool ?? '', b.tool ?? '')
  );
}

/** Code-unit order: the same on every machine (no locale). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The body of `/api/timeseries`: columns, one entry per step, oldest first. */
export interface Timeseries {
  readonly window: WindowName;
  readonly principal?: string | null;
  /** The kind of `principal`, when one is asked for. */
  readonly auth?: PrincipalKind | null;
  readonly step_ms: number;
  /** The start of each step, ms since the epoch. */
  readonly t: number[];
  readonly calls: number[];
  readonly refusals: number[];
  readonly errors: number[];
}

/**
 * Calls, refusals and errors per step over a window (steps aligned to multiples of the step since the epoch; the
 * first one counts only the minutes inside the window). With `principal`, only the calls of that agent (its kind
 * `auth` and its name).
 */
export function timeseries(
  store: AuditStore,
  window: WindowName,
  principal?: string | null,
  auth: PrincipalKind = 'token',
): Timeseries {
  const kind = principal === null ? null : auth;
  const { from, to } = windowMinutes(window, store.now());
  const step = WINDOWS[window].stepMinutes;
  const firstStep = Math.floor(from / step);
  const count = Math.floor(to / step) - firstStep + 1;
  const t = Array.from({ length: count }, (_, i) => (firstStep + i) * step * MINUTE_MS);
  const calls = new Array<number>(count).fill(0);
  const refusals = new Array<number>(count).fill(0);
  const errors = new Array<number>(count).fill(0);
  store.forEachCell(from, to, (minute, series, cell) => {
    if (principal !== undefined && (series.overflow || series.principal !== principal || series.auth !== kind)) return;
    const i = Math.floor(minute / step) - firstStep;
    calls[i] += cell.calls;
    refusals[i] += cell.refusals;
    errors[i] += cell.errors;
  });
  return {
    window,
    ...(principal !== undefined ? { principal, auth: kind } : {}),
    step_ms: step * MINUTE_MS,
    t,
    calls,
    refusals,
    errors,
  };
}
