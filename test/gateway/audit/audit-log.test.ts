import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  constants,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AUDIT_RECORD_KEYS, type AuditRecord, readAuditText, waitForAuditRecords } from '../../helpers/audit-log';
import { startBackend, startFakeService, type FakeService, type TestBackend } from '../../helpers/backend';
import { botConfig, gatewayConfig, objectSchema, tool } from '../../helpers/config';
import { eventually } from '../../helpers/eventually';
import { type InProcessGateway, startInProcessGateway, startSilentGateway } from '../../helpers/in-process-gateway';
import {
  connectClient,
  connectSdkClient,
  initializeSession,
  openSession,
  rawCall,
  type SdkConnection,
} from '../../helpers/mcp';
import { makeToken } from '../../helpers/tokens';
import { PassThrough } from 'node:stream';
import {
  noAudit,
  openAuditLog,
  type AuditRecord as GatewayAuditRecord,
  type AuditSink,
} from '../../../src/gateway/audit';
import { jsonLogger, silentLogger, type Logger } from '../../../src/gateway/log/logger';
import { sessionDigest } from '../../../src/gateway/audit/session-digest';
import { tempDir } from '../../helpers/temp-dir';

const SCHEMA = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'], additionalProperties: false };

describe('the audit log', () => {
  let service: FakeService;
  before(async () => {
    service = await startFakeService();
  });
  after(() => service.close());

  it('writes one line per tools/call, refusals included, without argument values', async () => {
    const file = join(tempDir('gw-audit-'), 'logs', 'audit.jsonl');
    const gateway = await startSilentGateway(
      botConfig([tool('lookup', `${service.url}/lookup`, { inputSchema: SCHEMA })]),
      { auditLogPath: file },
    );
    const client = await connectClient(gateway.url);
    const session = await initializeSession(gateway.url);
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
    const records = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      records.map((r) => [r.tool, r.outcome, r.error?.code ?? null]),
      [
        ['lookup', 'ok', null],
        ['lookup', 'refused', 'INVALID_ARGS'],
        ['missing_tool', 'refused', 'UNKNOWN_TOOL'],
        ['lookup', 'error', 'SERVICE_HTTP_STATUS'],
      ],
    );
    assert.deepEqual(Object.keys(records[0]), [
      'ts',
      'gateway',
      'session',
      'principal',
      'auth',
      'client',
      'tool',
      'outcome',
      'error',
      'duration_ms',
    ]);
    assert.deepEqual(
      [records[0].gateway, records[0].principal, records[0].client],
      ['test', 'bot', { name: 'unit-test', version: '1.2.3' }],
    );
    assert.deepEqual(records[1].client, { name: 'raw', version: '0.1' });
    assert.equal(records[3].error.message, 'Service error: HTTP 503');
    assert.equal(typeof records[0].duration_ms, 'number');
  });

  it('writes the records of a running gateway within moments, without waiting for close()', async () => {
    const file = join(tempDir('gw-audit-'), 'audit.jsonl');
    const gateway = await startSilentGateway(
      botConfig([tool('lookup', `${service.url}/lookup`, { inputSchema: SCHEMA })]),
      { auditLogPath: file },
    );
    try {
      const session = await initializeSession(gateway.url);
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
    const file = join(tempDir('gw-audit-'), 'a', 'b', 'audit.jsonl');
    const gateway = await startSilentGateway(botConfig([]), { auditLogPath: file });
    await gateway.close();
    assert.ok(existsSync(file));
  });

  it('fails at start with one line, not a hang, when the directory cannot be created under /proc', async function () {
    // Node's recursive mkdir never returns for a path under /proc (Linux); the gateway must fail instead.
    if (!existsSync('/proc/self')) this.skip();
    const path = '/proc/cdktf-mcp-gateway-test/audit.jsonl';
    await assert.rejects(startSilentGateway(botConfig([]), { auditLogPath: path }), (err: Error) => {
      assert.equal(
        err.message,
        `gateway.audit_log: cannot open ${path}: ENOENT (pass --audit-log FILE or set audit_log: false)`,
      );
      return true;
    });
  });

  it('fails at start with one line when the audit file cannot be opened', async () => {
    // A directory path that goes through a regular file cannot be created.
    const notADir = join(tempDir('gw-audit-'), 'file');
    writeFileSync(notADir, '');
    const path = join(notADir, 'audit.jsonl');
    await assert.rejects(startSilentGateway(botConfig([]), { auditLogPath: path }), (err: Error) => {
      assert.equal(err.name, 'ConfigError');
      // The errno code (EEXIST or ENOTDIR) depends on the platform.
      assert.equal(
        err.message.replace(/: E[A-Z]+ /, ': ECODE '),
        `gateway.audit_log: cannot open ${path}: ECODE (pass --audit-log FILE or set audit_log: false)`,
      );
      return true;
    });
  });
});

describe('an audit path that is a pipe', () => {
  /** A FIFO in a fresh directory (`mkfifo`). */
  function fifo(): string {
    const path = join(tempDir('gw-audit-fifo-'), 'audit.jsonl');
    assert.equal(spawnSync('mkfifo', [path]).status, 0, 'mkfifo');
    return path;
  }

  it('is refused at start at once when nothing reads it: every write would wait', async () => {
    const path = fifo();
    await assert.rejects(startSilentGateway(botConfig([]), { auditLogPath: path }), (err: Error) => {
      assert.equal(
        err.message,
        `gateway.audit_log: cannot open ${path}: a pipe or socket with nothing reading it, which would hold every ` +
          'write (pass --audit-log FILE or set audit_log: false)',
      );
      return true;
    });
  });

  it("takes the records while something reads it (a container's stdout)", async () => {
    const path = fifo();
    const reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const sink = openAuditLog(path, silentLogger);
      sink.write({ ...record(1), tool: 'lookup' });
      await sink.close();
      const read = Buffer.alloc(4096);
      const text = read.subarray(0, readSync(reader, read)).toString();
      assert.equal((JSON.parse(text) as GatewayAuditRecord).tool, 'lookup');
    } finally {
      closeSync(reader);
    }
  });

  /** A logger that keeps `level msg` and the fields of each line. */
  function recordingLogger(): { log: Logger; lines: { line: string; fields: Record<string, unknown> }[] } {
    const lines: { line: string; fields: Record<string, unknown> }[] = [];
    return { log: (level, msg, fields) => lines.push({ line: `${level} ${msg}`, fields: { ...fields } }), lines };
  }

  /**
   * Runs `test` with an audit sink on a FIFO whose reader is open and never reads (a log collector that hangs),
   * closing the reader after it.
   */
  async function withStalledPipe(
    test: (
      pipe: { path: string; reader: number; sink: AuditSink } & ReturnType<typeof recordingLogger>,
    ) => Promise<void>,
  ): Promise<void> {
    const path = fifo();
    const reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const { log, lines } = recordingLogger();
      await test({ path, reader, sink: openAuditLog(path, log), log, lines });
    } finally {
      closeSync(reader);
    }
  }

  /** Reads what the pipe holds now, without waiting. */
  function readAvailable(fd: number): string {
    const chunks: Buffer[] = [];
    const buffer = Buffer.alloc(1 << 16);
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buffer);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') break;
        throw err;
      }
      if (n === 0) break;
      chunks.push(Buffer.from(buffer.subarray(0, n)));
    }
    return Buffer.concat(chunks).toString();
  }

  it('lets go of a pipe whose reader stopped at close, within 5 s, and logs what it did not take', async function () {
    this.timeout(15_000);
    await withStalledPipe(async ({ path, sink, lines }) => {
      // well past the pipe's 64 KiB
      for (let i = 0; i < 2_000; i++) sink.write(record(i));
      const started = Date.now();
      await sink.close();
      assert.ok(Date.now() - started < 10_000);
      const lost = lines.find((l) => l.line.startsWith('error audit records not written'));
      assert.ok(lost, JSON.stringify(lines));
      assert.equal(lost.fields.path, path);
      assert.ok((lost.fields.bytes as number) > 0);
    });
  });

  it('lets go of a stalled pipe a reload replaced, and says so', async function () {
    this.timeout(15_000);
    await withStalledPipe(async ({ sink, lines }) => {
      for (let i = 0; i < 2_000; i++) sink.write(record(i));
      await sink.close(noAudit);
      assert.ok(
        lines.some(
          (l) =>
            l.line === 'error audit records not written: the audit file did not take them before a reload replaced it',
        ),
        JSON.stringify(lines),
      );
    });
  });

  it('drops records past 16 MiB waiting for a stalled pipe, counts them, and says when it takes writes again', async function () {
    this.timeout(40_000);
    await withStalledPipe(async ({ reader, sink, lines }) => {
      const written = 100_000; // about 40 MiB of records
      for (let i = 0; i < written; i++) sink.write(record(i));
      assert.deepEqual(
        lines.map((l) => l.line),
        ['error audit records dropped: the audit file is not taking writes'],
      );
      assert.ok((lines[0].fields.waiting_bytes as number) >= 16 * 1024 * 1024);
      // the reader resumes: it reads until the pipe stays empty, so the sink has nothing left waiting
      let text = '';
      let quiet = 0;
      await eventually(
        () => {
          const got = readAvailable(reader);
          text += got;
          quiet = got === '' && text.endsWith('\n') ? quiet + 1 : 0;
          return quiet >= 5;
        },
        { what: 'the kept records read', timeoutMs: 30_000, intervalMs: 1 },
      );
      // the next record is taken again; the streak's count was logged once writes were taken again
      sink.write(record(written));
      const closing = sink.close();
      await closing;
      text += readAvailable(reader);
      const kept = splitRecords(text) as GatewayAuditRecord[];
      const dropped = lines.find((l) => l.line === 'warn audit file taking writes again')!.fields.dropped as number;
      assert.ok(dropped > 0);
      assert.equal(kept.length + dropped, written + 1);
      // what was kept is whole records, each once, in the order written, the last one among them
      assert.deepEqual(kept.at(-1), record(written));
      const order = kept.map((r) => Number(r.client.version!.slice(2)));
      assert.ok(
        order.every((n, i) => i === 0 || n > order[i - 1]),
        'records in the order written',
      );
    });
  });

  it("counts and logs the records dropped once the pipe's reader is gone", async () => {
    const path = fifo();
    const reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const { log, lines } = recordingLogger();
    const sink = openAuditLog(path, log);
    sink.write(record(0));
    let text = '';
    await eventually(() => (text += readAvailable(reader)).endsWith('\n'), { what: 'the first record read' });
    closeSync(reader);
    // the write that finds the reader gone fails the stream (EPIPE); what comes after is dropped and counted
    sink.write(record(1));
    await eventually(() => lines.some((l) => l.line === 'error audit records dropped: the audit file failed'), {
      what: 'the failure logged',
    });
    for (let i = 2; i < 7; i++) sink.write(record(i));
    await sink.close();
    assert.deepEqual(splitRecords(text), [record(0)]);
    const failure = lines.find((l) => l.line === 'error audit records dropped: the audit file failed')!;
    assert.deepEqual(failure.fields, { path, error: 'EPIPE' });
    const counted = lines.find((l) => l.line === 'error audit records dropped before shutdown');
    assert.deepEqual(counted?.fields, { path, dropped: 5 });
  });

  it('drops a late record rather than block when the file became a pipe nothing reads', async () => {
    const dir = tempDir('gw-audit-fifo-');
    const path = join(dir, 'audit.jsonl');
    const sink = openAuditLog(path, silentLogger);
    await sink.close();
    renameSync(path, `${path}.1`);
    assert.equal(spawnSync('mkfifo', [path]).status, 0, 'mkfifo');
    // a call that outlived the shutdown drain: written at once, or dropped, never waited for
    sink.write({ ...record(2), tool: 'late' });
    assert.equal(readFileSync(`${path}.1`, 'utf8'), '');
  });
});

describe('the audit record of each outcome, and of names a caller chose', function () {
  this.timeout(20_000);
  const bot = makeToken('audit-bot');
  let backend: TestBackend;
  let gw: InProcessGateway;

  const tools = (url: string) => [
    tool('search', `${url}/search?v=1`, { inputSchema: objectSchema({ q: { type: 'string' } }, ['q']) }),
    tool('failing', `${url}/status/500`, { inputSchema: objectSchema({ note: { type: 'string' } }) }),
  ];

  before(async () => {
    backend = await startBackend();
    gw = await startInProcessGateway(gatewayConfig({ name: 'review-gw', tokens: [bot], tools: tools(backend.url) }));
  });

  after(async () => {
    await gw?.close();
    await backend?.close();
  });

  describe('names a caller chose', () => {
    it('an unknown tool name is cut at 64 characters in the audit record, as in the message', async () => {
      const own = await openSession(gw.url, { token: bot.token });
      const name = 'n'.repeat(100_000);
      const res = await own.callTool(name, {});
      assert.equal(res.message?.error?.message, `Unknown tool: \`${'n'.repeat(64)}…\``);
      const records = await waitForAuditRecords(gw.auditLogPath, 1, {
        where: (r) => r.session === sessionDigest(own.sessionId),
      });
      assert.equal(records.length, 1);
      const tool = records[0].tool!;
      // A caller can otherwise write 1 MiB lines into the audit log and stdout pipelines with one request.
      assert.ok([...tool].length <= 65, `audit tool field is ${tool.length} characters long`);
    });
  });

  describe('the audit record', () => {
    let sdk: SdkConnection;
    const canary = 'canary-audit-7f3e';
    let records: AuditRecord[];

    before(async () => {
      sdk = await connectSdkClient(gw.url, bot.token, { name: 'review-sdk', version: '9.9.9' });
      await sdk.client.callTool({ name: 'search', arguments: { q: canary } });
      await sdk.client.callTool({ name: 'failing', arguments: { note: canary } });
      await sdk.client.callTool({ name: 'search', arguments: { q: canary, extra: canary } }).catch(() => undefined);
      // The audit log is written after the answers: select this client's records by its session.
      records = await waitForAuditRecords(gw.auditLogPath, 3, {
        where: (r) => r.session === sessionDigest(sdk.transport.sessionId!),
      });
    });
    after(async () => {
      await sdk?.close();
    });

    it('has exactly the documented fields, with the session, principal and client of the caller', () => {
      assert.equal(records.length, 3);
      for (const r of records) {
        assert.deepEqual(Object.keys(r).sort(), [...AUDIT_RECORD_KEYS].sort());
        assert.equal(r.gateway, 'review-gw');
        assert.equal(r.session, sessionDigest(sdk.transport.sessionId!));
        assert.equal(r.principal, 'audit-bot');
        assert.equal(r.auth, 'token');
        assert.deepEqual(r.client, { name: 'review-sdk', version: '9.9.9' });
        assert.equal(new Date(r.ts as string).toISOString(), r.ts);
        assert.ok(typeof r.duration_ms === 'number' && r.duration_ms >= 0);
      }
    });

    it('records ok, error and refused outcomes with their error {code, message}', () => {
      assert.deepEqual(
        records.map((r) => [r.tool, r.outcome, r.error]),
        [
          ['search', 'ok', null],
          ['failing', 'error', { code: 'SERVICE_HTTP_STATUS', message: 'Service error: HTTP 500' }],
          ['search', 'refused', { code: 'INVALID_ARGS', message: 'Unknown parameter: `extra`' }],
        ],
      );
    });

    it('holds no argument value, and neither do the log records', () => {
      assert.ok(!readAuditText(gw.auditLogPath).includes(canary), 'an argument value is in the audit log');
      assert.ok(!JSON.stringify(gw.logs).includes(canary), 'an argument value is in the logs');
    });
  });
});

/** What a reader that splits on every line terminator Unicode or JavaScript knows would see. */
const ANY_LINE_BREAK = /\r\n|[\n\r\u2028\u2029\u0085]/;
const HOSTILE = 'agent\u2028{"forged":1}\u2029x\u0085y';

function record(i: number): GatewayAuditRecord {
  return {
    ts: new Date(0).toISOString(),
    gateway: 'g',
    session: null,
    principal: 'bot',
    auth: 'token',
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

describe('audit log and JSON logs: one record per line for any line-splitting reader (docs/gateway.md)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-gw-audit-lines-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('escapes U+2028, U+2029 and U+0085 in audit records, which still read back exactly', async () => {
    const file = join(dir, 'audit.jsonl');
    const audit = openAuditLog(file, silentLogger);
    for (let i = 0; i < 3; i++) audit.write(record(i));
    await audit.close();
    const records = splitRecords(readFileSync(file, 'utf8'));
    assert.deepEqual(records, [record(0), record(1), record(2)]);
  });

  it('escapes them in a record written after close (the synchronous path)', async () => {
    const file = join(dir, 'audit.jsonl');
    const audit = openAuditLog(file, silentLogger);
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
