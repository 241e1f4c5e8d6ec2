import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ToolConfig } from '../../src/config';
import { compileResponseControls, responseMessages, type ResponseControlsConfig } from '../../src/response';
import { generateOutputSchema } from '../../src/schema';
import { Manifest, Service } from '../../constructs';
import { configOf, newStack, synth } from '../constructs/synth';

const OUTPUT = generateOutputSchema({
  id: { type: 'string', required: true },
  email: { type: 'string', format: 'email' },
  orders: {
    type: 'array',
    items: { type: 'object', properties: { id: { type: 'string', required: true }, total: { type: 'number' } } },
  },
});

function shaper(config: ResponseControlsConfig, validate = true) {
  const compiled = compileResponseControls(config, validate);
  assert.ok('shaper' in compiled && compiled.shaper !== undefined, JSON.stringify(compiled));
  return compiled.shaper;
}

const shape = (config: ResponseControlsConfig, body: unknown, limit = 1 << 20, validate = true) =>
  shaper(config, validate).shape(typeof body === 'string' ? body : JSON.stringify(body), 'application/json', limit);

describe('response/shape-response', () => {
  it('has no controls to apply without output and response', () => {
    assert.deepEqual(compileResponseControls({}, true), { shaper: undefined });
    assert.deepEqual(compileResponseControls({ output_schema: OUTPUT }, false), { shaper: undefined });
  });

  it('forwards a conforming response as it came, with content and structuredContent', () => {
    const body = '{"id":"c1","orders":[{"id":"o1","total":2}]}';
    assert.deepEqual(shape({ output_schema: OUTPUT }, body), {
      ok: true,
      resultJson: `{"content":[{"type":"text","text":${JSON.stringify(body)}}],"structuredContent":${body}}`,
      counts: undefined,
    });
  });

  it('forwards what it validated, never the body text: a key sent twice is forwarded once, as validated', () => {
    const body = '{"id":"078-05-1120 undeclared","orders":"not an array","id":"c1","orders":[{"id":"o1","total":2}]}';
    const outcome = shape({ output_schema: OUTPUT }, body);
    assert.ok(outcome.ok, JSON.stringify(outcome));
    const result = JSON.parse(outcome.resultJson);
    const validated = { id: 'c1', orders: [{ id: 'o1', total: 2 }] };
    assert.deepEqual(result.structuredContent, validated);
    assert.equal(result.content[0].text, JSON.stringify(validated));
    assert.ok(!outcome.resultJson.includes('078-05-1120'), outcome.resultJson);
    // a number JSON cannot carry, where nothing declares it, is refused rather than forwarded as null
    const huge = shape({ output_schema: OUTPUT }, '{"id":"c1","extra":1e400}');
    assert.equal(huge.ok, false);
  });

  it('with validation off, redacts a path through arrays, and refuses a value there it cannot redact', () => {
    const config: ResponseControlsConfig = {
      output_schema: OUTPUT,
      response: { fields: 'declared', redact: ['email'] },
    };
    const result = (body: unknown) => {
      const outcome = shape(config, body, 1 << 20, false);
      assert.ok(outcome.ok, JSON.stringify(outcome));
      return JSON.parse(outcome.resultJson).structuredContent;
    };
    assert.deepEqual(result({ id: 'c1', email: ['ada@example.com'] }), { id: 'c1', email: ['[redacted]'] });
    assert.deepEqual(result({ id: 'c1', email: [['ada@example.com', null]] }), {
      id: 'c1',
      email: [['[redacted]', null]],
    });
    assert.deepEqual(result({ id: 'c1', email: null }), { id: 'c1', email: null });
    for (const email of [4111111111111111, true, { 'ada@example.com': 1 }, [{ address: 'ada@example.com' }]]) {
      const outcome = shape(config, { id: 'c1', email }, 1 << 20, false);
      assert.deepEqual(outcome, {
        ok: false,
        code: 'OUTPUT_INVALID',
        message: 'Service returned an invalid response: Invalid type for `email`: expected string',
      });
    }
    // without an output, a path into an array of objects reaches each one
    const open = shaper({ response: { redact: ['customer.email'] } });
    const outcome = open.shape('{"customer":[{"email":"ada@example.com"},{"email":"bob@example.com"}]}', '', 1 << 20);
    assert.ok(outcome.ok);
    assert.deepEqual(JSON.parse(outcome.resultJson).structuredContent, {
      customer: [{ email: '[redacted]' }, { email: '[redacted]' }],
    });
  });

  it('names the response path of a violation, never a value', () => {
    const outcome = shape(
      { output_schema: OUTPUT },
      {
        id: 'c1',
        orders: [
          { id: 'o', total: 1 },
          { id: 'p', total: 'SECRET' },
        ],
      },
    );
    assert.deepEqual(outcome, {
      ok: false,
      code: 'OUTPUT_INVALID',
      message: 'Service returned an invalid response: Invalid type for `orders[1].total`: expected number',
    });
  });

  it('joins several violations as validation does', () => {
    const outcome = shape({ output_schema: OUTPUT }, { email: 'nope', extra: 1 });
    assert.equal(
      !outcome.ok && outcome.message,
      'Service returned an invalid response: Missing required parameter: `id`; Invalid value for `email`: expected format email; Unknown field at `*`',
    );
  });

  it('refuses a body that is not a JSON object when output is declared', () => {
    for (const body of ['[1]', '"x"', '3', 'null', 'not json', '']) {
      const outcome = shaper({ output_schema: OUTPUT }).shape(body, 'application/json', 1 << 20);
      assert.deepEqual(outcome, { ok: false, code: 'OUTPUT_INVALID', message: responseMessages.notAnObject }, body);
    }
    assert.equal(responseMessages.notAnObject, 'Service returned an invalid response: expected a JSON object');
  });

  it('selects before validating: undeclared fields are dropped, not refused', () => {
    const outcome = shape(
      { output_schema: OUTPUT, response: { fields: 'declared' } },
      { id: 'c1', secret: 's', orders: [{ id: 'o', card: '4111' }] },
    );
    assert.deepEqual(outcome.ok && JSON.parse(outcome.resultJson).structuredContent, {
      id: 'c1',
      orders: [{ id: 'o' }],
    });
    assert.deepEqual(outcome.ok && outcome.counts, { fields_dropped: 2, redacted: 0 });
  });

  it('validates before redacting: a redacted email still had to be an email', () => {
    const config = { output_schema: OUTPUT, response: { redact: ['email'] } };
    assert.equal(shape(config, { id: 'c1', email: 'not-an-email' }).ok, false);
    const ok = shape(config, { id: 'c1', email: 'ada@example.com' });
    assert.deepEqual(ok.ok && JSON.parse(ok.resultJson).structuredContent, { id: 'c1', email: '[redacted]' });
  });

  it('with validation off, shapes without checking', () => {
    const outcome = shape(
      { output_schema: OUTPUT, response: { redact: ['email'] } },
      { email: 'x', id: 3 },
      1 << 20,
      false,
    );
    assert.deepEqual(outcome.ok && JSON.parse(outcome.resultJson).structuredContent, { email: '[redacted]', id: 3 });
  });

  it('redacts pattern matches in any string, number and key, in structuredContent and the text alike', () => {
    const config = { response: { redact_patterns: { card: '\\b[0-9]{13,16}\\b' } } };
    const outcome = shape(config, { note: 'card 4111111111111111', n: 4111111111111111, list: ['5500000000000004'] });
    assert.ok(outcome.ok);
    const result = JSON.parse(outcome.resultJson);
    // a number holding a match becomes its text redacted: a string
    assert.deepEqual(result.structuredContent, { note: 'card [redacted]', n: '[redacted]', list: ['[redacted]'] });
    assert.equal(result.content[0].text, JSON.stringify(result.structuredContent));
    assert.deepEqual(outcome.counts, { fields_dropped: 0, redacted: 3 });
  });

  it('searches a long text (past 64 KiB) only where it is not a string value: keys and numbers', () => {
    const config = { response: { redact_patterns: { card: '\\b[0-9]{13,16}\\b' } } };
    const filler = Array.from({ length: 3000 }, (_, i) => ({ id: `o-${i}`, note: `order ${i} of the month` }));
    // a match in a string only: redacted there; the text content is the shaped value, nothing else changes
    const strings = shape(config, { filler, note: 'card 4111111111111111' });
    assert.ok(strings.ok);
    const text = JSON.parse(JSON.parse(strings.resultJson).content[0].text);
    assert.equal(text.note, 'card [redacted]');
    assert.deepEqual(strings.counts, { fields_dropped: 0, redacted: 1 });
    // a match in a number and in a key: redacted in the value, so in both parts of the result alike
    for (const [extra, shaped] of [
      [{ n: 4111111111111111 }, { n: '[redacted]' }],
      [{ '5500000000000004': 'key' }, { '[redacted]': 'key' }],
    ] as const) {
      const outcome = shape(config, { filler, ...extra });
      assert.ok(outcome.ok);
      const result = JSON.parse(outcome.resultJson);
      assert.ok(result.content[0].text.length > 65_536);
      assert.ok(!/4111111111111111|5500000000000004/.test(outcome.resultJson), JSON.stringify(extra));
      assert.deepEqual(result.structuredContent, { filler, ...shaped });
      assert.equal(result.content[0].text, JSON.stringify(result.structuredContent));
      assert.deepEqual(outcome.counts, { fields_dropped: 0, redacted: 1 });
    }
  });

  it('finds a match that the serialized text hides: behind an escape, or anchored to a string', () => {
    const filler = Array.from({ length: 3000 }, (_, i) => ({ id: `o-${i}`, note: `order ${i} of the month` }));
    const redactedNote = (pattern: string, note: string) => {
      const outcome = shape({ response: { redact_patterns: { p: pattern } } }, { filler, note });
      assert.ok(outcome.ok);
      const result = JSON.parse(outcome.resultJson);
      assert.deepEqual(result.structuredContent.filler, filler);
      assert.equal(JSON.parse(result.content[0].text).note, result.structuredContent.note);
      return { note: result.structuredContent.note as string, counts: outcome.counts };
    };
    // "\n4111…" is written \n4111… in JSON: after the "n", a word character, \b no longer holds before the 4
    assert.deepEqual(redactedNote('\\b[0-9]{13,16}\\b', '\n4111111111111111'), {
      note: '\n[redacted]',
      counts: { fields_dropped: 0, redacted: 1 },
    });
    // a quote inside the string is written \" and a pattern may span it
    assert.equal(redactedNote('a"b', 'xa"by').note, 'x[redacted]y');
    // ^ and $ anchor to each string's ends, which the serialized text does not have
    assert.equal(redactedNote('^[0-9]{16}$', '4111111111111111').note, '[redacted]');
    assert.equal(redactedNote('^[0-9]{16}$', 'card 4111111111111111').note, 'card 4111111111111111');
    // a pattern matching nowhere: nothing changes, nothing counted
    assert.deepEqual(redactedNote('\\b[0-9]{13,16}\\b', 'card 4111 1111'), {
      note: 'card 4111 1111',
      counts: { fields_dropped: 0, redacted: 0 },
    });
  });

  it('renames a key as it is, not as JSON writes it: anchored, or behind an escape, in a short or a long body', () => {
    const filler = Array.from({ length: 3000 }, (_, i) => ({ id: `o-${i}`, note: `order ${i} of the month` }));
    const card = '\\b\\d{4}\\s\\d{4}\\s\\d{4}\\s\\d{4}\\b';
    const cases: [pattern: string, key: string][] = [
      ['^\\d{16}$', '4111111111111111'],
      ['^[a-z]+@[a-z]+\\.[a-z]{2,}$', 'ada@example.com'],
      ['^sk_live_[A-Za-z0-9]{24}$', 'sk_live_abcdefghijklmnopqrstuvwx'],
      [card, '4111\t1111\t1111\t1111'],
      [card, '4111\n1111\n1111\n1111'],
      ['a"b', 'xa"by'],
      ['a\\\\b', 'xa\\by'],
    ];
    for (const [pattern, key] of cases) {
      for (const body of [{ byKey: { [key]: { n: 1 } } }, { filler, byKey: { [key]: { n: 1 } } }]) {
        const outcome = shape({ response: { redact_patterns: { p: pattern } } }, body);
        assert.ok(outcome.ok);
        const result = JSON.parse(outcome.resultJson);
        const expected = new RegExp(pattern, 'gu');
        assert.deepEqual(
          Object.keys(result.structuredContent.byKey),
          [key.replace(expected, '[redacted]')],
          `${pattern} on the key ${JSON.stringify(key)}`,
        );
        assert.notEqual(Object.keys(result.structuredContent.byKey)[0], key, `${pattern}: the key was renamed`);
        assert.equal(outcome.counts?.redacted, 1);
        assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
      }
    }
  });

  it('keeps the text content the JSON of the shaped value, at any size, unless a key or a number matches', () => {
    // past 64 KiB, and nothing in it matches the patterns below
    const filler = Array.from({ length: 6000 }, (_, i) => ({ k: `x-${i}` }));
    const cases: [string, Record<string, unknown>, number][] = [
      // matches no string holds: across two strings, inside an escape, in a [redacted] written before
      ['","', { a: 'x', b: 'y' }, 0],
      ['[a-z]{3}', { a: 'ab\ncd' }, 0],
      ['red', { a: 'red' }, 1],
    ];
    for (const [pattern, value, redacted] of cases) {
      for (const body of [value, { ...value, f: filler }]) {
        const outcome = shape({ response: { redact_patterns: { p: pattern } } }, body);
        assert.ok(outcome.ok);
        const result = JSON.parse(outcome.resultJson);
        assert.equal(result.content[0].text, JSON.stringify(result.structuredContent), pattern);
        assert.deepEqual(outcome.counts, { fields_dropped: 0, redacted }, pattern);
      }
    }
  });

  it('redacts a text body and leaves an array body unstructured', () => {
    const s = shaper({ response: { redact_patterns: { mail: '[a-z]+@[a-z]+\\.com' } } });
    assert.deepEqual(s.shape('mail ada@example.com', 'text/plain', 1000), {
      ok: true,
      resultJson: '{"content":[{"type":"text","text":"mail [redacted]"}]}',
      counts: { fields_dropped: 0, redacted: 1 },
    });
    const arr = s.shape('["ada@example.com"]', 'application/json', 1000);
    assert.equal(arr.ok && arr.resultJson, '{"content":[{"type":"text","text":"[\\"[redacted]\\"]"}]}');
  });

  it('measures every byte of the shaped result (text content and structuredContent) against maxBytes', () => {
    const config = { output_schema: OUTPUT, response: { fields: 'declared' as const, max_bytes: 90 } };
    // 60 bytes from the service, 11 after selection: a result of 86 bytes, under the limit.
    const small = shape(config, { id: 'c1', padding: 'x'.repeat(40) });
    assert.ok(small.ok);
    assert.equal(Buffer.byteLength(small.resultJson), 86);
    assert.deepEqual(shape(config, { id: 'x'.repeat(30) }), {
      ok: false,
      code: 'RESPONSE_TOO_LARGE',
      message: 'Service response too large: 142 bytes (limit 90)',
    });
    // No max_bytes: the gateway's limit.
    assert.equal(shape({ output_schema: OUTPUT }, { id: 'abc' }, 5).ok, false);
  });

  it('refuses nesting deeper than 512 levels and numbers JSON cannot carry', () => {
    const config = { response: { redact: ['z'] } };
    const deep = `{"a":${'['.repeat(513)}${']'.repeat(513)}}`;
    assert.deepEqual(shape(config, deep), { ok: false, code: 'OUTPUT_INVALID', message: responseMessages.tooDeep });
    assert.equal(shape(config, `{"a":${'['.repeat(511)}${']'.repeat(511)}}`).ok, true);
    // Brackets inside strings do not count.
    assert.equal(shape(config, { a: '['.repeat(2000) }).ok, true);
    assert.deepEqual(shape(config, '{"a":{"b":[1,1e400]}}'), {
      ok: false,
      code: 'OUTPUT_INVALID',
      message: 'Service returned an invalid response: Invalid value for `*.*[1]`: expected a finite number',
    });
    // An integer of 400 digits overflows without an exponent; escaped quotes do not hide it; in a string it is text.
    for (const body of [`{"a":[${'9'.repeat(400)}]}`, `{"x":"say \\"hi\\"","a":[-${'9'.repeat(309)}.5]}`]) {
      assert.deepEqual(shape(config, body), {
        ok: false,
        code: 'OUTPUT_INVALID',
        message: 'Service returned an invalid response: Invalid value for `*[0]`: expected a finite number',
      });
    }
    assert.equal(shape(config, { a: [1.7e308, -1e-400, 5e-324], b: '9'.repeat(400), c: '1e400' }).ok, true);
    assert.equal(shape(config, '{"a":[1E+308,true,false,1e-999]}').ok, true);
  });

  it('reports an output schema that does not compile', () => {
    assert.deepEqual(
      compileResponseControls({ output_schema: { type: 'object', properties: { a: { type: 'nope' } } } }, true),
      {
        error:
          'output schema: schema is invalid: data/properties/a/type must be equal to one of the allowed values, data/properties/a/type must be array, data/properties/a/type must match a schema in anyOf',
      },
    );
    const compiled = compileResponseControls(
      { output_schema: { type: 'object', properties: { a: { pattern: '(a)\\1' } } } },
      true,
    );
    assert.ok(
      'error' in compiled &&
        compiled.error.startsWith('output schema: pattern "(a)\\\\1" at #/properties/a/pattern uses a backreference'),
      JSON.stringify(compiled),
    );
  });

  it('advertises the declared schema, loosened where redaction may replace a string', () => {
    assert.deepEqual(shaper({ output_schema: OUTPUT }).advertisedSchema, OUTPUT);
    const redacted = shaper({ output_schema: OUTPUT, response: { redact: ['email'] } }).advertisedSchema!;
    assert.deepEqual((redacted.properties as any).email, { type: 'string' });
    assert.deepEqual((OUTPUT.properties as any).email, { type: 'string', format: 'email' });
  });
});

describe('response controls: the worked example of docs/response-controls.md', () => {
  const workedExample = (): ToolConfig =>
    new Service(newStack(), 'get_customer', {
      endpoint: { url: 'http://crm:8080/customers/{customer_id}', method: 'GET' },
      input: { customer_id: { type: 'string', required: true } },
      output: {
        id: { type: 'string', required: true },
        name: { type: 'string', required: true },
        email: { type: 'string', format: 'email' },
        orders: {
          type: 'array',
          items: { type: 'object', properties: { id: { type: 'string', required: true }, total: { type: 'number' } } },
        },
      },
      response: {
        fields: 'declared',
        redact: ['email'],
        redactPatterns: { card: '\\b[0-9]{13,16}\\b' },
        maxBytes: 65536,
      },
    }).toolConfig();

  it('has a YAML twin on the page that synthesizes the same tool', () => {
    const page = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'response-controls.md'), 'utf8');
    const yaml = /## In a manifest[\s\S]*?```yaml\n([\s\S]*?)```/.exec(page)?.[1];
    assert.ok(yaml, 'the YAML block of docs/response-controls.md');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'response-controls-doc-'));
    try {
      fs.writeFileSync(path.join(dir, 'm.yaml'), yaml);
      const stack = newStack();
      new Manifest(stack, 'm', { path: path.join(dir, 'm.yaml') });
      const config = configOf(synth(stack), 'support');
      assert.deepEqual(config.tools, [workedExample()]);
      assert.equal(config.gateway.validate_output, true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('drops, redacts and refuses as the page says', () => {
    const tool = workedExample();
    const crm = {
      id: 'C-1042',
      name: 'Ada',
      email: 'ada@example.com',
      ssn: '078-05-1120',
      orders: [{ id: 'o-1', total: 12.5, card_number: '4111111111111111', memo: 'paid with 4111111111111111' }],
    };
    const s = shaper(tool);
    const outcome = s.shape(JSON.stringify(crm), 'application/json', 1 << 22);
    assert.ok(outcome.ok);
    const result = JSON.parse(outcome.resultJson);
    const expected = { id: 'C-1042', name: 'Ada', email: '[redacted]', orders: [{ id: 'o-1', total: 12.5 }] };
    assert.deepEqual(result.structuredContent, expected);
    assert.deepEqual(JSON.parse(result.content[0].text), expected);
    assert.deepEqual(outcome.counts, { fields_dropped: 3, redacted: 1 });
    const wrong = { ...crm, orders: [crm.orders[0], { id: 'o-2', total: '12.50' }] };
    assert.deepEqual(s.shape(JSON.stringify(wrong), 'application/json', 1 << 22), {
      ok: false,
      code: 'OUTPUT_INVALID',
      message: 'Service returned an invalid response: Invalid type for `orders[1].total`: expected number',
    });
  });
});
