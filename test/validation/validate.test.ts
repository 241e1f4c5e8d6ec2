import * as assert from 'node:assert/strict';
import { generateInputSchema, InputSpec } from '../../src/schema';
import { compileToolSchema, ToolValidator, ValidationResult } from '../../src/validation';

function validatorFor(input: InputSpec | undefined): ToolValidator {
  const compiled = compileToolSchema(generateInputSchema(input));
  if (!compiled.ok) throw new Error(compiled.error);
  return compiled.validator;
}

function refusal(result: ValidationResult): {
  message: string;
  violations: { path: string; rule: string; message: string }[];
} {
  assert.equal(result.valid, false, 'expected a refusal');
  if (result.valid) throw new Error('unreachable');
  return { message: result.message, violations: result.violations.map((v) => ({ ...v })) };
}

const createTicket = {
  subject: { type: 'string', required: true, maxLength: 200 },
  body: { type: 'string', required: true },
  priority: { type: 'integer', enum: [1, 2, 3] },
  customer: {
    type: 'object',
    required: true,
    properties: {
      name: { type: 'string', required: true },
      email: { type: 'string', format: 'email', required: true },
      addresses: {
        type: 'array',
        maxItems: 5,
        items: {
          type: 'object',
          properties: {
            street: { type: 'string', required: true },
            city: { type: 'string', required: true },
            zip_code: { type: 'integer', required: true },
          },
        },
      },
    },
  },
  tags: { type: 'array', uniqueItems: true, maxItems: 10, items: { type: 'string', maxLength: 32 } },
} as const satisfies InputSpec;

const validTicket = () => ({
  subject: 'Printer on fire',
  body: 'It is on fire.',
  customer: { name: 'Ada', email: 'ada@example.com' },
});

const address = (zip: unknown = 12345) => ({ street: 'Main St 1', city: 'Springfield', zip_code: zip });

describe('validate: one violation per documented rule', () => {
  const everything = validatorFor({
    status: { type: 'string', enum: ['open', 'closed'] },
    limit: { type: 'integer', minimum: 1, maximum: 100 },
    ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 10 },
    code: { type: 'string', pattern: '^[A-Z]{3}$' },
    word: { type: 'string', minLength: 3, maxLength: 64 },
    name: { type: 'string', minLength: 1, maxLength: 1 },
    items: { type: 'array', minItems: 1, maxItems: 10, uniqueItems: true },
    pair: { type: 'array', minItems: 3, maxItems: 1 - 1 + 1 + 3 },
    when: { type: 'string', format: 'date-time' },
    id: { type: 'string', required: true },
  });
  const base = { id: 'x' };
  const rows: [string, Record<string, unknown>, string, string, string][] = [
    ['a required field is absent', {}, 'id', 'required', 'Missing required parameter: `id`'],
    [
      'a field outside the schema',
      { ...base, extra: 1 },
      'extra',
      'additionalProperties',
      'Unknown parameter: `extra`',
    ],
    ['a wrong type', { ...base, limit: 'ten' }, 'limit', 'type', 'Invalid type for `limit`: expected integer'],
    [
      'enum',
      { ...base, status: 'pending' },
      'status',
      'enum',
      'Invalid value for `status`: expected one of "open", "closed"',
    ],
    ['minimum', { ...base, limit: 0 }, 'limit', 'minimum', 'Invalid value for `limit`: expected >= 1'],
    ['maximum', { ...base, limit: 101 }, 'limit', 'maximum', 'Invalid value for `limit`: expected <= 100'],
    ['exclusiveMinimum', { ...base, ratio: 0 }, 'ratio', 'exclusiveMinimum', 'Invalid value for `ratio`: expected > 0'],
    [
      'exclusiveMaximum',
      { ...base, ratio: 10 },
      'ratio',
      'exclusiveMaximum',
      'Invalid value for `ratio`: expected < 10',
    ],
    [
      'minLength',
      { ...base, word: 'ab' },
      'word',
      'minLength',
      'Invalid value for `word`: expected at least 3 characters',
    ],
    [
      'maxLength',
      { ...base, word: 'w'.repeat(65) },
      'word',
      'maxLength',
      'Invalid value for `word`: expected at most 64 characters',
    ],
    [
      'minLength 1 (singular)',
      { ...base, name: '' },
      'name',
      'minLength',
      'Invalid value for `name`: expected at least 1 character',
    ],
    [
      'maxLength 1 (singular)',
      { ...base, name: 'ab' },
      'name',
      'maxLength',
      'Invalid value for `name`: expected at most 1 character',
    ],
    [
      'pattern',
      { ...base, code: 'abc' },
      'code',
      'pattern',
      'Invalid value for `code`: expected to match pattern ^[A-Z]{3}$',
    ],
    [
      'minItems 1 (singular)',
      { ...base, items: [] },
      'items',
      'minItems',
      'Invalid value for `items`: expected at least 1 item',
    ],
    [
      'maxItems',
      { ...base, items: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] },
      'items',
      'maxItems',
      'Invalid value for `items`: expected at most 10 items',
    ],
    [
      'minItems plural',
      { ...base, pair: [1] },
      'pair',
      'minItems',
      'Invalid value for `pair`: expected at least 3 items',
    ],
    [
      'uniqueItems',
      { ...base, items: [1, 2, 1] },
      'items',
      'uniqueItems',
      'Invalid value for `items`: expected unique items',
    ],
    ['format', { ...base, when: 'yesterday' }, 'when', 'format', 'Invalid value for `when`: expected format date-time'],
  ];
  for (const [cause, args, path, rule, message] of rows) {
    it(`refuses ${cause} with "${message}"`, () => {
      const r = refusal(everything.validate(args));
      assert.equal(r.message, message);
      assert.deepEqual(r.violations, [{ path, rule, message }]);
    });
  }

  it('counts maxLength in code points, not UTF-16 units', () => {
    const v = validatorFor({ emoji: { type: 'string', maxLength: 2 } });
    assert.deepEqual(v.validate({ emoji: '😀😀' }), { valid: true });
    assert.equal(
      refusal(v.validate({ emoji: '😀😀😀' })).message,
      'Invalid value for `emoji`: expected at most 2 characters',
    );
  });

  it('accepts values exactly at each bound', () => {
    assert.deepEqual(
      everything.validate({ id: 'x', limit: 1, ratio: 9.99, code: 'ABC', items: [1], when: '2025-01-02T03:04:05Z' }),
      { valid: true },
    );
  });
});

describe('validate: arguments that are not an object', () => {
  const v = validatorFor({ id: { type: 'string' } });
  for (const [label, value] of [
    ['null', null],
    ['an array', []],
    ['a string', 'x'],
    ['a number', 42],
    ['a boolean', true],
  ] as const) {
    it(`refuses ${label} with "Invalid arguments: expected an object" at the root`, () => {
      const r = refusal(v.validate(value));
      assert.equal(r.message, 'Invalid arguments: expected an object');
      assert.deepEqual(r.violations, [{ path: '', rule: 'type', message: 'Invalid arguments: expected an object' }]);
    });
  }
  it('treats omitted arguments as {}', () => {
    assert.deepEqual(v.validate(undefined), { valid: true });
    assert.equal(
      refusal(validatorFor({ id: { type: 'string', required: true } }).validate(undefined)).message,
      'Missing required parameter: `id`',
    );
  });
});

describe('validate: required and unknown fields', () => {
  const v = validatorFor(createTicket);
  it('names a single missing required field', () => {
    const { subject: _s, ...args } = validTicket();
    assert.equal(refusal(v.validate(args)).message, 'Missing required parameter: `subject`');
  });
  it('names every missing required field, in schema order', () => {
    const r = refusal(v.validate({}));
    assert.equal(
      r.message,
      'Missing required parameter: `subject`; Missing required parameter: `body`; Missing required parameter: `customer`',
    );
    assert.deepEqual(
      r.violations.map((x) => x.path),
      ['subject', 'body', 'customer'],
    );
  });
  it('refuses an unknown top-level field', () => {
    assert.equal(refusal(v.validate({ ...validTicket(), urgency: 'high' })).message, 'Unknown parameter: `urgency`');
  });
  it('refuses an unknown nested field with its full path', () => {
    const args = { ...validTicket(), customer: { ...validTicket().customer, phone: '555' } };
    assert.deepEqual(refusal(v.validate(args)).violations, [
      { path: 'customer.phone', rule: 'additionalProperties', message: 'Unknown parameter: `customer.phone`' },
    ]);
  });
  it('refuses a missing nested required field', () => {
    const args = { ...validTicket(), customer: { name: 'Ada' } };
    assert.equal(refusal(v.validate(args)).message, 'Missing required parameter: `customer.email`');
  });
  it('writes a key that is not an identifier as ["key"], JSON-escaped', () => {
    assert.equal(refusal(v.validate({ ...validTicket(), 'zip-code': 1 })).message, 'Unknown parameter: `["zip-code"]`');
    assert.equal(
      refusal(v.validate({ ...validTicket(), 'say "hi"\n': 1 })).message,
      'Unknown parameter: `["say \\"hi\\"\\n"]`',
    );
    const nested = { ...validTicket(), customer: { ...validTicket().customer, 'e mail': 'x' } };
    assert.equal(refusal(v.validate(nested)).violations[0].path, 'customer["e mail"]');
  });
  it('does not take inherited names such as toString for declared or present fields', () => {
    const r = refusal(v.validate({ ...validTicket(), toString: 'x', constructor: 1 }));
    assert.deepEqual(
      r.violations.map((x) => x.path),
      ['toString', 'constructor'],
    );
  });
  it('refuses a __proto__ key sent as data', () => {
    const args = JSON.parse('{"subject":"s","body":"b","customer":{"name":"n","email":"a@b.co"},"__proto__":{"x":1}}');
    assert.equal(refusal(v.validate(args)).message, 'Unknown parameter: `__proto__`');
  });
});

describe('validate: types', () => {
  const v = validatorFor({
    count: { type: 'integer' },
    ratio: { type: 'number' },
    flag: { type: 'boolean' },
    note: { type: 'string' },
  });
  it('refuses a string for an integer', () => {
    assert.equal(refusal(v.validate({ count: '3' })).message, 'Invalid type for `count`: expected integer');
  });
  it('refuses a boolean for an integer and for a number', () => {
    assert.equal(refusal(v.validate({ count: true })).message, 'Invalid type for `count`: expected integer');
    assert.equal(refusal(v.validate({ ratio: false })).message, 'Invalid type for `ratio`: expected number');
  });
  it('refuses a fraction for an integer', () => {
    assert.equal(refusal(v.validate({ count: 1.5 })).message, 'Invalid type for `count`: expected integer');
  });
  it('accepts 1.0 as an integer', () => {
    assert.deepEqual(v.validate(JSON.parse('{"count": 1.0}')), { valid: true });
  });
  it('refuses null for an optional field: absence expresses optional', () => {
    assert.equal(refusal(v.validate({ note: null })).message, 'Invalid type for `note`: expected string');
  });
  it('refuses 1e400 (Infinity once parsed) as an integer and as a number: it is no JSON number', () => {
    const args = JSON.parse('{"count": 1e400, "ratio": -1e400}') as Record<string, unknown>;
    assert.deepEqual(
      refusal(v.validate(args)).violations.map((x) => x.message),
      ['Invalid type for `count`: expected integer', 'Invalid type for `ratio`: expected number'],
    );
    assert.equal(refusal(v.validate({ ratio: NaN })).message, 'Invalid type for `ratio`: expected number');
  });
  it('refuses an integer beyond ±(2^53−1), which cannot be forwarded exactly, and accepts the bounds', () => {
    const expected = 'Invalid value for `count`: expected an integer between -9007199254740991 and 9007199254740991';
    for (const text of ['9007199254740992', '-9007199254740992', '1e20', '12345678901234567890']) {
      const r = refusal(v.validate(JSON.parse(`{"count": ${text}}`)));
      assert.deepEqual(r.violations, [{ path: 'count', rule: 'type', message: expected }], text);
    }
    assert.deepEqual(v.validate({ count: Number.MAX_SAFE_INTEGER }), { valid: true });
    assert.deepEqual(v.validate({ count: -Number.MAX_SAFE_INTEGER }), { valid: true });
    // A number may be large: it is forwarded as the caller's JSON number.
    assert.deepEqual(v.validate({ ratio: 1e20 }), { valid: true });
  });
  it('refuses a wrong-typed enum value with a type message and a wrong integer enum with the list', () => {
    const e = validatorFor({
      status: { type: 'string', enum: ['open', 'closed'] },
      priority: { type: 'integer', enum: [1, 2, 3] },
    });
    assert.equal(refusal(e.validate({ status: 1 })).message, 'Invalid type for `status`: expected string');
    assert.equal(refusal(e.validate({ priority: 4 })).message, 'Invalid value for `priority`: expected one of 1, 2, 3');
    assert.equal(
      refusal(e.validate({ status: 'OPEN' })).message,
      'Invalid value for `status`: expected one of "open", "closed"',
    );
  });
});

describe('validate: nested paths', () => {
  const v = validatorFor(createTicket);
  it('names customer.addresses[2].zip_code', () => {
    const args = {
      ...validTicket(),
      customer: { ...validTicket().customer, addresses: [address(), address(), address('12345')] },
    };
    assert.deepEqual(refusal(v.validate(args)).violations, [
      {
        path: 'customer.addresses[2].zip_code',
        rule: 'type',
        message: 'Invalid type for `customer.addresses[2].zip_code`: expected integer',
      },
    ]);
  });
  it('checks array elements against items', () => {
    assert.equal(
      refusal(v.validate({ ...validTicket(), tags: ['ok', 7] })).message,
      'Invalid type for `tags[1]`: expected string',
    );
  });
  it('accepts a complete valid call', () => {
    const args = {
      ...validTicket(),
      priority: 2,
      tags: ['a', 'b'],
      customer: { ...validTicket().customer, addresses: [address()] },
    };
    assert.deepEqual(v.validate(args), { valid: true });
  });
});

describe('validate: parameterless tools and open maps', () => {
  const none = validatorFor(undefined);
  it('accepts omitted arguments and {} for a parameterless tool', () => {
    assert.deepEqual(none.validate(undefined), { valid: true });
    assert.deepEqual(none.validate({}), { valid: true });
  });
  it('refuses any field on a parameterless tool', () => {
    assert.equal(refusal(none.validate({ verbose: true })).message, 'Unknown parameter: `verbose`');
  });
  it('accepts arbitrary nested keys in an open map but still checks its type', () => {
    const v = validatorFor({ team: { type: 'string', required: true }, settings: { type: 'object', required: true } });
    assert.deepEqual(v.validate({ team: 't', settings: { a: { b: [1, { c: null }] }, 'any key': true } }), {
      valid: true,
    });
    assert.equal(
      refusal(v.validate({ team: 't', settings: [] })).message,
      'Invalid type for `settings`: expected object',
    );
    assert.equal(
      refusal(v.validate({ team: 't', settings: null })).message,
      'Invalid type for `settings`: expected object',
    );
  });
  it('accepts extra keys in a declared object opened with additionalProperties: true', () => {
    const v = validatorFor({
      meta: { type: 'object', properties: { id: { type: 'string', required: true } }, additionalProperties: true },
    });
    assert.deepEqual(v.validate({ meta: { id: 'x', extra: 1 } }), { valid: true });
    assert.equal(refusal(v.validate({ meta: { extra: 1 } })).message, 'Missing required parameter: `meta.id`');
  });
});

describe('validate: several violations', () => {
  const wide: InputSpec = Object.fromEntries(
    Array.from({ length: 30 }, (_, i) => [`f${i}`, { type: 'integer', required: true }]),
  );
  const v = validatorFor(wide);
  it('joins the first 5 with "; " and counts the others as (+N more)', () => {
    const args = Object.fromEntries(Array.from({ length: 23 }, (_, i) => [`f${i}`, i]));
    const r = refusal(v.validate(args));
    assert.equal(r.violations.length, 7);
    assert.equal(
      r.message,
      'Missing required parameter: `f23`; Missing required parameter: `f24`; Missing required parameter: `f25`; ' +
        'Missing required parameter: `f26`; Missing required parameter: `f27` (+2 more)',
    );
  });
  it('collects at most 20 violations', () => {
    const r = refusal(v.validate({}));
    assert.equal(r.violations.length, 20);
    assert.deepEqual(
      r.violations.map((x) => x.path),
      Array.from({ length: 20 }, (_, i) => `f${i}`),
    );
    assert.match(r.message, / \(\+15 more\)$/);
  });
  it('joins exactly 5 without a count', () => {
    const args = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`f${i}`, i]));
    assert.equal(refusal(v.validate(args)).message.includes('more)'), false);
    assert.equal(refusal(v.validate(args)).violations.length, 5);
  });
  it('orders missing required, then declared properties in schema order with nested ones inside, then unknown keys in input order', () => {
    const t = validatorFor(createTicket);
    const args = {
      zeta: 1,
      tags: [5],
      subject: 1,
      alpha: 2,
      customer: { email: 'bad', addresses: [{ city: 'c', zip_code: 'x', extra: 1 }], name: 'n' },
    };
    assert.deepEqual(
      refusal(t.validate(args)).violations.map((x) => `${x.rule} ${x.path}`),
      [
        'required body',
        'type subject',
        'format customer.email',
        'required customer.addresses[0].street',
        'type customer.addresses[0].zip_code',
        'additionalProperties customer.addresses[0].extra',
        'type tags[0]',
        'additionalProperties zeta',
        'additionalProperties alpha',
      ],
    );
  });
});

describe('validate: messages never contain argument values', () => {
  const canary = 'sk-live-CANARY-1234';
  const v = validatorFor(createTicket);
  const payloads: unknown[] = [
    { ...validTicket(), subject: { key: canary } },
    { ...validTicket(), priority: canary },
    { ...validTicket(), tags: [canary, canary] },
    { ...validTicket(), customer: { name: canary, email: canary } },
    {
      ...validTicket(),
      customer: { name: 'a', email: 'a@b.co', addresses: [{ street: canary, city: 1, zip_code: canary }] },
    },
    { ...validTicket(), body: [canary] },
    canary,
    [canary],
  ];
  payloads.forEach((payload, i) => {
    it(`keeps the canary out of message and violations (payload ${i})`, () => {
      const result = v.validate(payload);
      assert.equal(result.valid, false);
      assert.equal(JSON.stringify(result).includes('CANARY'), false);
    });
  });
});

describe('validate: caller key names', () => {
  const v = validatorFor({ id: { type: 'string' } });
  it('cuts a long unknown key at 64 code points and marks the cut with …', () => {
    const key = 'k'.repeat(100);
    assert.equal(refusal(v.validate({ [key]: 1 })).message, `Unknown parameter: \`${'k'.repeat(64)}…\``);
  });
  it('escapes a backtick in a key so it cannot end the quoted name', () => {
    assert.equal(refusal(v.validate({ 'a`b': 1 })).message, 'Unknown parameter: `["a\\u0060b"]`');
  });
});

describe('validate: totality and bounded work', () => {
  const v = validatorFor(createTicket);
  it('returns a refusal, not a throw, for values that are not JSON', () => {
    for (const value of [
      () => 1,
      Symbol('s'),
      10n,
      new Date(),
      new Map(),
      { subject: () => 1 },
      { subject: 1n },
      { body: Symbol('x') },
    ]) {
      assert.equal(v.validate(value).valid, false);
    }
  });
  it('returns a refusal for absurdly deep nesting instead of overflowing the stack', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const compiled = compileToolSchema({ type: 'object', properties: { tags: { type: 'array', uniqueItems: true } } });
    assert.ok(compiled.ok);
    assert.deepEqual(compiled.validator.validate({ tags: [deep, deep] }), {
      valid: false,
      message: 'Invalid arguments: could not be validated',
      violations: [{ path: '', rule: 'internal', message: 'Invalid arguments: could not be validated' }],
    });
  });
  it('collects 20 of 20,000 unknown keys', () => {
    const args: Record<string, unknown> = validTicket();
    for (let i = 0; i < 20_000; i++) args[`k${i}`] = i;
    const r = refusal(v.validate(args));
    assert.equal(r.violations.length, 20);
    assert.equal(r.violations[19].path, 'k19');
  });
  it('skips wrong-typed elements when checking uniqueness of scalar items, as ajv does', () => {
    const r = refusal(v.validate({ ...validTicket(), tags: [{ a: 1 }, { a: 1 }, 'x'] }));
    assert.deepEqual(
      r.violations.map((x) => x.message),
      ['Invalid type for `tags[0]`: expected string', 'Invalid type for `tags[1]`: expected string'],
    );
  });
  it('collects 20 of 10,000 wrong-typed array elements', () => {
    const r = refusal(v.validate({ ...validTicket(), tags: Array.from({ length: 10_000 }, (_, i) => i) }));
    assert.equal(r.violations.length, 20);
    assert.deepEqual(
      r.violations.slice(0, 2).map((x) => x.message),
      ['Invalid value for `tags`: expected at most 10 items', 'Invalid type for `tags[0]`: expected string'],
    );
  });
  it('returns the same frozen result for every valid call', () => {
    const a = v.validate(validTicket());
    assert.equal(a, v.validate(validTicket()));
    assert.equal(Object.isFrozen(a), true);
  });
});

describe('validate: names are own properties only', () => {
  const v = validatorFor({
    toString: { type: 'string' as const, required: true },
    o: {
      type: 'object',
      properties: { constructor: { type: 'string' as const, required: true }, valueOf: { type: 'integer' as const } },
    },
    n: { type: 'integer', aliases: ['hasOwnProperty'] },
  });
  it('never takes an inherited toString, constructor or valueOf for a missing field', () => {
    const r = refusal(v.validate({ o: {} }));
    assert.deepEqual(
      r.violations.map((x) => x.message),
      ['Missing required parameter: `toString`', 'Missing required parameter: `o.constructor`'],
    );
    assert.deepEqual(v.validate({ toString: 'x', o: { constructor: 'y' } }), { valid: true });
  });
  it('treats __proto__, constructor and prototype sent by the caller as ordinary unknown keys', () => {
    const args = JSON.parse(
      '{"toString": "x", "o": {"constructor": "y", "__proto__": {"valueOf": "z"}}, "__proto__": {"n": 1}, "prototype": 1, "constructor": 2}',
    ) as Record<string, unknown>;
    assert.deepEqual(
      refusal(v.validate(args)).violations.map((x) => x.message),
      [
        'Unknown parameter: `o.__proto__`',
        'Unknown parameter: `__proto__`',
        'Unknown parameter: `prototype`',
        'Unknown parameter: `constructor`',
      ],
    );
  });
  it('checks a declared name that Object.prototype also has by its own value', () => {
    assert.equal(
      refusal(v.validate({ toString: 'x', o: { constructor: 1 } })).message,
      'Invalid type for `o.constructor`: expected string',
    );
    assert.equal(
      refusal(v.validate({ toString: 'x', o: { constructor: 'y', valueOf: 'z' } })).message,
      'Invalid type for `o.valueOf`: expected integer',
    );
  });
});
