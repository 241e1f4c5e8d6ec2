import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { MAX_MESSAGE_CHARS, MAX_NAME_CHARS, parseAuditJson, parseAuditLine } from '../../src/dashboard';
import { MAX_PRINCIPAL_CHARS } from '../../src/dashboard/gateway-shared';
import { auditRecord, refusal } from './audit-fixtures';

const TS = Date.parse('2026-05-04T10:20:30.000Z');

describe('parseAuditLine', () => {
  it('reads a refused call: names, outcome, message and time', () => {
    const record = parseAuditLine(JSON.stringify(refusal('missing customer_id', { tsMs: TS })));
    assert.deepEqual(record, {
      tsMs: TS,
      gateway: 'support',
      principal: 'support-bot',
      auth: 'token',
      clientName: 'agent-sdk',
      clientVersion: '1.2.0',
      tool: 'get_customer',
      outcome: 'refused',
      message: 'missing customer_id',
    });
  });

  it('reads a null principal and a null client name (auth: none, no clientInfo)', () => {
    const record = parseAuditLine(
      JSON.stringify(auditRecord({ principal: null, client: { name: null, version: null } })),
    );
    assert.equal(record?.principal, null);
    assert.equal(record?.auth, null);
    assert.equal(record?.clientName, null);
    assert.equal(record?.message, null);
  });

  const malformed: Record<string, string> = {
    'not JSON': 'garbage',
    'a half line': '{"ts":"2026-05-04T10:20:30.000Z","gateway":"sup',
    'an array': '[1,2]',
    'a number': '42',
    null: 'null',
    'a numeric ts': JSON.stringify({ ...auditRecord(), ts: 1 }),
    'an unparsable ts': JSON.stringify({ ...auditRecord(), ts: 'yesterday' }),
    'a numeric gateway': JSON.stringify({ ...auditRecord(), gateway: 7 }),
    'an object principal': JSON.stringify({ ...auditRecord(), principal: { id: 'x' } }),
    'a missing client': JSON.stringify({ ...auditRecord(), client: undefined }),
    'a numeric client name': JSON.stringify({ ...auditRecord(), client: { name: 1, version: null } }),
    'an unknown outcome': JSON.stringify({ ...auditRecord(), outcome: 'maybe' }),
    'a refusal without error': JSON.stringify({ ...auditRecord(), outcome: 'refused', error: null }),
    'an error without message': JSON.stringify({ ...auditRecord(), outcome: 'refused', error: { code: 'x' } }),
    'a string error': JSON.stringify({ ...auditRecord(), outcome: 'error', error: 'boom' }),
    'a string duration': JSON.stringify({ ...auditRecord(), duration_ms: '12' }),
    'a missing tool': JSON.stringify({ ...auditRecord(), tool: undefined }),
    'an unknown auth': JSON.stringify({ ...auditRecord(), auth: 'admin' }),
    'a numeric auth': JSON.stringify({ ...auditRecord(), auth: 1 }),
    'a __proto__ tool':
      '{"ts":"2026-05-04T10:20:30.000Z","gateway":"g","session":null,"principal":null,' +
      '"client":{"name":null,"version":null},"__proto__":{"tool":"x"},"outcome":"ok","error":null,"duration_ms":1}',
  };
  for (const [what, line] of Object.entries(malformed)) {
    it(`rejects ${what}`, () => {
      assert.equal(parseAuditLine(line), undefined);
    });
  }

  it('reads the principal kind: oauth and token apart, token for a line written before the kind was', () => {
    assert.equal(parseAuditLine(JSON.stringify(auditRecord({ auth: 'oauth' })))?.auth, 'oauth');
    assert.equal(parseAuditLine(JSON.stringify(auditRecord({ auth: 'token' })))?.auth, 'token');
    const { auth: _, ...older } = auditRecord();
    assert.equal(parseAuditLine(JSON.stringify(older))?.auth, 'token');
    assert.equal(parseAuditLine(JSON.stringify(auditRecord({ principal: null, auth: null })))?.auth, null);
  });

  it('cuts a 1 MiB message and a 1 MiB tool name, so one record cannot hold much memory', () => {
    const big = 'x'.repeat(1 << 20);
    const record = parseAuditLine(JSON.stringify(refusal(big, { tool: big })));
    assert.equal(record?.message?.length, MAX_MESSAGE_CHARS);
    assert.ok(record?.message?.endsWith('…'));
    assert.equal(record?.tool.length, MAX_NAME_CHARS);
  });

  it('keeps a principal as long as the gateway accepts, so two long OAuth subjects stay two agents', () => {
    const subject = (last: string) => `${'s'.repeat(MAX_PRINCIPAL_CHARS - 1)}${last}`;
    const read = (last: string) => parseAuditLine(JSON.stringify(refusal('m', { principal: subject(last) })));
    assert.equal(read('a')?.principal, subject('a'));
    assert.notEqual(read('a')?.principal, read('b')?.principal);
    assert.equal(read('ab')?.principal, `${'s'.repeat(MAX_PRINCIPAL_CHARS - 1)}…`);
  });

  it('cuts a name or message before a surrogate pair rather than between its halves', () => {
    // the emoji straddles the cut of a name, and of a message at its own limit
    const client = `${'a'.repeat(MAX_NAME_CHARS - 2)}😀tail`;
    const message = `${'m'.repeat(MAX_MESSAGE_CHARS - 2)}😀tail`;
    const record = parseAuditLine(JSON.stringify(refusal(message, { client: { name: client, version: null } })));
    assert.equal(record?.clientName, `${'a'.repeat(MAX_NAME_CHARS - 2)}…`);
    assert.equal(record?.message, `${'m'.repeat(MAX_MESSAGE_CHARS - 2)}…`);
  });

  it('reads a lone surrogate written as an escape as U+FFFD, as a UTF-8 file would hold it', () => {
    const record = parseAuditLine(
      JSON.stringify(
        refusal('bad \udc00 message', { principal: 'sub-\ud83d', client: { name: '\ud800x', version: null } }),
      ),
    );
    assert.equal(record?.principal, 'sub-\ufffd');
    assert.equal(record?.message, 'bad \ufffd message');
    assert.equal(record?.clientName, '\ufffdx');
    assert.equal(parseAuditLine(JSON.stringify(refusal('m', { principal: 'ok 😀' })))?.principal, 'ok 😀');
  });

  it('keeps names such as __proto__, constructor and toString as plain text', () => {
    for (const name of ['__proto__', 'constructor', 'toString']) {
      const record = parseAuditLine(JSON.stringify(refusal(name, { tool: name, principal: name, gateway: name })));
      assert.equal(record?.tool, name);
      assert.equal(record?.principal, name);
      assert.equal(record?.message, name);
    }
  });
});

describe('the fast scanner of gateway-written lines', () => {
  const text = fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.string({ unit: 'grapheme', maxLength: 10 }),
    fc.constantFrom('__proto__', 'constructor', 'a"b', 'a\\b', 'line\nbreak', '\u0000', '"', ''),
  );
  const isoLike = fc.oneof(
    fc.date({ min: new Date(-1e14), max: new Date(1e14), noInvalidDate: true }).map((d) => d.toISOString()),
    fc.constantFrom(
      '2026-02-29T10:00:00.000Z',
      '2024-02-29T10:00:00.000Z',
      '2026-13-01T00:00:00.000Z',
      '0050-01-01T00:00:00.000Z',
      '2026-05-04T24:00:00.000Z',
      '2026-05-04T10:20:30Z',
      'not a time',
      '',
    ),
  );

  it('reads every line exactly as JSON.parse plus the field checks do', () => {
    fc.assert(
      fc.property(
        isoLike,
        text,
        fc.option(text),
        fc.option(text),
        fc.option(text),
        text,
        fc.constantFrom('ok', 'error', 'refused', 'maybe'),
        fc.option(fc.record({ code: text, message: text })),
        fc.oneof(fc.double(), fc.integer(), fc.constant(1e308)),
        fc.constantFrom('token', 'oauth', null, undefined, 'admin'),
        (ts, gateway, principal, name, version, tool, outcome, error, duration, auth) => {
          const line = JSON.stringify({
            ts,
            gateway,
            session: 's',
            principal,
            auth,
            client: { name, version },
            tool,
            outcome,
            error,
            duration_ms: duration,
          });
          assert.deepEqual(parseAuditLine(line), parseAuditJson(line));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('leaves lines in another form to JSON.parse and still reads them', () => {
    const record = refusal('m', { tsMs: TS });
    const spaced = JSON.stringify(record, null, 1).replace(/\n/g, '');
    const { tool, ...rest } = record;
    const reordered = JSON.stringify({ tool, ...rest });
    for (const line of [spaced, reordered]) assert.deepEqual(parseAuditLine(line), parseAuditJson(line));
    assert.equal(parseAuditLine(spaced)?.message, 'm');
  });

  it('rejects a duplicated closing brace or trailing text', () => {
    const line = JSON.stringify(auditRecord({ tsMs: TS }));
    assert.equal(parseAuditLine(`${line}}`), undefined);
    assert.equal(parseAuditLine(`${line} x`), undefined);
  });
});
