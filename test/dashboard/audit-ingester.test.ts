import * as assert from 'node:assert/strict';
import {
  appendFileSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  truncateSync,
  writeFileSync,
  writeSync,
  closeSync,
  constants,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { silentLogger } from '../../src/gateway';
import { AuditIngester, AuditStore, summarize, DEFAULT_FLAG_RULE } from '../../src/dashboard';
import { MAX_LINE_BYTES } from '../../src/dashboard/file-follower';
import { auditRecord, lines, refusal } from './audit-fixtures';

const NOW = Date.parse('2026-05-04T12:00:30.000Z');

describe('AuditIngester', () => {
  let dir: string;
  let store: AuditStore;
  let ingester: AuditIngester;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dash-ingest-'));
    store = new AuditStore({ now: () => NOW });
    ingester = new AuditIngester({ dirs: [dir], store, logger: silentLogger });
  });
  afterEach(() => {
    ingester.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const calls = (): number => summarize(store, '7d', DEFAULT_FLAG_RULE).totals.calls;
  const file = (name: string): string => path.join(dir, name);

  it('reads every *.jsonl file of the directory and ignores other names', async () => {
    writeFileSync(file('audit-0.jsonl'), lines([auditRecord({ tsMs: NOW }), auditRecord({ tsMs: NOW })]));
    writeFileSync(file('audit-1.jsonl'), lines([auditRecord({ tsMs: NOW })]));
    writeFileSync(file('audit-0.jsonl.1'), lines([auditRecord({ tsMs: NOW })]));
    writeFileSync(file('notes.txt'), 'not audit\n');
    await ingester.scan();
    assert.equal(calls(), 3);
    assert.equal(ingester.stats.files, 2);
    assert.equal(ingester.stats.malformed, 0);
  });

  it('reads only the appended bytes on the next scan', async () => {
    writeFileSync(file('audit-0.jsonl'), lines([auditRecord({ tsMs: NOW })]));
    await ingester.scan();
    appendFileSync(file('audit-0.jsonl'), lines([auditRecord({ tsMs: NOW }), auditRecord({ tsMs: NOW })]));
    await ingester.scan();
    await ingester.scan();
    assert.equal(calls(), 3);
  });

  it('keeps a half-written last line until its newline arrives, even when cut inside a UTF-8 character', async () => {
    const line = `${JSON.stringify(refusal('Ungültiger Wert für „Priorität“ 🚫', { tsMs: NOW }))}\n`;
    const bytes = Buffer.from(line, 'utf8');
    const cut = bytes.indexOf(Buffer.from('🚫', 'utf8')) + 2; // in the middle of the 4-byte emoji
    writeFileSync(file('audit-0.jsonl'), bytes.subarray(0, cut));
    await ingester.scan();
    assert.equal(calls(), 0);
    assert.equal(ingester.stats.malformed, 0);
    appendFileSync(file('audit-0.jsonl'), bytes.subarray(cut));
    await ingester.scan();
    assert.equal(calls(), 1);
    assert.equal(ingester.stats.malformed, 0);
    const [tool] = summarize(store, '1h', DEFAULT_FLAG_RULE).agents[0].tools;
    assert.deepEqual(tool.top_messages, [{ message: 'Ungültiger Wert für „Priorität“ 🚫', count: 1 }]);
  });

  it('skips and counts malformed lines, including records with fields of the wrong type', async () => {
    writeFileSync(
      file('audit-0.jsonl'),
      [
        JSON.stringify(auditRecord({ tsMs: NOW })),
        'garbage',
        '{"ts":1}',
        JSON.stringify({ ...auditRecord({ tsMs: NOW }), outcome: 'refused', error: null }),
        JSON.stringify({ ...auditRecord({ tsMs: NOW }), principal: 42 }),
        '',
        JSON.stringify(auditRecord({ tsMs: NOW })),
        '',
      ].join('\n'),
    );
    await ingester.scan();
    assert.equal(calls(), 2);
    assert.equal(ingester.stats.malformed, 4);
  });

  it('drops a line longer than the limit without buffering it, and counts it once', async () => {
    const fd = openSync(file('audit-0.jsonl'), 'w');
    writeSync(fd, '{"ts":"');
    const block = Buffer.alloc(1024 * 1024, 'a');
    for (let i = 0; i < 6; i++) writeSync(fd, block); // 6 MiB without a newline, over several read chunks
    closeSync(fd);
    await ingester.scan();
    appendFileSync(file('audit-0.jsonl'), `tail"}\n${lines([auditRecord({ tsMs: NOW })])}`);
    await ingester.scan();
    assert.ok(6 * 1024 * 1024 > MAX_LINE_BYTES);
    assert.equal(calls(), 1);
    assert.equal(ingester.stats.malformed, 1);
  });

  it('drops a line longer than the limit that arrives whole inside one read', async () => {
    const big = refusal('m'.repeat(2 * MAX_LINE_BYTES), { tsMs: NOW });
    writeFileSync(file('audit-0.jsonl'), lines([big, auditRecord({ tsMs: NOW })]));
    await ingester.scan();
    assert.equal(calls(), 1);
    assert.equal(ingester.stats.malformed, 1);
  });

  it('survives rotation: a new file at the path is read from its start', async () => {
    writeFileSync(file('audit-0.jsonl'), lines([auditRecord({ tsMs: NOW }), auditRecord({ tsMs: NOW })]));
    await ingester.scan();
    renameSync(file('audit-0.jsonl'), file('audit-0.jsonl.1'));
    // the new file is shorter than the old offset would allow, and longer: both must be read whole
    writeFileSync(
      file('audit-0.jsonl'),
      lines([refusal('m', { tsMs: NOW }), refusal('m', { tsMs: NOW }), refusal('m', { tsMs: NOW })]),
    );
    await ingester.scan();
    assert.equal(calls(), 5);
    assert.equal(ingester.stats.restarts, 1);
    assert.equal(summarize(store, '1h', DEFAULT_FLAG_RULE).totals.refusals, 3);
  });

  it('survives rotation by delete and re-create between two scans', async () => {
    writeFileSync(file('audit-0.jsonl'), lines([auditRecord({ tsMs: NOW })]));
    await ingester.scan();
    rmSync(file('audit-0.jsonl'));
    await ingester.scan();
    assert.equal(ingester.stats.files, 0);
    writeFileSync(file('audit-0.jsonl'), lines([auditRecord({ tsMs: NOW })]));
    await ingester.scan();
    assert.equal(calls(), 2);
  });

  it('is not held by a FIFO swapped in at the path between its stat and its open', async () => {
    // Whoever writes the directory can win this race by swapping a file and a FIFO in a loop: a blocking open of
    // a FIFO with no writer never returns, and the ingester would read no file again.
    writeFileSync(file('audit-0.jsonl'), lines([auditRecord({ tsMs: NOW })]));
    const fifo = file('audit-0.fifo');
    execFileSync('mkfifo', [fifo]);
    const fsPromises = require('node:fs/promises') as typeof import('node:fs/promises');
    const realStat = fsPromises.stat;
    fsPromises.stat = (async (...args: Parameters<typeof realStat>) => {
      const info = await realStat(...args);
      if (String(args[0]).endsWith('audit-0.jsonl')) renameSync(fifo, file('audit-0.jsonl'));
      return info;
    }) as typeof realStat;
    let timer: NodeJS.Timeout | undefined;
    try {
      const scanned = await Promise.race([
        ingester.scan().then(() => 'scanned'),
        new Promise((resolve) => (timer = setTimeout(() => resolve('held'), 2000))),
      ]);
      assert.equal(scanned, 'scanned');
    } finally {
      clearTimeout(timer);
      fsPromises.stat = realStat;
      // release an open that waits for a writer, so the thread it holds comes back
      try {
        closeSync(openSync(file('audit-0.jsonl'), constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // nothing waits on it
      }
    }
    writeFileSync(file('audit-1.jsonl'), lines([auditRecord({ tsMs: NOW })]));
    await ingester.scan();
    assert.equal(calls(), 1);
  });

  it('survives truncation: a file shorter than the offset is read again from byte 0', async () => {
    writeFileSync(file('audit-0.jsonl'), lines([auditRecord({ tsMs: NOW }), auditRecord({ tsMs: NOW })]));
    await ingester.scan();
    truncateSync(file('audit-0.jsonl'), 0);
    appendFileSync(file('audit-0.jsonl'), lines([refusal('after truncation', { tsMs: NOW })]));
    await ingester.scan();
    assert.equal(calls(), 3);
    assert.equal(ingester.stats.restarts, 1);
    assert.equal(ingester.stats.malformed, 0);
  });

  it("adds up two replicas' files of one gateway, and two directories", async () => {
    const other = mkdtempSync(path.join(tmpdir(), 'dash-ingest-b-'));
    try {
      ingester.close();
      ingester = new AuditIngester({ dirs: [dir, other], store, logger: silentLogger });
      const bot = (n: number, tool: string) =>
        Array.from({ length: n }, () => refusal(`bad ${tool}`, { tsMs: NOW, tool }));
      writeFileSync(file('audit-0.jsonl'), lines(bot(6, 'create_ticket')));
      writeFileSync(file('audit-1.jsonl'), lines(bot(5, 'create_ticket')));
      writeFileSync(path.join(other, 'audit-billing.jsonl'), lines([auditRecord({ tsMs: NOW, gateway: 'billing' })]));
      await ingester.scan();
      const summary = summarize(store, '1h', DEFAULT_FLAG_RULE);
      const bot1 = summary.agents.find((a) => a.principal === 'support-bot');
      assert.ok(bot1);
      assert.equal(bot1.refusals, 11);
      assert.equal(bot1.calls, 12);
      assert.equal(bot1.flagged, true);
      assert.deepEqual(
        bot1.tools.map((t) => [t.gateway, t.tool, t.calls]),
        [
          ['support', 'create_ticket', 11],
          ['billing', 'get_customer', 1],
        ],
      );
      assert.equal(ingester.stats.files, 3);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('reports a missing directory and reads it once it appears', async () => {
    const later = path.join(dir, 'later');
    ingester.close();
    ingester = new AuditIngester({ dirs: [later], store, logger: silentLogger });
    await ingester.scan();
    assert.deepEqual(ingester.stats.unreadableDirs, [later]);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(later);
    writeFileSync(path.join(later, 'audit.jsonl'), lines([auditRecord({ tsMs: NOW })]));
    await ingester.scan();
    assert.deepEqual(ingester.stats.unreadableDirs, []);
    assert.equal(calls(), 1);
  });

  it('follows appends on its own (watch or poll) once started', async () => {
    ingester.close();
    ingester = new AuditIngester({ dirs: [dir], store, logger: silentLogger, pollIntervalMs: 100 });
    await ingester.start();
    appendFileSync(file('audit-0.jsonl'), lines([refusal('late', { tsMs: NOW })]));
    const deadline = Date.now() + 5000;
    while (calls() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(calls(), 1);
  });

  it('counts 1,000,000 lines exactly (two files, a malformed line every 100,000)', async function () {
    this.timeout(120_000);
    const perFile = 500_000;
    let expectedRefusals = 0;
    let malformed = 0;
    for (const [i, name] of ['audit-0.jsonl', 'audit-1.jsonl'].entries()) {
      const fd = openSync(file(name), 'w');
      let batch = '';
      for (let n = 0; n < perFile; n++) {
        if (n % 100_000 === 99_999) {
          batch += '{"not":"a record"}\n';
          malformed++;
          continue;
        }
        const refused = (n + i) % 3 === 0;
        if (refused) expectedRefusals++;
        const tsMs = NOW - (n % 7) * 24 * 60 * 60_000;
        batch += `${JSON.stringify(
          refused
            ? refusal(`message ${n % 4}`, { tsMs, tool: `tool_${n % 5}` })
            : auditRecord({ tsMs, tool: `tool_${n % 5}` }),
        )}\n`;
        if (batch.length > 1 << 20) {
          writeSync(fd, batch);
          batch = '';
        }
      }
      writeSync(fd, batch);
      closeSync(fd);
    }
    await ingester.scan();
    const summary = summarize(store, '7d', DEFAULT_FLAG_RULE);
    assert.equal(ingester.stats.malformed, malformed);
    assert.equal(summary.totals.calls + malformed, 1_000_000);
    assert.equal(summary.totals.refusals, expectedRefusals);
    assert.equal(store.stats.records, 1_000_000 - malformed);
  });
});
