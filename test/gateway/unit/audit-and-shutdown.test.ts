import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { config, connect, eventually, httpRequest, initialize, rawCall, start, startFakeService, tool, TOKEN, type FakeService } from './support';

const SCHEMA = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'], additionalProperties: false };

describe('audit log', () => {
  let service: FakeService;
  before(async () => {
    service = await startFakeService();
  });
  after(() => service.close());

  it('writes one line per tools/call, refusals included, without argument values', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gw-audit-')), 'logs', 'audit.jsonl');
    const gateway = await start(config([tool(service.origin, 'lookup', '/lookup', SCHEMA)]), { auditLogPath: file });
    const client = await connect(gateway.url);
    const session = await initialize(gateway.url);
    try {
      await client.callTool({ name: 'lookup', arguments: { q: 'secret-value-1' } });
      await rawCall(gateway.url, session, 'lookup', { q: 12345, extra: 'secret-value-2' });
      await rawCall(gateway.url, session, 'missing_tool', {});
      service.respond = () => ({ status: 503 });
      await rawCall(gateway.url, session, 'lookup', { q: 'x' });
    } finally {
      await client.close();
      await gateway.close();
    }
    const text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /secret-value|12345/);
    const records = text.trim().split('\n').map((line) => JSON.parse(line));
    assert.deepEqual(records.map((r) => [r.tool, r.outcome, r.error?.code ?? null]), [
      ['lookup', 'ok', null],
      ['lookup', 'refused', 'INVALID_ARGS'],
      ['missing_tool', 'refused', 'UNKNOWN_TOOL'],
      ['lookup', 'error', 'SERVICE_HTTP_STATUS'],
    ]);
    assert.deepEqual(Object.keys(records[0]), ['ts', 'gateway', 'session', 'principal', 'client', 'tool', 'outcome', 'error', 'duration_ms']);
    assert.deepEqual([records[0].gateway, records[0].principal, records[0].client], ['test', 'bot', { name: 'unit-test', version: '1.2.3' }]);
    assert.deepEqual(records[1].client, { name: 'raw', version: '0.1' });
    assert.equal(records[3].error.message, 'Service error: HTTP 503');
    assert.equal(typeof records[0].duration_ms, 'number');
  });

  it('writes the records of a running gateway within moments, without waiting for close()', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gw-audit-')), 'audit.jsonl');
    const gateway = await start(config([tool(service.origin, 'lookup', '/lookup', SCHEMA)]), { auditLogPath: file });
    try {
      const session = await initialize(gateway.url);
      await Promise.all(Array.from({ length: 50 }, (_, i) => rawCall(gateway.url, session, 'lookup', { q: `q${i}` })));
      await eventually(() => {
        assert.equal(readFileSync(file, 'utf8').trim().split('\n').length, 50);
      });
      await rawCall(gateway.url, session, 'missing_tool', {});
      await eventually(() => {
        assert.equal(JSON.parse(readFileSync(file, 'utf8').trim().split('\n').at(-1)!).tool, 'missing_tool');
      });
    } finally {
      await gateway.close();
    }
  });

  it('creates the missing directories of the audit file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gw-audit-')), 'a', 'b', 'audit.jsonl');
    const gateway = await start(config([]), { auditLogPath: file });
    await gateway.close();
    assert.ok(existsSync(file));
  });

  it('fails at start with one line, not a hang, when the directory cannot be created under /proc', async function () {
    // Node's recursive mkdir never returns for a path under /proc (Linux); the gateway must fail instead.
    if (!existsSync('/proc/self')) this.skip();
    const path = '/proc/cdktf-mcp-gateway-test/audit.jsonl';
    await assert.rejects(start(config([]), { auditLogPath: path }), (err: Error) => {
      assert.equal(err.message, `gateway.audit_log: cannot open ${path}: ENOENT (pass --audit-log FILE or set audit_log: false)`);
      return true;
    });
  });

  it('fails at start with one line when the audit file cannot be opened', async () => {
    // A directory path that goes through a regular file cannot be created.
    const notADir = join(mkdtempSync(join(tmpdir(), 'gw-audit-')), 'file');
    writeFileSync(notADir, '');
    const path = join(notADir, 'audit.jsonl');
    await assert.rejects(start(config([]), { auditLogPath: path }), (err: Error) => {
      assert.equal(err.name, 'ConfigError');
      // The errno code (EEXIST or ENOTDIR) depends on the platform.
      assert.equal(err.message.replace(/: E[A-Z]+ /, ': ECODE '), `gateway.audit_log: cannot open ${path}: ECODE (pass --audit-log FILE or set audit_log: false)`);
      return true;
    });
  });
});

describe('close()', () => {
  let service: FakeService;
  before(async () => {
    service = await startFakeService();
  });
  after(() => service.close());

  it('finishes in-flight calls, flushes their audit records and refuses new requests', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gw-drain-')), 'audit.jsonl');
    const gateway = await start(config([tool(service.origin, 'slow', '/slow', { type: 'object' })]), { auditLogPath: file });
    service.respond = () => ({ delayMs: 200, body: '{"done":true}' });
    const session = await initialize(gateway.url);
    const calls = [1, 2, 3].map(() => rawCall(gateway.url, session, 'slow', {}));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = gateway.close();
    const results = await Promise.all(calls);
    await closed;
    assert.deepEqual(results.map((r) => r.result.structuredContent), [{ done: true }, { done: true }, { done: true }]);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    assert.equal(lines.length, 3);
    await assert.rejects(httpRequest(gateway.url, { headers: { authorization: `Bearer ${TOKEN}` }, body: '{}' }));
  });
});
