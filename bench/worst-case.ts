/**
 * Worst-case benchmark (a 1 MiB adversarial payload is refused in well under 50 ms, for every keyword,
 * every format and every declared pattern). For each format the validator knows, a set of declared patterns
 * (catastrophic ones for a backtracking engine among them) and each raw-schema keyword, the slowest 1 MiB input
 * found — by a search over near-miss strings for formats and patterns, written by hand for keywords — is validated
 * through `compileToolSchema(...).validator.validate`, which includes the walker's explanation of the refusal.
 *
 * Formats and patterns: every (prefix, repeated unit, suffix) candidate is screened at 16 KiB, and the slowest
 * three are timed at 1 MiB. Times are the median of 5 runs after a warm-up run.
 */
import { fullFormats } from 'ajv-formats/dist/formats';
import { compileToolSchema, ToolValidator } from '../src/validation';
import { formatAccepts } from '../src/validation/ajv-instances';
import { strictFormats } from '../src/validation/formats';
import { compileLinearPattern } from '../src/regex/linear-regexp';

const MIB = 1 << 20;
const TARGET_MS = 50;

const UNITS = [
  'a',
  'x',
  '0',
  '1.',
  ':',
  '::',
  'ff:',
  '.',
  '-',
  '/',
  '@',
  'a@',
  '@/',
  '%',
  '%4',
  '#',
  '?',
  '[',
  'T',
  '00:',
  'xn--',
  'a.',
  '\\',
  ' ',
  'é',
  'ab',
  'a-',
  '~1',
  '"',
  'Z',
  // outside the BMP: a letter and a symbol, each a surrogate pair
  '𝐀',
  '😀',
];
const PREFIXES = ['', 'a:', 'a://', 'http://', '"', '[', '2020-01-01T', 'a@', '/', 'P', '10:00:00'];
const SUFFIXES = ['', '\n', '!', '#\n', '@', ']', ' ', '\u2028'];

interface Row {
  readonly group: string;
  readonly name: string;
  readonly input: string;
  readonly verdict: string;
  readonly ms: number;
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** @param reset run untimed before each run, so that nothing remembered from the previous run helps */
function time(run: () => void, runs = 5, reset?: () => void): number {
  run();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    reset?.();
    const t = performance.now();
    run();
    times.push(performance.now() - t);
  }
  return median(times);
}

function validatorFor(schema: Record<string, unknown>): ToolValidator {
  const compiled = compileToolSchema(schema);
  if (!compiled.ok) throw new Error(compiled.error);
  return compiled.validator;
}

function verdictOf(validator: ToolValidator, args: unknown): string {
  const result = validator.validate(args);
  return result.valid ? 'accepted' : result.violations[0].rule;
}

function show(s: string): string {
  const text = JSON.stringify(s);
  return text.length > 40 ? `${text.slice(0, 36)}…" (${(s.length / MIB).toFixed(2)} MiB)` : text;
}

/** The slowest near-miss string of about `length` for `accepts`, by a screen at 16 KiB then timing at full size. */
function slowestString(accepts: (s: string) => boolean, length: number): string[] {
  const candidates: [number, string, string, string][] = [];
  for (const p of PREFIXES) {
    for (const u of UNITS) {
      for (const s of SUFFIXES) {
        const small = p + u.repeat(Math.ceil(16384 / u.length)) + s;
        const t = performance.now();
        accepts(small);
        candidates.push([performance.now() - t, p, u, s]);
      }
    }
  }
  candidates.sort((a, b) => b[0] - a[0]);
  return candidates
    .slice(0, 3)
    .map(([, p, u, s]) => p + u.repeat(Math.floor((length - p.length - s.length) / u.length)) + s);
}

function stringRows(
  group: string,
  name: string,
  schema: Record<string, unknown>,
  accepts: (s: string) => boolean,
): Row {
  const validator = validatorFor({ type: 'object', properties: { v: schema } });
  let worst: Row | undefined;
  for (const input of slowestString(accepts, MIB)) {
    // A pattern remembers its last input (a refusal tests it twice): validating another string first makes each
    // timed run pay for its first test, as a new request does.
    const ms = time(
      () => validator.validate({ v: input }),
      5,
      () => validator.validate({ v: 'another string' }),
    );
    if (worst === undefined || ms > worst.ms)
      worst = { group, name, input: show(input), verdict: verdictOf(validator, { v: input }), ms };
  }
  return worst as Row;
}

function formatRows(): Row[] {
  const names = [...new Set([...Object.keys(fullFormats), ...Object.keys(strictFormats)])].sort();
  const rows: Row[] = [];
  for (const name of names) {
    const def: unknown = (fullFormats as Record<string, unknown>)[name];
    if (
      typeof def === 'object' &&
      def !== null &&
      !(def instanceof RegExp) &&
      (def as { type?: string }).type === 'number'
    ) {
      const validator = validatorFor({ type: 'object', properties: { v: { type: 'number', format: name } } });
      rows.push({
        group: 'format',
        name,
        input: '1e308 (a number format: constant time)',
        verdict: verdictOf(validator, { v: 1e308 }),
        ms: time(() => validator.validate({ v: 1e308 })),
      });
      continue;
    }
    rows.push(stringRows('format', name, { type: 'string', format: name }, (s) => formatAccepts(name, s)));
  }
  return rows;
}

const PATTERNS = [
  '^(a+)+$',
  '(a|aa)*c',
  '^(\\w+\\s?)*$',
  '(x+x+)+y',
  '^[^@]+@[^@]+\\.[a-z]{2,}$',
  '.*.*=.*',
  '^(\\p{L}|\\d)*$',
  '^A-[0-9]{4}$',
];

function patternRows(): Row[] {
  return PATTERNS.map((pattern) => {
    const re = compileLinearPattern(pattern);
    return stringRows('pattern', pattern, { type: 'string', pattern }, (s) => re.test(s));
  });
}

/** Hand-written 1 MiB inputs, one or more per raw-schema keyword. */
function keywordCases(): [string, Record<string, unknown>, () => unknown][] {
  const keys = (n: number, value: (i: number) => unknown, prefix = `k_${'x'.repeat(30)}_`): Record<string, unknown> => {
    const o: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) o[`${prefix}${i}`] = value(i);
    return o;
  };
  const distinctObjects = (n: number) => Array.from({ length: n }, (_, i) => ({ n: i, s: 'abcdef' }));
  let deep: unknown = 1;
  for (let i = 0; i < 2000; i++) deep = { next: deep, v: 'x' };
  const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    type: 'object',
    properties,
    ...extra,
  });
  return [
    [
      'type (array of wrong types)',
      obj({ v: { type: 'array', items: { type: 'string' } } }),
      () => ({ v: Array.from({ length: MIB / 2 }, () => 1) }),
    ],
    ['enum (objects)', obj({ v: { enum: [{ a: 1 }, [1, 2], 'x'] } }), () => ({ v: keys(20000, () => 1) })],
    ['const (object)', obj({ v: { const: { k: [1, { z: 2 }] } } }), () => ({ v: keys(20000, () => 1) })],
    [
      'required (every one missing)',
      { type: 'object', required: Array.from({ length: 2000 }, (_, i) => `r${i}`) },
      () => keys(20000, () => 1),
    ],
    [
      'additionalProperties: false',
      obj({ a: { type: 'string' } }, { additionalProperties: false }),
      () => keys(25000, () => 1),
    ],
    [
      'additionalProperties anyOf (labels)',
      obj({ labels: { type: 'object', additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }] } } }),
      () => ({ labels: keys(20000, () => true) }),
    ],
    [
      'patternProperties',
      { type: 'object', patternProperties: { '^(a+)+$': { type: 'integer' }, '^k_': { type: 'string' } } },
      () => keys(25000, () => 1),
    ],
    [
      'propertyNames',
      { type: 'object', propertyNames: { pattern: '^(\\w+\\s?)*$', maxLength: 20 } },
      () => keys(25000, () => 1),
    ],
    ['maxProperties', { type: 'object', maxProperties: 3 }, () => keys(25000, () => 1)],
    [
      'dependentRequired',
      {
        type: 'object',
        dependentRequired: Object.fromEntries(
          Array.from({ length: 200 }, (_, i) => [`k_${'x'.repeat(30)}_${i}`, ['zz']]),
        ),
      },
      () => keys(25000, () => 1),
    ],
    [
      'dependentSchemas',
      { type: 'object', dependentSchemas: { [`k_${'x'.repeat(30)}_0`]: { additionalProperties: { type: 'string' } } } },
      () => keys(25000, () => 1),
    ],
    [
      'items + allOf of 10 anyOf',
      obj({
        v: {
          type: 'array',
          items: {
            allOf: Array.from({ length: 10 }, (_, k) => ({
              anyOf: [{ type: 'string', minLength: k }, { type: 'number' }],
            })),
          },
        },
      }),
      () => ({ v: Array.from({ length: MIB / 5 }, () => true) }),
    ],
    [
      'prefixItems + items: false',
      obj({ v: { type: 'array', prefixItems: [{ type: 'integer' }], items: false } }),
      () => ({ v: Array.from({ length: MIB / 2 }, () => 1) }),
    ],
    [
      'contains + maxContains',
      obj({ v: { type: 'array', contains: { type: 'integer' }, maxContains: 2 } }),
      () => ({ v: Array.from({ length: MIB / 2 }, () => 1) }),
    ],
    [
      'uniqueItems (objects, equal pair first)',
      obj({ v: { type: 'array', uniqueItems: true } }),
      () => ({ v: [{ s: 'abcdef', n: 0 }, ...distinctObjects(MIB / 24)] }),
    ],
    [
      'uniqueItems (distinct strings, accepted)',
      obj({ v: { type: 'array', uniqueItems: true, items: { anyOf: [{ type: 'string' }] } } }),
      () => ({ v: Array.from({ length: MIB / 10 }, (_, i) => `s${i}`) }),
    ],
    [
      'maxItems',
      obj({ v: { type: 'array', maxItems: 3, items: { type: 'string' } } }),
      () => ({ v: Array.from({ length: MIB / 2 }, () => 1) }),
    ],
    ['maxLength (code points)', obj({ v: { type: 'string', maxLength: 10 } }), () => ({ v: '😀'.repeat(MIB / 4) })],
    [
      'minimum / multipleOf',
      obj({ v: { type: 'array', items: { type: 'number', minimum: 5, multipleOf: 0.01 } } }),
      () => ({ v: Array.from({ length: MIB / 6 }, () => 1e300) }),
    ],
    [
      'integer beyond 2^53',
      obj({ v: { type: 'array', items: { type: 'integer' } } }),
      () => ({ v: Array.from({ length: MIB / 17 }, () => 2 ** 60) }),
    ],
    [
      'oneOf (both match)',
      obj({ v: { type: 'array', items: { oneOf: [{ type: 'integer' }, { type: 'number' }] } } }),
      () => ({ v: Array.from({ length: MIB / 2 }, () => 1) }),
    ],
    [
      'not',
      obj({ v: { type: 'array', items: { not: { type: 'integer' } } } }),
      () => ({ v: Array.from({ length: MIB / 2 }, () => 1) }),
    ],
    [
      'if / then / else',
      obj({ v: { type: 'array', items: { if: { type: 'integer' }, then: { minimum: 5 }, else: { type: 'string' } } } }),
      () => ({ v: Array.from({ length: MIB / 2 }, () => 1) }),
    ],
    [
      '$ref recursion (2,000 deep)',
      {
        type: 'object',
        $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' }, v: { type: 'integer' } } } },
        properties: { list: { $ref: '#/$defs/node' } },
      },
      () => ({ list: deep }),
    ],
    [
      'branching $ref recursion (anyOf × items, 2,000 deep)',
      {
        type: 'object',
        $defs: {
          node: {
            anyOf: [
              { type: 'array', items: { $ref: '#/$defs/node' } },
              { type: 'array', items: { $ref: '#/$defs/node' }, maxItems: 1000 },
              { type: 'integer' },
            ],
          },
        },
        properties: { tree: { $ref: '#/$defs/node' } },
      },
      () => {
        let tree: unknown = 'x';
        for (let i = 0; i < 2000; i++) tree = [tree];
        return { tree };
      },
    ],
    [
      'unevaluatedProperties',
      { type: 'object', allOf: [{ properties: { a: { type: 'string' } } }], unevaluatedProperties: false },
      () => keys(25000, () => 1),
    ],
    [
      'unevaluatedItems',
      obj({ v: { type: 'array', prefixItems: [{ type: 'integer' }], unevaluatedItems: false } }),
      () => ({ v: Array.from({ length: MIB / 2 }, () => 1) }),
    ],
  ];
}

function keywordRows(): Row[] {
  return keywordCases().map(([name, schema, make]) => {
    const validator = validatorFor(schema);
    const args = make();
    const size = JSON.stringify(args).length;
    return {
      group: 'keyword',
      name,
      input: `${(size / MIB).toFixed(2)} MiB`,
      verdict: verdictOf(validator, args),
      ms: time(() => validator.validate(args)),
    };
  });
}

/** Runs the worst-case benchmark and prints its table. */
export async function runWorstCaseBench(): Promise<void> {
  const rows = [...formatRows(), ...patternRows(), ...keywordRows()];
  console.log('| kind | name | slowest 1 MiB input found | verdict (first rule) | refusal time |');
  console.log('|---|---|---|---|---:|');
  for (const row of rows) {
    console.log(
      `| ${row.group} | \`${row.name.replace(/\|/g, '\\|')}\` | ${row.input.replace(/\|/g, '\\|')} | ${row.verdict} | ${row.ms.toFixed(2)} ms${row.ms >= TARGET_MS ? ' ⚠' : ''} |`,
    );
  }
  const worst = rows.reduce((a, b) => (b.ms > a.ms ? b : a));
  const over = rows.filter((r) => r.ms >= TARGET_MS);
  console.log(
    `\nWorst: ${worst.group} \`${worst.name}\`, ${worst.ms.toFixed(2)} ms. Target every row < ${TARGET_MS} ms: ` +
      `${over.length === 0 ? 'met' : `MISSED by ${over.length} row(s)`}.`,
  );
}
