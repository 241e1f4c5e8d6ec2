import type { Metric, Registry } from 'prom-client';

/** One label set's observations: a count per bucket (not cumulative), their sum and their number. */
export interface HistogramTally {
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

/**
 * A Prometheus histogram whose observations are a few array increments, folded into the exposition only at scrape
 * time. prom-client's `Histogram.observe` hashes its labels object on every call (a bound child too); on the
 * `tools/call` path that was most of the metrics' cost. The exposition is the same as prom-client's histogram:
 * cumulative `_bucket` series with `le` (the `+Inf` one last), then `_sum` and `_count`, per label set in the order
 * the sets were first observed.
 */
export class TallyHistogram<L extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly tallies: { readonly labels: Readonly<Record<L, string>>; readonly tally: HistogramTally }[] = [];

  /**
   * @param name the metric name (without `_bucket`, `_sum`, `_count`)
   * @param help its help text
   * @param upperBounds the buckets' upper bounds, ascending (`+Inf` is implied)
   */
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly upperBounds: readonly number[],
    registry: Registry,
  ) {
    // prom-client's registry reads `name`, `help`, `type`, `aggregator` and `get()` of what it holds; its type names
    // only its own classes.
    registry.registerMetric(this as unknown as Metric);
  }

  /** A new label set's tally; the caller keeps it and calls {@link observe} with it. */
  series(labels: Readonly<Record<L, string>>): HistogramTally {
    const tally = { buckets: new Float64Array(this.upperBounds.length + 1), sum: 0, count: 0 };
    this.tallies.push({ labels, tally });
    return tally;
  }

  /** Counts one observation of `value` into `tally`. */
  observe(tally: HistogramTally, value: number): void {
    const bounds = this.upperBounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    tally.buckets[i]++;
    tally.sum += value;
    tally.count++;
  }

  /** The exposition values (what the registry formats). */
  async get(): Promise<{
    name: string;
    help: string;
    type: 'histogram';
    aggregator: 'sum';
    values: { metricName: string; labels: Record<string, string | number>; value: number }[];
  }> {
    const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, tally } of this.tallies) {
      let cumulative = 0;
      for (let i = 0; i < this.upperBounds.length; i++) {
        cumulative += tally.buckets[i];
        values.push({ metricName: bucket, labels: { le: this.upperBounds[i], ...labels }, value: cumulative });
      }
      values.push({ metricName: bucket, labels: { le: '+Inf', ...labels }, value: tally.count });
      values.push({ metricName: `${this.name}_sum`, labels: { ...labels }, value: tally.sum });
      values.push({ metricName: `${this.name}_count`, labels: { ...labels }, value: tally.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** Forgets every observation (the registry's `resetMetrics`). */
  reset(): void {
    for (const { tally } of this.tallies) {
      tally.buckets.fill(0);
      tally.sum = 0;
      tally.count = 0;
    }
  }
}
