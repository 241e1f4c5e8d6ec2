/**
 * Real documents nobody here wrote: every OpenAPI 3.0 and 3.1 document of `@readme/oas-examples` either
 * synthesizes (its tools' schemas compile in the gateway) or fails with a message naming the operation and the
 * reason. Prints the table: documents, tools per document, operations skipped, and why the rest failed.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Gateway, OpenApiServices } from '../../constructs';
import { parseGatewayConfig } from '../../src/config';
import { compileToolSchema } from '../../src/validation';
import { configOf, newStack, synth } from '../constructs/synth';

const EXAMPLES = path.dirname(require.resolve('@readme/oas-examples/package.json'));

interface Row {
  readonly document: string;
  readonly outcome: 'synthesized' | 'failed';
  readonly tools: number;
  /** Tools with a declared output (the operation's 2xx JSON schema is an object's). */
  readonly withOutput: number;
  readonly skipped: number;
  readonly note: string;
}

function documents(): string[] {
  const out: string[] = [];
  for (const version of ['3.0', '3.1']) {
    const dir = path.join(EXAMPLES, version, 'json');
    for (const file of fs.readdirSync(dir).sort()) if (file.endsWith('.json')) out.push(path.join(dir, file));
  }
  return out;
}

function tryDocument(file: string): Row {
  const document = path.relative(EXAMPLES, file);
  const stack = newStack();
  let api: OpenApiServices;
  try {
    api = new OpenApiServices(stack, 'api', { document: file, baseUrl: 'http://api:8080' });
  } catch (err) {
    const message = (err as Error).message;
    return { document, outcome: 'failed', tools: 0, withOutput: 0, skipped: 0, note: message };
  }
  const skipped = api.skippedOperations.length;
  const reasons = [...new Set(api.skippedOperations.map((s) => s.reason.replace(/`[^`]*`/g, '`…`')))].join('; ');
  if (api.services.length === 0) {
    return { document, outcome: 'synthesized', tools: 0, withOutput: 0, skipped, note: reasons || 'no operations' };
  }
  new Gateway(stack, 'gw', { services: [...api.services], auth: 'none' });
  const config = configOf(synth(stack), 'gw');
  let withOutput = 0;
  // what the gateway itself loads: every schema compiles (a defect would make the config invalid)
  parseGatewayConfig(config);
  for (const tool of config.tools) {
    assert.ok(compileToolSchema(tool.input_schema).ok, `${document}: ${tool.name}`);
    // an operation's 2xx schema is the tool's declared output: it compiles too, and the gateway checks responses
    if (tool.output_schema !== undefined) {
      assert.ok(compileToolSchema(tool.output_schema).ok, `${document}: ${tool.name} output`);
      withOutput++;
    }
  }
  assert.equal(config.tools.length, api.services.length);
  return { document, outcome: 'synthesized', tools: api.services.length, withOutput, skipped, note: reasons };
}

describe('OpenApiServices over @readme/oas-examples', function () {
  this.timeout(600_000);

  it('synthesizes every 3.0/3.1 document, or fails naming the operation and the reason', () => {
    const rows = documents().map(tryDocument);
    for (const row of rows.filter((r) => r.outcome === 'failed')) {
      assert.match(row.note, /^OpenApiServices 'api': operations? \S.*: .+/, `${row.document}: ${row.note}`);
    }
    const table = [
      '| document | outcome | operations | tools | with output | skipped | why skipped / failed |',
      '|---|---|---:|---:|---:|---:|---|',
      ...rows.map(
        (r) =>
          `| ${r.document} | ${r.outcome} | ${r.outcome === 'failed' ? '-' : r.tools + r.skipped} | ${r.tools} | ` +
          `${r.withOutput} | ${r.skipped} | ${r.note.replace(/\|/g, '\\|')} |`,
      ),
    ];
    const ok = rows.filter((r) => r.outcome === 'synthesized');
    table.push(
      '',
      `${ok.length} of ${rows.length} documents synthesized, ${ok.reduce((n, r) => n + r.tools, 0)} tools ` +
        `(${ok.reduce((n, r) => n + r.withOutput, 0)} with a declared output), ` +
        `${rows.reduce((n, r) => n + r.skipped, 0)} operations skipped`,
    );
    if (process.env.OAS_EXAMPLES_TABLE !== undefined)
      fs.writeFileSync(process.env.OAS_EXAMPLES_TABLE, table.join('\n') + '\n');
    assert.ok(ok.length > rows.length / 2, table.join('\n'));
  });
});
