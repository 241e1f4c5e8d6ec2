import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { openAuditLog, type AuditRecord } from '../../../src/gateway/audit';
import { jsonLogger } from '../../../src/gateway/logger';

/** What a reader that splits on every line terminator Unicode or JavaScript knows would see. */
const ANY_LINE_BREAK = /\r\n|[\n\r\u2028\u2029\u0085]/;
const HOSTILE = 'agent\u2028{"forged":1}\u2029x\u0085y';

function record(i: number): AuditRecord {
  return {
    ts: new Date(0).toISOString(),
    gateway: 'g',
    session: null,
    principal: 'bot',
    client: { name: HOSTILE, version: `1\u2028${i}` },
    tool: `tool\u0085${i}`,
    outcome: 'refused',
    error: { code: 'UNKNOWN_TOOL', message: `Unknown tool: \`tool\u2029${i}\`` },
    duration_ms: 1,
  };
}

/** Splits like a line-oriented reader; every piece must be one whole JSON record. */
function splitRecords(text: string): unknown[] {
  const pieces = text.split(ANY_LINE_BREAK);
  assert.equal(pieces.pop(), '', 'the text ends with a line break');
  return pieces.map((piece) => JSON.parse(piece) as unknown);
}

describe('audit log and JSON logs: one record per line for any line-splitting reader (SPEC §4)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-gw-audit-lines-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('escapes U+2028, U+2029 and U+0085 in audit records, which still read back exactly', async () => {
    const file = join(dir, 'audit.jsonl');
    const audit = openAuditLog(file);
    for (let i = 0; i < 3; i++) audit.write(record(i));
    await audit.close();
    const records = splitRecords(readFileSync(file, 'utf8'));
    assert.deepEqual(records, [record(0), record(1), record(2)]);
  });

  it('escapes them in a record written after close (the synchronous path)', async () => {
    const file = join(dir, 'audit.jsonl');
    const audit = openAuditLog(file);
    await audit.close();
    audit.write(record(7));
    assert.deepEqual(splitRecords(readFileSync(file, 'utf8')), [record(7)]);
  });

  it('escapes them in JSON log lines', () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    const log = jsonLogger(out);
    log('info', 'session opened', { client: { name: HOSTILE } });
    log('warn', `msg\u2028${HOSTILE}`);
    const records = splitRecords(text) as Record<string, unknown>[];
    assert.equal(records.length, 2);
    assert.deepEqual(records[0].client, { name: HOSTILE });
    assert.equal(records[1].msg, `msg\u2028${HOSTILE}`);
  });
});
