import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Histogram, Registry } from 'prom-client';
import { TallyHistogram } from '../../../src/gateway/metrics/tally-histogram';

const BOUNDS = [0.001, 0.01, 0.1, 1, 10];

/** The exposition of `observations` through prom-client's own histogram and through ours. */
async function both(observations: readonly [string, number][]): Promise<[string, string]> {
  const theirs = new Registry();
  const reference = new Histogram({ name: 'h', help: 'h', labelNames: ['tool'], buckets: BOUNDS, registers: [theirs] });
  const ours = new Registry();
  const tally = new TallyHistogram<'tool'>('h', 'h', BOUNDS, ours);
  const series = new Map<string, ReturnType<typeof tally.series>>();
  for (const [tool, value] of observations) {
    reference.observe({ tool }, value);
    let s = series.get(tool);
    if (s === undefined) series.set(tool, (s = tally.series({ tool })));
    tally.observe(s, value);
  }
  return [await theirs.metrics(), await ours.metrics()];
}

describe('TallyHistogram', () => {
  it('exposes exactly what prom-client’s histogram exposes for the same observations', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            fc.constantFrom('a', 'b', 'c"quoted"'),
            fc.oneof(fc.constantFrom(...BOUNDS, 0, 100), fc.double({ min: 0, max: 50, noNaN: true })),
          ),
          { maxLength: 60 },
        ),
        async (observations) => {
          const [theirs, ours] = await both(observations);
          assert.equal(ours, theirs);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('counts a value equal to a bound in that bound’s bucket, and forgets everything on reset', async () => {
    const registry = new Registry();
    const h = new TallyHistogram<'tool'>('h', 'h', BOUNDS, registry);
    const s = h.series({ tool: 'a' });
    h.observe(s, 0.01);
    assert.match(await registry.metrics(), /^h_bucket\{le="0.001",tool="a"\} 0$/m);
    assert.match(await registry.metrics(), /^h_bucket\{le="0.01",tool="a"\} 1$/m);
    registry.resetMetrics();
    assert.match(await registry.metrics(), /^h_count\{tool="a"\} 0$/m);
  });
});
