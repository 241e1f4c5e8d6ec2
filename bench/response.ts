/**
 * The response-controls benchmark (`npm run bench`, or `node dist/bench/run.js response`).
 *
 * Rows: a `tools/call` through the gateway (the built CLI, its own process) whose tool declares an output that the
 * gateway validates and one redact pattern that matches in every response, against the same tool without
 * response controls (req/s and the gateway's CPU per call); then, in this process, shaping one 1 MiB response:
 * validation only; selection, validation and a redact path; the same plus a redact pattern that matches
 * nowhere; one 1 MiB string holding a single match; and (no target) a pattern matching in every order; then
 * hostile responses, per MiB. Targets are reported, not asserted.
 */
import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { ToolConfig } from '../src/config/gateway-config';
import { compileResponseControls, type ResponseControlsConfig } from '../src/response';
import { REDACTED, redactPaths } from '../src/response/redact';
import { compileRedactPattern } from '../src/response/redact-pattern';
import { redactSteps } from '../src/response/response-rules';
import { NativeShortcut } from '../src/regex/bounded-pattern';
import { scanJsonText } from '../src/response/scan-json-text';
import { fieldSelector, MAX_RESPONSE_DEPTH } from '../src/response/select-fields';
import { generateOutputSchema } from '../src/schema';
import { compileToolSchema } from '../src/validation';
import {
  callBody,
  CONNECTIONS,
  DURATION_S,
  fmt,
  gatewayConfig,
  getCustomerTool,
  mcpHeaders,
  measure,
  PAIRED_DURATION_S,
  PAIRED_PROCESSES,
  PAIRED_ROUNDS,
  pairedRatio,
  type Spread,
  spread,
  portOf,
  ROUNDS,
  spawnAndRead,
  startGatewayProcess,
  type Target,
} from './gateway';
import { children, stopChild } from './children';

/** What the bench echo backend answers, declared. */
const ECHO_OUTPUT = generateOutputSchema({
  method: { type: 'string', required: true },
  path: { type: 'string', required: true },
  query: { type: 'object', required: true },
  bytes: { type: 'integer', required: true },
});

function shapedTool(backendUrl: string): ToolConfig {
  return {
    ...getCustomerTool(backendUrl),
    output_schema: ECHO_OUTPUT,
    // Matches the customer id in every echoed path, so every call redacts.
    response: { redact_patterns: { customer: 'C-[0-9]{4}' } },
  };
}

const ORDER_OUTPUT = generateOutputSchema({
  id: { type: 'string', required: true },
  email: { type: 'string', format: 'email' },
  orders: {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        id: { type: 'string', required: true },
        total: { type: 'number' },
        note: { type: 'string', maxLength: 200 },
      },
    },
  },
});

/** 1 MiB (1,048,576 bytes). */
const MIB = 1024 * 1024;

/**
 * A customer with orders, as many as make the body 1 MiB (to within one order, about 80 bytes); each order has an
 * undeclared field unless `conforming`.
 */
function mibResponse(conforming: boolean): string {
  const head = { id: 'C-1', email: 'ada@example.com', orders: [] as object[] };
  let bytes = Buffer.byteLength(JSON.stringify(head));
  for (let i = 0; bytes < MIB; i++) {
    const order = { id: `o-${i}`, total: i * 1.25, note: `order number ${i} of the month` };
    const item = conforming ? order : { ...order, internal: `x${i}` };
    const itemBytes = Buffer.byteLength(JSON.stringify(item)) + (i === 0 ? 0 : 1);
    if (bytes + itemBytes > MIB) break;
    head.orders.push(item);
    bytes += itemBytes;
  }
  return JSON.stringify(head);
}

/**
 * Median and fastest milliseconds of each of `rows` over `runs` calls, the rows timed in turn (one call of each,
 * then the next round), after three rounds to warm up: a slow minute of a shared machine then falls on every row
 * alike instead of on whichever row it happened to reach.
 */
function timeInTurn(rows: readonly (() => void)[], runs: number): { median: number; min: number }[] {
  const times = rows.map((): number[] => []);
  for (let round = 0; round < runs + 3; round++) {
    rows.forEach((run, i) => {
      const started = process.hrtime.bigint();
      run();
      if (round >= 3) times[i].push(Number(process.hrtime.bigint() - started) / 1e6);
    });
  }
  return times.map((row) => {
    const { median, min } = spread(row);
    return { median, min };
  });
}

/**
 * One shaping of `body` under `config`, to be timed. The body is shaped once first and checked to come out as
 * `expected`: a run that refuses, or redacts nothing, where it should not, would time something else.
 */
function shaping(
  config: ResponseControlsConfig,
  body: string,
  expected: 'shaped' | 'redacted' | 'refused' = 'shaped',
): () => void {
  const compiled = compileResponseControls(config, true);
  if (!('shaper' in compiled) || compiled.shaper === undefined) throw new Error('no shaper');
  const shaper = compiled.shaper;
  const check = shaper.shape(body, 'application/json', SHAPE_LIMIT);
  const outcome = !check.ok ? 'refused' : check.resultJson.includes(REDACTED) ? 'redacted' : 'shaped';
  if (outcome !== expected && !(expected === 'shaped' && outcome === 'redacted')) {
    throw new Error(`expected the body ${expected}, but it was ${outcome}${check.ok ? '' : `: ${check.message}`}`);
  }
  return () => shaper.shape(body, 'application/json', SHAPE_LIMIT);
}

/** The size limit of every timed shaping: above every body here (the deepest is 3.4 MiB). */
const SHAPE_LIMIT = 1 << 26;

/** One row of the shaping table: the body's size, median and fastest, each also per MiB of body. */
function shapingRow(name: string, body: string, time: { median: number; min: number }, target: string): string {
  const mib = Buffer.byteLength(body) / MIB;
  return `| ${name} | ${fmt(mib, 3)} | ${fmt(time.median, 1)} | ${fmt(time.min, 1)} | ${fmt(time.median / mib, 1)} | ${fmt(time.min / mib, 1)} | ${target} |`;
}

/** Runs the rows and prints the tables. */
export async function runResponseBench(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-gw-bench-response-'));
  const token = `bench_${randomBytes(16).toString('hex')}`;
  const sha256 = createHash('sha256').update(token).digest('hex');
  try {
    const { value: backendPort } = await spawnAndRead([path.join(__dirname, 'echo-backend.js')], portOf);
    const backendUrl = `http://127.0.0.1:${backendPort}`;
    const plainConfig = gatewayConfig([getCustomerTool(backendUrl)], true, sha256);
    const kinds = [
      ['gateway, response controls off', 'plain', plainConfig],
      [
        'gateway, output validation + 1 redact pattern on',
        'shaped',
        gatewayConfig([shapedTool(backendUrl)], true, sha256),
      ],
      // the A/A pair: gateways just like the first, to show how far identical ones read apart
      ['gateway, response controls off (A/A: a second one)', 'twin', plainConfig],
    ] as const;
    // PAIRED_PROCESSES of each, for the side-by-side ratios; the rows are measured on the first of each
    const gateways: ChildProcess[] = [];
    const [plain, shaped, twin] = await Promise.all(
      kinds.map(async ([name, label, config]) => {
        const started: Target[] = [];
        for (let i = 0; i < PAIRED_PROCESSES; i++) {
          const gw = await startGatewayProcess(dir, config, `${label}-${i}`);
          gateways.push(gw.child);
          const headers = await mcpHeaders(gw.url, token);
          started.push({
            name,
            url: gw.url,
            pid: gw.child.pid,
            options: { method: 'POST', headers, body: callBody(2) },
          });
        }
        return started;
      }),
    );
    const probe = await fetch(shaped[0].url, { method: 'POST', headers: shaped[0].options.headers, body: callBody(3) });
    const probeText = await probe.text();
    if (!probeText.includes('[redacted]'))
      throw new Error(`the shaped call did not redact: ${probeText.slice(0, 300)}`);
    const rows = await measure([plain[0], shaped[0]]);
    const paired = await pairedRatio(plain, shaped);
    const aa = await pairedRatio(plain, twin);
    await Promise.all(gateways.map((c) => stopChild(c)));

    console.log(
      `tools/call, ${CONNECTIONS} connections, pipelining 1, ${DURATION_S} s per row x ${ROUNDS} rounds interleaved, mean (autocannon)\n`,
    );
    console.log('| row | req/s | p50 ms | p99 ms | gateway CPU µs/call | failed |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const r of rows) {
      console.log(
        `| ${r.name} | ${fmt(r.rps)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${fmt(r.cpuUs)} | ${r.failures} |`,
      );
    }
    const [off, on] = rows;
    console.log(`\n| ratio | value | target |`);
    console.log('|---|---:|---|');
    console.log(`| controls on / off, req/s | ${fmt(on.rps / off.rps, 2)} | >= 0.90 |`);
    console.log(`| controls on / off, CPU per call | ${fmt(on.cpuUs / off.cpuUs, 2)} | <= 1.05 |`);
    const range = (r: Spread) => `${fmt(r.median, 2)} (${fmt(r.min, 2)}–${fmt(r.max, 2)})`;
    console.log(
      `| controls on / off side by side (${PAIRED_ROUNDS} rounds of ${PAIRED_DURATION_S} s, ${PAIRED_PROCESSES} processes a side), req/s: median (range) | ${range(paired.rps)} | >= 0.90 |`,
    );
    console.log(`| controls on / off side by side, CPU per call: median (range) | ${range(paired.cpu)} | <= 1.05 |`);
    console.log(`| A/A: off / off side by side, req/s: median (range) | ${range(aa.rps)} | ~1.00 (the noise) |`);
    console.log(`| A/A: off / off side by side, CPU per call: median (range) | ${range(aa.cpu)} | ~1.00 (the noise) |`);

    printShapingTable();
    printHostileTable();
  } finally {
    await Promise.all([...children].map((c) => stopChild(c)));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Shapes 1 MiB responses in this process and prints the table (`node -e "require('./dist/bench/response').printShapingTable()"`). */
export function printShapingTable(): void {
  const body = mibResponse(false);
  const conforming = mibResponse(true);
  const oneString = JSON.stringify({ id: 'C-1', note: `${'a'.repeat(MIB - 40)} 4111111111111111` });
  const shapes: [string, ResponseControlsConfig, string][] = [
    ['output validation only (a conforming response)', { output_schema: ORDER_OUTPUT }, conforming],
    [
      "fields: 'declared' + validation + redact orders[].note",
      { output_schema: ORDER_OUTPUT, response: { fields: 'declared', redact: ['email', 'orders[].note'] } },
      body,
    ],
    [
      '… + a redact pattern matching nowhere',
      {
        output_schema: ORDER_OUTPUT,
        response: { fields: 'declared', redact: ['email'], redact_patterns: { card: '\\b[0-9]{13,16}\\b' } },
      },
      body,
    ],
    [
      'one 1 MiB string with one pattern match',
      { response: { redact_patterns: { card: '\\b[0-9]{13,16}\\b' } } },
      oneString,
    ],
  ];
  // Not a target row: a pattern matching in every order id, so every order's id really changes (RE2 finds each).
  const orders = (JSON.parse(conforming) as { orders: unknown[] }).orders.length;
  const bodyOrders = (JSON.parse(body) as { orders: unknown[] }).orders.length;
  const everyMatch: [string, ResponseControlsConfig, string] = [
    `validation + a redact pattern matching in every order (${orders} replacements)`,
    { output_schema: ORDER_OUTPUT, response: { redact_patterns: { order: 'o-[0-9]+' } } },
    conforming,
  ];
  const runs = 31;
  console.log(
    `\nShaping one response in process (1 MiB bodies: ${bodyOrders} orders with an undeclared field, or ${orders} conforming ones; ${runs} rounds, the rows in turn; median and fastest)\n`,
  );
  console.log('| shaping | body MiB | median ms | fastest ms | median ms/MiB | fastest ms/MiB | target |');
  console.log('|---|---:|---:|---:|---:|---:|---|');
  // The floor: what the parse and one serialization of the same text cost by themselves on this machine now.
  const rows: [string, string, () => void, string][] = [
    ['reference: JSON.parse alone', body, () => JSON.parse(body), '-'],
    [
      'reference: JSON.parse + JSON.stringify of the same text, no shaping',
      body,
      () => JSON.stringify(JSON.parse(body)),
      '-',
    ],
    ...shapes.map(([name, config, text]): [string, string, () => void, string] => [
      name,
      text,
      shaping(config, text),
      '< 20 ms',
    ]),
    [everyMatch[0], everyMatch[2], shaping(everyMatch[1], everyMatch[2]), '-'],
  ];
  const times = timeInTurn(
    rows.map(([, , run]) => run),
    runs,
  );
  rows.forEach(([name, text, , target], i) => console.log(shapingRow(name, text, times[i], target)));
  printStageTable(body, runs);
}

/**
 * The steps of `fields: 'declared'` + validation + a redact path + one pattern (matching nowhere) on `body`, each
 * timed alone in the order shaping runs them, and the floor: what any shaping that re-serializes must spend.
 */
function printStageTable(body: string, runs: number): void {
  const output = ORDER_OUTPUT as Record<string, unknown>;
  const selector = fieldSelector(output);
  const compiled = compileToolSchema(output);
  if (!compiled.ok) throw new Error(compiled.error);
  const validator = compiled.validator;
  const paths = redactSteps(['email']);
  const card = compileRedactPattern('\\b[0-9]{13,16}\\b');
  const stages: [string, number[]][] = [
    'pre-parse scan (depth, huge numbers)',
    'JSON.parse',
    "fields: 'declared' selection",
    'output validation (ajv)',
    'redact path email',
    'JSON.stringify(value): structuredContent',
    'one redact pattern searched in that text (no match)',
    'JSON.stringify(text): the text content',
  ].map((name) => [name, []]);
  const time = <T>(stage: number, run: () => T): T => {
    const started = process.hrtime.bigint();
    const result = run();
    stages[stage][1].push(Number(process.hrtime.bigint() - started) / 1e6);
    return result;
  };
  for (let i = 0; i < runs + 3; i++) {
    if (i === 3) for (const [, times] of stages) times.length = 0; // the first three warm up
    time(0, () => scanJsonText(body, MAX_RESPONSE_DEPTH));
    const parsed = time(1, () => JSON.parse(body) as unknown);
    const selected = time(2, () => selector.select(parsed).value);
    time(3, () => validator.validate(selected));
    time(4, () => redactPaths(selected, paths));
    const json = time(5, () => JSON.stringify(selected));
    time(6, () => json.includes('\\') || card.test(json));
    time(7, () => JSON.stringify(json));
  }
  console.log(`\nThe same steps one by one (the 1 MiB body with an undeclared field; ${runs} runs)\n`);
  console.log('| step | median ms | fastest ms |');
  console.log('|---|---:|---:|');
  let medians = 0;
  let fastest = 0;
  const spreads = stages.map(([name, times]) => [name, spread(times)] as const);
  for (const [name, { median, min }] of spreads) {
    medians += median;
    fastest += min;
    console.log(`| ${name} | ${fmt(median, 1)} | ${fmt(min, 1)} |`);
  }
  console.log(`| sum | ${fmt(medians, 1)} | ${fmt(fastest, 1)} |`);
  const floor = [1, 5, 7].map((i) => spreads[i][1]);
  const floorMedian = floor.reduce((sum, { median }) => sum + median, 0);
  const floorFastest = floor.reduce((sum, { min }) => sum + min, 0);
  console.log(
    `| floor of a re-serialized result: JSON.parse + JSON.stringify(value) + JSON.stringify(text) | ${fmt(floorMedian, 1)} | ${fmt(floorFastest, 1)} |`,
  );
}

const CARD = '\\b[0-9]{13,16}\\b';
const EMAIL = '[a-z]+@[a-z]+\\.[a-z]{2,}';

/**
 * `{"items": [...]}` of about 1 MiB of strings made by `item(i)`, and last `marker` (a string that matches, so that
 * shaping cannot stop at the first search and goes string by string).
 */
function manyStrings(item: (i: number) => string, marker: string): string {
  const items: string[] = [];
  let bytes = Buffer.byteLength(JSON.stringify({ items: [marker] }));
  for (let i = 0; ; i++) {
    const text = item(i);
    const itemBytes = Buffer.byteLength(JSON.stringify(text)) + 1;
    if (bytes + itemBytes > MIB) break;
    items.push(text);
    bytes += itemBytes;
  }
  items.push(marker);
  return JSON.stringify({ items });
}

/**
 * `{"items": [...]}` of about 1 MiB of the JSON text `unit` repeated (no strings: empty objects, nested arrays),
 * and last `marker`, as {@link manyStrings} ends.
 */
function manyValues(unit: string, marker: string): string {
  const tail = `${JSON.stringify(marker)}]}`;
  const count = Math.floor((MIB - '{"items":['.length - tail.length) / (unit.length + 1));
  return `{"items":[${`${unit},`.repeat(count)}${tail}`;
}

/**
 * Near misses of `unit` repeated to `length` UTF-16 units, each ended by a different CJK character (so the text is
 * two-byte and no two strings are alike).
 */
function nearMisses(unit: string, length: number): (i: number) => string {
  const base = unit.repeat(Math.ceil(length / unit.length)).slice(0, length - 1);
  return (i) => base + String.fromCharCode(0x4e00 + (i % 1000));
}

/** The longest string V8 tests by itself for `source` (where its worst case is largest); RE2 takes longer ones. */
function changeover(source: string): number {
  const native = NativeShortcut.of(source);
  if (native === undefined) throw new Error(`${source} is not a bounded pattern`);
  return native.testLength;
}

/**
 * Hostile responses, each about 1 MiB (or the size named), shaped in this process: the backends of the hostile
 * end-to-end test and responses of many strings built where each search works hardest. Target: < 50 ms per MiB.
 */
export function printHostileTable(): void {
  const output = ORDER_OUTPUT as Record<string, unknown>;
  const patternOnly = (source: string): ResponseControlsConfig => ({ response: { redact_patterns: { p: source } } });
  const emptyObjects = manyValues('{}', '4111111111111111');
  const nestedArrays = manyValues('[[[[[[[[]]]]]]]]', '4111111111111111');
  const rows: [string, ResponseControlsConfig, string, ('redacted' | 'refused')?][] = [
    [
      'one 1 MiB string of digits next to a card number',
      patternOnly(CARD),
      JSON.stringify({ id: 'C-1', note: `${'9'.repeat(MIB)} 4111111111111111 ${'a'.repeat(1000)}` }),
    ],
    [
      'objects nested 600,000 deep (refused before parsing)',
      { output_schema: output, response: { redact_patterns: { card: CARD } } },
      `{"id":"C-1","meta":${'{"a":'.repeat(600_000)}1${'}'.repeat(600_000)}}`,
      'refused',
    ],
    [
      'arrays nested 1,048,576 deep (refused before parsing)',
      { output_schema: output },
      `{"id":"C-1","orders":${'['.repeat(MIB)}${']'.repeat(MIB)}}`,
      'refused',
    ],
    [
      'card: 12-digit strings, one short of a match',
      patternOnly(CARD),
      manyStrings(() => '411111111111', '4111111111111111'),
    ],
    [
      `card: strings of ${changeover(CARD)} digits (V8's longest)`,
      patternOnly(CARD),
      manyStrings(nearMisses('0', changeover(CARD)), '4111111111111111'),
    ],
    ['card: one-character strings', patternOnly(CARD), manyStrings(() => '1', '4111111111111111')],
    ['card: every string a card number', patternOnly(CARD), manyStrings(() => '4111111111111111', '4111111111111111')],
    [
      `C-[0-9]{4}: strings of ${changeover('C-[0-9]{4}')} (V8's longest)`,
      patternOnly('C-[0-9]{4}'),
      manyStrings(nearMisses('C-123', changeover('C-[0-9]{4}')), 'C-1234'),
    ],
    [
      `\\d{1,20}x: strings of ${changeover('\\d{1,20}x')} digits (V8's longest)`,
      patternOnly('\\d{1,20}x'),
      manyStrings(nearMisses('0', changeover('\\d{1,20}x')), '0x'),
    ],
    [
      `[0-9]{0,4}[0-9]{0,3}x: strings of ${changeover('[0-9]{0,4}[0-9]{0,3}x')} (V8's longest)`,
      patternOnly('[0-9]{0,4}[0-9]{0,3}x'),
      manyStrings(nearMisses('1', changeover('[0-9]{0,4}[0-9]{0,3}x')), '1x'),
    ],
    [
      'C-[0-9]{4}: one string, a match every 7 characters',
      patternOnly('C-[0-9]{4}'),
      JSON.stringify({ note: 'C-1234 '.repeat(MIB / 7) }),
    ],
    [
      '\\d{1,20}x: one string, a megabyte of digits then x',
      patternOnly('\\d{1,20}x'),
      JSON.stringify({ note: `${'0'.repeat(MIB)}x` }),
    ],
    [
      '\\d{1,20}x: one string, digits with an x every 4,096 (a match in every chunk)',
      patternOnly('\\d{1,20}x'),
      JSON.stringify({ note: `${'0'.repeat(4095)}x`.repeat(MIB / 4096) }),
    ],
    [
      'email: one string, a match every 7 characters',
      patternOnly(EMAIL),
      JSON.stringify({ note: 'a@b.cd '.repeat(MIB / 7) }),
    ],
    ['email: strings a@b', patternOnly(EMAIL), manyStrings(() => 'a@b', 'a@b.io')],
    ['email: strings abcdef (runs of its alphabet)', patternOnly(EMAIL), manyStrings(() => 'abcdef', 'a@b.io')],
    ['card: empty objects, no strings (the parse allocates one object per 3 bytes)', patternOnly(CARD), emptyObjects],
    ['card: empty arrays nested 8 deep, no strings', patternOnly(CARD), nestedArrays],
  ];
  const runs = 11;
  console.log(
    `\nHostile responses shaped in process (${runs} rounds, the rows in turn; median and fastest; each ends with one match where a pattern applies)\n`,
  );
  console.log('| response | body MiB | median ms | fastest ms | median ms/MiB | fastest ms/MiB | target |');
  console.log('|---|---:|---:|---:|---:|---:|---|');
  // What V8 alone spends on the bodies of many containers, whatever the gateway does: the floor of those rows.
  const references: [string, string][] = [
    ['reference: JSON.parse + JSON.stringify alone, the empty objects', emptyObjects],
    ['reference: JSON.parse + JSON.stringify alone, the nested empty arrays', nestedArrays],
  ];
  const times = timeInTurn(
    [
      ...rows.map(([, config, body, expected = 'redacted']) => shaping(config, body, expected)),
      ...references.map(
        ([, body]) =>
          () =>
            JSON.stringify(JSON.parse(body)),
      ),
    ],
    runs,
  );
  rows.forEach(([name, , body], i) => console.log(shapingRow(name, body, times[i], '< 50 ms/MiB')));
  references.forEach(([name, body], i) => console.log(shapingRow(name, body, times[rows.length + i], '-')));
}
