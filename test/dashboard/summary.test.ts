import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import {
  AuditStore,
  parseAuditLine,
  summarize,
  timeseries,
  WINDOWS,
  type DashboardRecord,
  type FlagRule,
  type WindowName,
} from '../../src/dashboard';
import { MAX_PRINCIPAL_CHARS } from '../../src/dashboard/gateway-shared';
import { refusal, auditRecord } from './audit-fixtures';

const NOW = Date.parse('2026-05-04T12:00:30.000Z');
const MINUTE = 60_000;
const DAY = 86_400_000;

const recordArb = fc
  .record({
    tsMs: fc.oneof(
      fc.integer({ min: NOW - 8 * DAY, max: NOW + 10 * MINUTE }),
      fc.integer({ min: NOW - 2 * 3_600_000, max: NOW + 10 * MINUTE }),
      fc.integer({ min: NOW - 7 * DAY - 2 * 3_600_000, max: NOW - 7 * DAY + 2 * 3_600_000 }),
      fc.integer({ min: NOW - DAY - 2 * 3_600_000, max: NOW - DAY + 2 * 3_600_000 }),
    ),
    gateway: fc.constantFrom('support', 'billing'),
    principal: fc.constantFrom<string | null>('bot-a', 'bot-b', 'toString', '__proto__', null),
    auth: fc.constantFrom<'token' | 'oauth'>('token', 'token', 'oauth'),
    clientName: fc.constantFrom<string | null>('sdk', null),
    clientVersion: fc.constant<string | null>(null),
    tool: fc.constantFrom('get_customer', 'create_ticket', 'constructor'),
    outcome: fc.constantFrom('ok', 'ok', 'refused', 'refused', 'error') as fc.Arbitrary<DashboardRecord['outcome']>,
    message: fc.constantFrom('m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'Rate limit reached: 6 calls per minute'),
  })
  .map((r): DashboardRecord => ({
    ...r,
    auth: r.principal === null ? null : r.auth,
    message: r.outcome === 'ok' ? null : r.message,
  }));

/** Records clustered in time (now, and the edges of the 24 h and 7 d windows), so that flags and ties happen. */
const logArb = fc.array(recordArb, { maxLength: 400, size: 'large' });
const ruleArb = fc.record({
  minRefusals: fc.integer({ min: 1, max: 6 }),
  minRate: fc.constantFrom(0, 0.25, 0.5, 0.75, 1),
});
const windowArb = fc.constantFrom<WindowName>('1h', '24h', '7d');

/** The summary computed the slow, obvious way from the raw records. */
function bruteForce(records: readonly DashboardRecord[], window: WindowName, rule: FlagRule) {
  const nowMinute = Math.floor(NOW / MINUTE);
  const from = nowMinute - WINDOWS[window].minutes + 1;
  const retained = nowMinute - 7 * 24 * 60 + 1;
  const inWindow = records.filter((r) => {
    const m = Math.floor(r.tsMs / MINUTE);
    return m >= retained && r.tsMs <= NOW + 5 * MINUTE && m >= from && m <= nowMinute;
  });
  const flagged = (calls: number, refusals: number) =>
    calls > 0 && refusals >= rule.minRefusals && refusals / calls >= rule.minRate;
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  // An agent is a kind and a name: `token` bot-a and `oauth` bot-a are two.
  const agentKeys = [...new Set(inWindow.map((r) => JSON.stringify([r.auth, r.principal])))];
  const agents = agentKeys
    .map((k) => {
      const [auth, principal] = JSON.parse(k) as [DashboardRecord['auth'], string | null];
      const mine = inWindow.filter((r) => r.principal === principal && r.auth === auth);
      const keys = [...new Set(mine.map((r) => `${r.gateway} ${r.tool}`))];
      const tools = keys
        .map((key) => {
          const rows = mine.filter((r) => `${r.gateway} ${r.tool}` === key);
          const calls = rows.length;
          const refusals = rows.filter((r) => r.outcome === 'refused').length;
          const counts = new Map<string, number>();
          for (const r of rows) if (r.message !== null) counts.set(r.message, (counts.get(r.message) ?? 0) + 1);
          const ranked = [...counts].sort((a, b) => b[1] - a[1] || cmp(a[0], b[0]));
          return {
            gateway: rows[0].gateway,
            tool: rows[0].tool,
            calls,
            refusals,
            errors: rows.filter((r) => r.outcome === 'error').length,
            refusal_rate: refusals / calls,
            flagged: flagged(calls, refusals),
            last_seen: new Date(Math.max(...rows.map((r) => r.tsMs))).toISOString(),
            top_messages: ranked.slice(0, 5).map(([message, count]) => ({ message, count })),
            other_messages: ranked.slice(5).reduce((s, [, c]) => s + c, 0),
          };
        })
        .sort(
          (a, b) => b.refusals - a.refusals || b.calls - a.calls || cmp(a.gateway, b.gateway) || cmp(a.tool, b.tool),
        );
      const calls = mine.length;
      const refusals = mine.filter((r) => r.outcome === 'refused').length;
      return {
        principal,
        auth,
        overflow: false,
        calls,
        refusals,
        errors: mine.filter((r) => r.outcome === 'error').length,
        refusal_rate: refusals / calls,
        flagged: flagged(calls, refusals),
        throttled: mine.filter((r) => r.message?.startsWith('Rate limit reached: ')).length,
        last_seen: new Date(Math.max(...mine.map((r) => r.tsMs))).toISOString(),
        tools,
      };
    })
    .sort(
      (a, b) =>
        Number(b.flagged) - Number(a.flagged) ||
        b.refusals - a.refusals ||
        b.calls - a.calls ||
        cmp(a.principal ?? '', b.principal ?? '') ||
        cmp(a.auth ?? '', b.auth ?? ''),
    );
  return {
    totals: {
      calls: inWindow.length,
      refusals: inWindow.filter((r) => r.outcome === 'refused').length,
      errors: inWindow.filter((r) => r.outcome === 'error').length,
    },
    agents,
    inWindow,
  };
}

function storeWith(records: readonly DashboardRecord[], batches = 1): AuditStore {
  const store = new AuditStore({ now: () => NOW });
  const size = Math.ceil(records.length / batches) || 1;
  for (let i = 0; i < records.length; i += size) store.addAll(records.slice(i, i + size));
  store.prune();
  return store;
}

describe('summarize (against a brute-force computation on random logs)', () => {
  it('counts, rates, flags, top messages, last seen and order per agent × tool, for every window', () => {
    fc.assert(
      fc.property(logArb, windowArb, ruleArb, fc.integer({ min: 1, max: 5 }), (records, window, rule, batches) => {
        const summary = summarize(storeWith(records, batches), window, rule);
        const expected = bruteForce(records, window, rule);
        assert.deepEqual(summary.totals, expected.totals);
        assert.deepEqual(summary.agents, expected.agents);
      }),
      { numRuns: 300 },
    );
  });

  it('puts every call of the window in exactly one step of the time series', () => {
    fc.assert(
      fc.property(
        logArb,
        windowArb,
        fc.constantFrom<string | null | undefined>(undefined, 'bot-a', null),
        fc.constantFrom<'token' | 'oauth'>('token', 'oauth'),
        (records, window, principal, auth) => {
          const series = timeseries(storeWith(records), window, principal, auth);
          const { inWindow } = bruteForce(records, window, { minRefusals: 1, minRate: 0 });
          const mine =
            principal === undefined
              ? inWindow
              : inWindow.filter((r) => r.principal === principal && (principal === null || r.auth === auth));
          const step = WINDOWS[window].stepMinutes * MINUTE;
          const expected = series.t.map((t) => mine.filter((r) => Math.floor(r.tsMs / step) * step === t).length);
          assert.deepEqual(series.calls, expected);
          assert.equal(
            series.refusals.reduce((a, b) => a + b, 0),
            mine.filter((r) => r.outcome === 'refused').length,
          );
          assert.equal(series.step_ms, step);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('flags an agent at exactly 10 refusals and 50 % by default, not at 9', () => {
    const at = (n: number) => [
      ...Array.from({ length: n }, () => parseAuditLine(JSON.stringify(refusal('bad', { tsMs: NOW })))!),
      ...Array.from({ length: n }, () => parseAuditLine(JSON.stringify(auditRecord({ tsMs: NOW })))!),
    ];
    const rule = { minRefusals: 10, minRate: 0.5 };
    assert.equal(summarize(storeWith(at(10)), '1h', rule).agents[0].flagged, true);
    assert.equal(summarize(storeWith(at(9)), '1h', rule).agents[0].flagged, false);
  });
});

describe('AuditStore bounds', () => {
  const rec = (tsMs: number, i = 0, message = 'm'): DashboardRecord => ({
    tsMs,
    gateway: 'g',
    principal: `p${i % 3}`,
    auth: 'token',
    clientName: null,
    clientVersion: null,
    tool: `t${i}`,
    outcome: 'refused',
    message,
  });

  it('rolls minutes older than a day into hours as time passes, keeping the 7 d counts and the order of messages', () => {
    let now = NOW;
    const store = new AuditStore({ now: () => now });
    store.addAll(Array.from({ length: 600 }, (_, i) => rec(NOW - i * MINUTE, 0, `m${i % 3}`)));
    const before = summarize(store, '7d', { minRefusals: 1, minRate: 0 });
    now = NOW + 2 * DAY;
    store.prune();
    assert.deepEqual(summarize(store, '24h', { minRefusals: 1, minRate: 0 }).agents, []);
    const after = summarize(store, '7d', { minRefusals: 1, minRate: 0 });
    assert.deepEqual(after.agents, before.agents);
  });

  it('drops what leaves the retention window', () => {
    let now = NOW;
    const store = new AuditStore({ now: () => now });
    store.addAll([rec(NOW)]);
    now = NOW + 8 * DAY;
    store.prune();
    assert.equal(store.entryCount, 0);
    assert.deepEqual(summarize(store, '7d', { minRefusals: 1, minRate: 0 }).agents, []);
  });

  it('counts records past maxSeries in one overflow series', () => {
    const store = new AuditStore({ now: () => NOW, maxSeries: 5 });
    store.addAll(Array.from({ length: 20 }, (_, i) => rec(NOW, i)));
    const summary = summarize(store, '1h', { minRefusals: 1, minRate: 0 });
    assert.equal(summary.totals.calls, 20);
    const other = summary.agents.find((a) => a.overflow);
    assert.equal(other?.calls, 15);
    assert.equal(store.stats.seriesOverflow, 15);
  });

  it('frees the series whose records the retention dropped: a new agent gets its own row again', () => {
    // Agents come and go over months (OAuth subjects): a bound reached once must not put every later one in the
    // overflow row for as long as the dashboard runs.
    let now = NOW;
    const store = new AuditStore({ now: () => now, maxSeries: 5 });
    store.addAll(Array.from({ length: 5 }, (_, i) => rec(NOW, i)));
    const latecomer = (tsMs: number): DashboardRecord => ({ ...rec(tsMs, 9), principal: 'latecomer' });
    store.addAll([latecomer(NOW)]);
    assert.equal(store.stats.seriesOverflow, 1);
    // two days on, the five are held in hour buckets only: still held, so the bound still holds
    now = NOW + 2 * DAY;
    store.prune();
    store.addAll([latecomer(now)]);
    assert.equal(store.stats.seriesOverflow, 2);
    const week = summarize(store, '7d', { minRefusals: 1, minRate: 0 });
    assert.equal(week.agents.filter((a) => !a.overflow).length, 3);
    assert.equal(week.totals.calls, 7);
    // past the retention of the five (and of the overflow's first record): their series are gone, their ids used
    now = NOW + 7 * DAY + 2 * 3_600_000;
    store.prune();
    store.addAll([latecomer(now), ...Array.from({ length: 3 }, (_, i) => rec(now, 10 + i))]);
    assert.equal(store.stats.seriesOverflow, 2);
    const hour = summarize(store, '1h', { minRefusals: 1, minRate: 0 });
    assert.deepEqual(
      hour.agents.map((a) => [a.principal, a.overflow, a.calls]),
      [
        ['latecomer', false, 1],
        ['p0', false, 1],
        ['p1', false, 1],
        ['p2', false, 1],
      ].sort(),
    );
    // the overflow row's record two days in is still held, under its own row
    const weekAfter = summarize(store, '7d', { minRefusals: 1, minRate: 0 });
    assert.deepEqual(
      weekAfter.agents.filter((a) => a.overflow).map((a) => a.calls),
      [1],
    );
  });

  it('keeps every count while series are freed and their ids used again as time passes (random runs)', () => {
    const stepArb = fc.record({
      advanceMinutes: fc.oneof(fc.integer({ min: 0, max: 90 }), fc.integer({ min: 1_400, max: 4 * 1_440 })),
      records: fc.array(
        fc.record({
          minutesAgo: fc.integer({ min: 0, max: 600 }),
          principal: fc.integer({ min: 0, max: 5 }),
          tool: fc.integer({ min: 0, max: 2 }),
        }),
        { maxLength: 20 },
      ),
    });
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 12 }), (steps) => {
        let now = NOW;
        const store = new AuditStore({ now: () => now, maxSeries: 3 });
        const added: DashboardRecord[] = [];
        for (const step of steps) {
          now += step.advanceMinutes * MINUTE;
          const records = step.records.map((r) => ({
            ...rec(now - r.minutesAgo * MINUTE, r.tool),
            principal: `p${r.principal}`,
          }));
          store.addAll(records);
          store.prune();
          added.push(...records);
          const nowMinute = Math.floor(now / MINUTE);
          for (const window of ['1h', '24h'] as const) {
            const from = nowMinute - WINDOWS[window].minutes + 1;
            const expected = added.filter((r) => Math.floor(r.tsMs / MINUTE) >= from).length;
            const summary = summarize(store, window, { minRefusals: 1, minRate: 0 });
            assert.equal(summary.totals.calls, expected, window);
            const own = summary.agents.filter((a) => !a.overflow).flatMap((a) => a.tools);
            assert.ok(own.length <= 3, `${own.length} series held`);
          }
          summarize(store, '7d', { minRefusals: 1, minRate: 0 });
        }
      }),
    );
  });

  it('keeps the unknown tool names one agent calls from using up the series of every other agent', () => {
    // An agent chooses the names it calls: each unknown one must not become a series of its own, or 10,000 calls
    // put every later agent (a failing one included) in the overflow row, for as long as the dashboard runs.
    const store = new AuditStore({ now: () => NOW, maxSeries: 5 });
    const unknown = Array.from({ length: 20 }, (_, i) =>
      parseAuditLine(
        JSON.stringify(
          auditRecord({
            tsMs: NOW,
            principal: 'prober',
            tool: `t${i}`,
            outcome: 'refused',
            error: { code: 'UNKNOWN_TOOL', message: `Unknown tool: \`t${i}\`` },
          }),
        ),
      )!,
    );
    const victim = Array.from({ length: 12 }, () =>
      parseAuditLine(JSON.stringify(refusal('Unknown parameter: `nope`', { tsMs: NOW, principal: 'victim' })))!,
    );
    store.addAll([...unknown, ...victim]);
    const summary = summarize(store, '1h', { minRefusals: 10, minRate: 0.5 });
    assert.equal(store.stats.seriesOverflow, 0);
    const victimRow = summary.agents.find((a) => a.principal === 'victim');
    assert.equal(victimRow?.flagged, true);
    const prober = summary.agents.find((a) => a.principal === 'prober');
    assert.equal(prober?.tools.length, 1);
    assert.equal(prober?.tools[0].calls, 20);
    assert.equal(prober?.tools[0].top_messages[0].message, 'Unknown tool: `t0`');
  });

  it('counts every call of an OAuth subject cut inside a surrogate pair in one series', () => {
    // A subject cut between the halves of a pair: were the lone half kept, the series key the store holds (a UTF-8
    // copy) would never equal the record's, and each call would make a series of its own past maxSeries.
    const principal = `${'a'.repeat(MAX_PRINCIPAL_CHARS - 2)}😀tail`;
    const store = new AuditStore({ now: () => NOW, maxSeries: 5 });
    store.addAll(
      Array.from({ length: 12 }, () =>
        parseAuditLine(JSON.stringify(refusal('m', { tsMs: NOW, principal, auth: 'oauth' })))!,
      ),
    );
    const summary = summarize(store, '1h', { minRefusals: 10, minRate: 0.5 });
    assert.equal(summary.agents.length, 1);
    assert.deepEqual(
      summary.agents[0].tools.map((t) => [t.calls, t.flagged]),
      [[12, true]],
    );
    assert.equal(store.refusals.recent(`oauth:${summary.agents[0].principal}`, 0, 50).length, 12);
  });

  it('counts messages past the per-cell cap as other messages', () => {
    const store = new AuditStore({ now: () => NOW, maxMessagesPerCell: 2 });
    store.addAll(['a', 'b', 'c', 'c', 'a'].map((m) => rec(NOW, 0, m)));
    const [tool] = summarize(store, '1h', { minRefusals: 1, minRate: 0 }).agents[0].tools;
    assert.deepEqual(tool.top_messages, [
      { message: 'a', count: 2 },
      { message: 'b', count: 1 },
    ]);
    assert.equal(tool.other_messages, 2);
  });

  it('drops the oldest buckets when maxEntries is reached', () => {
    const store = new AuditStore({ now: () => NOW, maxEntries: 100 });
    store.addAll(Array.from({ length: 500 }, (_, i) => rec(NOW - i * MINUTE, i % 7)));
    assert.ok(store.entryCount <= 100, String(store.entryCount));
    assert.ok(store.stats.evictedMinutes > 0);
    // one call a minute, 2 entries each (a cell and its message): the newest 50 minutes fit
    assert.equal(summarize(store, '1h', { minRefusals: 1, minRate: 0 }).totals.calls, 50);
  });

  it('ignores records dated before the retention or more than 5 minutes ahead', () => {
    const store = new AuditStore({ now: () => NOW });
    store.addAll([rec(NOW - 8 * DAY), rec(NOW + 6 * MINUTE), rec(NOW + 4 * MINUTE)]);
    assert.equal(store.stats.outOfRange, 2);
    assert.equal(store.stats.records, 1);
  });
});

describe('summarize: services beside agents', () => {
  it('lists the services that failed, over every agent, with their own error messages only', () => {
    const invalid = 'Service returned an invalid response: Invalid type for `orders[1].total`: expected number';
    const refused = 'Missing required parameter: `customer_id`';
    const at = (i: number) => NOW - i * 1000;
    const records = [
      auditRecord({
        tsMs: at(1),
        principal: 'bot-a',
        outcome: 'error',
        error: { code: 'OUTPUT_INVALID', message: invalid },
      }),
      auditRecord({
        tsMs: at(2),
        principal: 'bot-b',
        outcome: 'error',
        error: { code: 'OUTPUT_INVALID', message: invalid },
      }),
      auditRecord({
        tsMs: at(3),
        principal: 'bot-b',
        outcome: 'error',
        error: { code: 'RESPONSE_TOO_LARGE', message: 'Service response too large: 70000 bytes (limit 65536)' },
      }),
      refusal(refused, { tsMs: at(4), principal: 'bot-a' }),
      auditRecord({ tsMs: at(5), principal: 'bot-a' }),
      auditRecord({ tsMs: at(6), tool: 'health' }),
    ].map((r) => parseAuditLine(JSON.stringify(r))!);
    const store = new AuditStore({ now: () => NOW });
    store.addAll(records as DashboardRecord[]);
    const summary = summarize(store, '1h', { minRefusals: 10, minRate: 0.5 });
    assert.deepEqual(summary.services, [
      {
        gateway: 'support',
        tool: 'get_customer',
        calls: 5,
        errors: 3,
        error_rate: 0.6,
        top_messages: [
          { message: invalid, count: 2 },
          { message: 'Service response too large: 70000 bytes (limit 65536)', count: 1 },
        ],
        last_seen: new Date(at(1)).toISOString(),
      },
    ]);
  });
});
