/**
 * Issue 10 items 5 and 9 through a listening gateway: names are own properties only (placeholders, forward_as,
 * tool lookup) and the audit and log files keep one record per line whatever a client or tool name holds.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { jsonLogger, type RunningGateway } from '../../../src/gateway';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { botConfig, objectSchema, tool } from '../../helpers/config';
import { eventually } from '../../helpers/eventually';
import { startSilentGateway } from '../../helpers/in-process-gateway';
import { initializeRequest, postJson, rawCall } from '../../helpers/mcp';

const ANY_LINE_BREAK = /\r\n|[\n\r\u2028\u2029\u0085]/;

function records(text: string): Record<string, unknown>[] {
  const pieces = text.split(ANY_LINE_BREAK);
  assert.equal(pieces.pop(), '');
  return pieces.map((piece) => JSON.parse(piece) as Record<string, unknown>);
}

describe('hardening e2e: own-property names and line-safe records', () => {
  let backend: TestBackend;
  let gateway: RunningGateway;
  let dir: string;
  let logText = '';
  let session: string;

  before(async () => {
    backend = await startBackend();
    dir = mkdtempSync(join(tmpdir(), 'mcp-gw-hardening-'));
    const out = new PassThrough();
    out.on('data', (chunk: Buffer) => (logText += chunk.toString('utf8')));
    const config = botConfig(
      [
        tool('ctor', `${backend.url}/constructors/{constructor}`, {
          inputSchema: objectSchema({ constructor: { type: 'string' }, q: { type: 'string' } }),
        }),
        tool('open_ctor', `${backend.url}/constructors/{constructor}`, { inputSchema: { type: 'object' } }),
        tool('search', `${backend.url}/search?fixed=1`, { inputSchema: { type: 'object' } }),
      ],
      { validate_input: false },
    );
    gateway = await startSilentGateway(config, { auditLogPath: join(dir, 'audit.jsonl'), logger: jsonLogger(out) });
    const init = await postJson(
      gateway.url,
      initializeRequest('2025-06-18', { name: 'evil\u2028{"forged":true}\u2029\u0085', version: '1\u2028' }),
    );
    session = init.headers.get('mcp-session-id')!;
  });
  after(async () => {
    await gateway.close();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses /constructors/{constructor} with the field omitted as a missing placeholder (validation off)', async () => {
    const before = backend.requests;
    for (const name of ['ctor', 'open_ctor']) {
      const res = await rawCall(gateway.url, session, name, { q: 'x' });
      assert.equal(res.error?.code, -32602, JSON.stringify(res));
      assert.equal(res.error.message, 'Missing required parameter: `constructor`');
    }
    assert.equal(backend.requests, before, 'nothing reached the backend');
  });

  it('answers tools/call of constructor, __proto__, toString and hasOwnProperty with Unknown tool', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      const res = await rawCall(gateway.url, session, name, {});
      assert.deepEqual(res.error, { code: -32602, message: `Unknown tool: \`${name}\`` });
    }
  });

  it('forwards a caller __proto__ field as an ordinary query field and never duplicates a fixed query parameter', async () => {
    const res = await rawCall(gateway.url, session, 'search', JSON.parse('{"__proto__":"p","fixed":"2","q":"y"}'));
    assert.equal(res.result?.isError, undefined, JSON.stringify(res));
    assert.equal(backend.received.at(-1)!.url, '/search?fixed=1&__proto__=p&q=y');
  });

  it('writes U+2028/U+2029/U+0085 of client and tool names escaped: one record per line in audit and logs', async () => {
    await rawCall(gateway.url, session, 'no\u2028such\u2029tool\u0085', {});
    const auditFile = join(dir, 'audit.jsonl');
    const audited = await eventually(
      () => {
        const all = records(readFileSync(auditFile, 'utf8'));
        return all.some((r) => r.tool === 'no\u2028such\u2029tool\u0085') && all;
      },
      { what: 'the audit record of the unknown tool' },
    );
    for (const r of audited)
      assert.deepEqual(r.client, { name: 'evil\u2028{"forged":true}\u2029\u0085', version: '1\u2028' });
    const logged = records(logText);
    const opened = logged.find((r) => r.msg === 'session opened');
    assert.deepEqual((opened as { client: unknown }).client, {
      name: 'evil\u2028{"forged":true}\u2029\u0085',
      version: '1\u2028',
    });
    assert.ok(!logged.some((r) => 'forged' in r));
  });
});
