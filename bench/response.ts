/**
 * The response-controls benchmark (`npm run bench`, or `node dist/bench/run.js response`).
 *
 * Rows: a `tools/call` through the gateway (the built CLI, its own process) whose tool declares an output that the
 * gateway validates and one redact pattern that matches in every response, against the same tool without
 * response controls (req/s and the gateway's CPU per call); then, in this process, shaping one 1 MiB response:
 * validation only; selection, validation and a redact path; the same plus a redact pattern that matches
 * nowhere; one 1 MiB string holding a single match; and (no target) a pattern matching in every order. Targets
 * are reported, not asserted.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { GatewayConfig, ToolConfig } from '../src/contract/gateway-config';
import { compileResponseControls, type ResponseControlsConfig } from '../src/response';
import { generateOutputSchema } from '../src/schema';
import {
  callBody,
  children,
  CONNECTIONS,
  DURATION_S,
  fmt,
  gatewayConfig,
  getCustomerTool,
  mcpHeaders,
  measure,
  portOf,
  ROUNDS,
  serveArgs,
  spawnAndRead,
  stopChild,
  urlOf,
  type Target,
} from './gateway';

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

async function startGateway(
  dir: string,
  config: GatewayConfig,
  label: string,
): Promise<{ child: ChildProcess; url: string }> {
  const file = path.join(dir, `${label}.json`);
  writeFileSync(file, JSON.stringify(config));
  const { child, value } = await spawnAndRead(
    serveArgs(['--config', file, '--port', '0', '--audit-log', path.join(dir, `${label}.audit.jsonl`)]),
    urlOf,
  );
  return { child, url: value };
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

/** About 1 MiB: a customer with orders, each with an undeclared field unless `conforming`. */
function mibResponse(conforming: boolean): string {
  const orders = [];
  for (let i = 0; i < 14_000; i++) {
    const order = { id: `o-${i}`, total: i * 1.25, note: `order number ${i} of the month` };
    orders.push(conforming ? order : { ...order, internal: `x${i}` });
  }
  return JSON.stringify({ id: 'C-1', email: 'ada@example.com', orders });
}

/** Mean and fastest milliseconds per shaping of `body` (the fastest is the steadier figure on a shared machine). */
function timeShape(config: ResponseControlsConfig, body: string, runs: number): { mean: number; min: number } {
  const compiled = compileResponseControls(config, true);
  if (!('shaper' in compiled) || compiled.shaper === undefined) throw new Error('no shaper');
  const shaper = compiled.shaper;
  const check = shaper.shape(body, 'application/json', 1 << 24);
  if (!check.ok) throw new Error(`shaping failed: ${check.message}`);
  for (let i = 0; i < 3; i++) shaper.shape(body, 'application/json', 1 << 24);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    shaper.shape(body, 'application/json', 1 << 24);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return { mean: times.reduce((a, b) => a + b, 0) / runs, min: Math.min(...times) };
}

/** Runs the rows and prints the tables. */
export async function runResponseBench(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-gw-bench-response-'));
  const token = `bench_${randomBytes(16).toString('hex')}`;
  const sha256 = createHash('sha256').update(token).digest('hex');
  try {
    const { value: backendPort } = await spawnAndRead([path.join(__dirname, 'echo-backend.js')], portOf);
    const backendUrl = `http://127.0.0.1:${backendPort}`;
    const plain = await startGateway(dir, gatewayConfig([getCustomerTool(backendUrl)], true, sha256), 'plain');
    const shaped = await startGateway(dir, gatewayConfig([shapedTool(backendUrl)], true, sha256), 'shaped');
    const targets: Target[] = [];
    for (const [name, gw] of [
      ['gateway, response controls off', plain],
      ['gateway, output validation + 1 redact pattern on', shaped],
    ] as const) {
      targets.push({
        name,
        url: gw.url,
        pid: gw.child.pid,
        options: { method: 'POST', headers: await mcpHeaders(gw.url, token), body: callBody(2) },
      });
    }
    const probe = await fetch(shaped.url, { method: 'POST', headers: targets[1].options.headers, body: callBody(3) });
    const probeText = await probe.text();
    if (!probeText.includes('[redacted]'))
      throw new Error(`the shaped call did not redact: ${probeText.slice(0, 300)}`);
    const rows = await measure(targets);
    await Promise.all([stopChild(plain.child), stopChild(shaped.child)]);

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
    console.log(`| controls on / off, CPU per call | ${fmt(on.cpuUs / off.cpuUs, 2)} | <= 1.10 |`);

    const body = mibResponse(false);
    const conforming = mibResponse(true);
    const mib = Buffer.byteLength(body) / (1024 * 1024);
    const oneString = JSON.stringify({ id: 'C-1', note: `${'a'.repeat(1024 * 1024)} 4111111111111111` });
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
    // Not a target row: a pattern matching in every order id, so 14,000 strings really change (RE2 finds each).
    const everyMatch: [string, ResponseControlsConfig, string] = [
      'validation + a redact pattern matching in every order (14,000 replacements)',
      { output_schema: ORDER_OUTPUT, response: { redact_patterns: { order: 'o-[0-9]+' } } },
      conforming,
    ];
    console.log(`\nShaping one response in process (${fmt(mib, 2)} MiB of ${body.length} characters; 20 runs)\n`);
    console.log('| shaping | ms per response, mean | fastest | target |');
    console.log('|---|---:|---:|---|');
    // The floor: what the parse and one serialization of the same text cost by themselves on this machine now.
    const parseStarted = process.hrtime.bigint();
    for (let i = 0; i < 10; i++) JSON.stringify(JSON.parse(body));
    const parseMs = Number(process.hrtime.bigint() - parseStarted) / 1e6 / 10;
    console.log(`| reference: JSON.parse + JSON.stringify of the same text, no shaping | ${fmt(parseMs, 1)} | - | - |`);
    for (const [name, config, text] of shapes) {
      const { mean, min } = timeShape(config, text, 20);
      console.log(`| ${name} | ${fmt(mean, 1)} | ${fmt(min, 1)} | < 20 ms |`);
    }
    const every = timeShape(everyMatch[1], everyMatch[2], 20);
    console.log(`| ${everyMatch[0]} | ${fmt(every.mean, 1)} | ${fmt(every.min, 1)} | - |`);
  } finally {
    await Promise.all([...children].map((c) => stopChild(c)));
    rmSync(dir, { recursive: true, force: true });
  }
}
