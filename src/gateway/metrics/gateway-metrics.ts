import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { PACKAGE_VERSION } from '../../package-info';
import type { AuditOutcome } from '../audit';
import { TallyHistogram, type HistogramTally } from './tally-histogram';

/** The tool label of a call to a tool the gateway does not declare: unknown names never become label values. */
export const UNKNOWN_TOOL_LABEL = '_unknown';
/** The principal label of a caller that is not a configured token id (no authentication, or an OAuth subject). */
export const OTHER_PRINCIPAL_LABEL = '_other';

const MISNAMED_DEFAULT_METRICS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** Seconds: from a fast refusal (tens of µs) to a slow service (the longest timeout is 10 min). */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 600];

type CallLabels = 'gateway' | 'tool' | 'principal' | 'outcome' | 'code';

/** One label set of the call counter and its count so far. */
interface CallTally {
  readonly labels: Readonly<Record<CallLabels, string>>;
  count: number;
}

/** The tallies of one tool label: call counts by principal, outcome and code; durations by outcome. */
interface ToolSeries {
  readonly calls: Map<string, Map<string, Map<string, CallTally>>>;
  readonly duration: Map<string, HistogramTally>;
}

/**
 * The Prometheus series of one gateway process (see docs/constructs.md), on a registry of its own. Label values are bounded:
 * tools are the declared names (others count as {@link UNKNOWN_TOOL_LABEL}), principals the configured token ids
 * (others count as {@link OTHER_PRINCIPAL_LABEL}), outcomes and codes come from the gateway's own fixed sets.
 */
export class GatewayMetrics {
  /** The registry `/metrics` exposes. */
  readonly registry = new Registry();
  private readonly duration: TallyHistogram<'gateway' | 'tool' | 'outcome'>;
  private readonly reloads: Counter<'gateway' | 'result'>;
  private tools: ReadonlySet<string> = new Set();
  private principals: ReadonlySet<string> = new Set();
  /**
   * The tallies of each tool label, made on a label set's first call. A call costs a few map lookups and two
   * increments: prom-client hashes a labels object on every `inc`/`observe` (a bound child too), so the counts are
   * plain numbers folded into the registry at scrape time. Tallies are never dropped: a series, once exposed, keeps
   * counting up across reloads (a tool a reload removed is no longer reached: its calls count as `_unknown`).
   */
  private readonly series = new Map<string, ToolSeries>();
  private readonly callTallies: CallTally[] = [];

  /**
   * @param gateway the gateway's name (label `gateway`)
   * @param gauges the current number of in-flight calls and open notification streams, read at scrape time
   */
  constructor(
    private readonly gateway: string,
    gauges: {
      readonly inFlightCalls: () => number;
      readonly openStreams: () => number;
      /** 1 while the limit store answers, 0 during an outage, `undefined` without a store. */
      readonly storeUp?: () => number | undefined;
    },
  ) {
    const registers = [this.registry];
    const callTallies = this.callTallies;
    new Counter({
      name: 'mcp_gateway_tool_calls_total',
      help: 'tools/call requests by tool, principal, outcome (ok, error, refused) and error code',
      labelNames: ['gateway', 'tool', 'principal', 'outcome', 'code'],
      registers,
      collect() {
        this.reset();
        for (const tally of callTallies) this.inc(tally.labels, tally.count);
      },
    });
    this.duration = new TallyHistogram(
      'mcp_gateway_tool_call_duration_seconds',
      'Time from a tools/call reaching the tool pipeline to its answer',
      DURATION_BUCKETS,
      this.registry,
    );
    this.reloads = new Counter({
      name: 'mcp_gateway_config_reloads_total',
      help: 'Config reloads by result (applied, refused)',
      labelNames: ['gateway', 'result'],
      registers,
    });
    new Gauge({
      name: 'mcp_gateway_in_flight_calls',
      help: 'Calls waiting on a service now',
      labelNames: ['gateway'],
      registers,
      collect() {
        this.set({ gateway }, gauges.inFlightCalls());
      },
    });
    new Gauge({
      name: 'mcp_gateway_open_streams',
      help: 'Open notification streams (2025 GET streams and 2026-07-28 subscriptions/listen)',
      labelNames: ['gateway'],
      registers,
      collect() {
        this.set({ gateway }, gauges.openStreams());
      },
    });
    new Gauge({
      name: 'mcp_gateway_limit_store_up',
      help: 'Whether the shared limit store answers (1) or not (0); absent without a store',
      labelNames: ['gateway'],
      registers,
      collect() {
        this.reset();
        const up = gauges.storeUp?.();
        if (up !== undefined) this.set({ gateway }, up);
      },
    });
    new Gauge({
      name: 'mcp_gateway_build_info',
      help: 'The gateway version and Node.js version (value 1)',
      labelNames: ['version', 'node'],
      registers,
    }).set({ version: PACKAGE_VERSION, node: process.version }, 1);
    collectDefaultMetrics({ register: this.registry });
    // prom-client names three gauges `…_total`, which Prometheus reserves for counters (`promtool check metrics`
    // refuses them); the handle and request counts are in `nodejs_active_*` without the suffix anyway.
    for (const misnamed of MISNAMED_DEFAULT_METRICS) this.registry.removeSingleMetric(misnamed);
  }

  /** Takes the label values a (re)loaded config allows: its tool names and its token ids. */
  setKnownNames(tools: Iterable<string>, principals: Iterable<string>): void {
    this.tools = new Set(tools);
    this.principals = new Set(principals);
  }

  /** Counts one answered `tools/call`. */
  recordCall(tool: string, principal: string | null, outcome: AuditOutcome, code: string, seconds: number): void {
    const toolLabel = this.tools.has(tool) ? tool : UNKNOWN_TOOL_LABEL;
    const principalLabel = principal !== null && this.principals.has(principal) ? principal : OTHER_PRINCIPAL_LABEL;
    let series = this.series.get(toolLabel);
    if (series === undefined) {
      series = { calls: new Map(), duration: new Map() };
      this.series.set(toolLabel, series);
    }
    let byOutcome = series.calls.get(principalLabel);
    if (byOutcome === undefined) {
      byOutcome = new Map();
      series.calls.set(principalLabel, byOutcome);
    }
    // Outcomes and codes come from the gateway's own fixed sets, so these maps stay small.
    let byCode = byOutcome.get(outcome);
    if (byCode === undefined) {
      byCode = new Map();
      byOutcome.set(outcome, byCode);
    }
    let calls = byCode.get(code);
    if (calls === undefined) {
      calls = {
        labels: { gateway: this.gateway, tool: toolLabel, principal: principalLabel, outcome, code },
        count: 0,
      };
      this.callTallies.push(calls);
      byCode.set(code, calls);
    }
    calls.count++;
    let duration = series.duration.get(outcome);
    if (duration === undefined) {
      duration = this.duration.series({ gateway: this.gateway, tool: toolLabel, outcome });
      series.duration.set(outcome, duration);
    }
    this.duration.observe(duration, seconds);
  }

  /** Counts a reload, applied or refused. */
  recordReload(result: 'applied' | 'refused'): void {
    this.reloads.inc({ gateway: this.gateway, result });
  }

  /** The text exposition and its content type. */
  async exposition(): Promise<{ readonly contentType: string; readonly body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
