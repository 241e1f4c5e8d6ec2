/**
 * The response fuzzer: hostile backend answers (random JSON trees, top-level arrays, secrets in string values, in
 * keys and in numbers, `__proto__` and `constructor` keys, every content type) through a tool's response controls,
 * with output validation on and off. It fails when any part of a result the agent would get holds a pattern match,
 * when `fields: 'declared'` lets a key the output does not declare through, when a refusal names a key the service
 * chose, or when shaping throws.
 */
import * as fc from 'fast-check';
import { compileResponseControls, type ResponseShaper } from '../src/response';
import { generateOutputSchema } from '../src/schema';

/** Secrets the patterns below cover: in strings and keys, and as numbers. */
const STRING_SECRET = /S3CR[0-9]{3}/;
const NUMBER_SECRET = /\b7[0-9]{12}\b/;
const PATTERNS = { text: 'S3CR[0-9]{3}', card: '\\b7[0-9]{12}\\b' };
/** Keys the service chooses start with this, so a refusal that names one is recognized. */
const CHOSEN = 'k_';

/** The declared output: closed objects only, so every key the service adds is undeclared. */
const OUTPUT = generateOutputSchema({
  id: { type: 'string', required: true },
  email: { type: 'string' },
  count: { type: 'integer' },
  owner: { type: 'object', properties: { name: { type: 'string' }, email: { type: 'string' } } },
  orders: {
    type: 'array',
    items: { type: 'object', properties: { id: { type: 'string' }, total: { type: 'number' } } },
  },
});
const DECLARED = new Set(['id', 'email', 'count', 'owner', 'name', 'orders', 'total']);

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/problem+json',
  'text/plain',
  'text/html',
  'application/xml',
  'application/octet-stream',
  '',
];

/** A tool's response controls, and whether the gateway validates output. */
interface Controls {
  readonly declared: boolean;
  readonly fields: 'declared' | 'all';
  readonly redact: readonly string[];
  readonly validateOutput: boolean;
  readonly maxBytes?: number;
}

const controls: fc.Arbitrary<Controls> = fc.record({
  declared: fc.boolean(),
  fields: fc.constantFrom('declared' as const, 'all' as const),
  redact: fc.subarray(['email', 'owner.email', 'orders[].id']),
  validateOutput: fc.boolean(),
  maxBytes: fc.option(fc.integer({ min: 64, max: 4096 }), { nil: undefined }),
});

const secretText = fc
  .tuple(fc.string({ maxLength: 6 }), fc.integer({ min: 0, max: 999 }), fc.string({ maxLength: 6 }))
  .map(([a, n, b]) => `${a}S3CR${String(n).padStart(3, '0')}${b}`);
const cardNumber = fc.integer({ min: 0, max: 999_999_999_999 }).map((n) => 7_000_000_000_000 + n);
const key = fc.oneof(
  fc.constantFrom(...DECLARED),
  fc.string({ maxLength: 8 }).map((s) => `${CHOSEN}${s}`),
  secretText.map((s) => `${CHOSEN}${s}`),
  fc.constantFrom('__proto__', 'constructor', 'toString'),
);
const leaf = fc.oneof(
  fc.string({ maxLength: 12 }),
  secretText,
  cardNumber,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('tree'), { maxLength: 4 }),
    fc
      .array(fc.tuple(key, tie('tree')), { maxLength: 5 })
      .map(
        (pairs) =>
          JSON.parse(`{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`) as unknown,
      ),
  ),
}));
/** Answers near the declared shape (so validation passes often) or anything at all. */
const answer = fc.oneof(
  fc.record({ id: fc.oneof(fc.string({ maxLength: 8 }), secretText), extra: tree }).map(({ id, extra }) => ({
    id,
    ...(typeof extra === 'object' && extra !== null && !Array.isArray(extra) ? extra : { [`${CHOSEN}x`]: extra }),
  })),
  tree,
);

/** What a fuzz run found. */
export interface ResponseFuzzReport {
  readonly count: number;
  readonly shaped: number;
  readonly refused: number;
  readonly elapsedMs: number;
}

/** Options of {@link runResponseFuzzer}. */
export interface ResponseFuzzOptions {
  readonly count: number;
  /** @default - random */
  readonly seed?: number;
}

/**
 * Runs `count` hostile answers through response controls; throws (with fast-check's counterexample and seed) on the
 * first answer that leaks.
 */
export function runResponseFuzzer(options: ResponseFuzzOptions): ResponseFuzzReport {
  const start = performance.now();
  const shapers = new Map<string, ResponseShaper>();
  let count = 0;
  let shaped = 0;
  let refused = 0;
  const property = fc.property(controls, answer, fc.constantFrom(...CONTENT_TYPES), (c, body, contentType) => {
    const settings = JSON.stringify(c);
    let shaper = shapers.get(settings);
    if (shaper === undefined) {
      const compiled = compileResponseControls(
        {
          ...(c.declared ? { output_schema: OUTPUT } : {}),
          response: {
            ...(c.declared ? { fields: c.fields } : {}),
            redact: [...c.redact],
            redact_patterns: PATTERNS,
            ...(c.maxBytes !== undefined ? { max_bytes: c.maxBytes } : {}),
          },
        },
        c.validateOutput,
      );
      if (!('shaper' in compiled) || compiled.shaper === undefined) throw new Error(`controls refused: ${settings}`);
      shaper = compiled.shaper;
      shapers.set(settings, shaper);
    }
    const outcome = shaper.shape(JSON.stringify(body), contentType, 1 << 20);
    count++;
    if (!outcome.ok) {
      refused++;
      if (STRING_SECRET.test(outcome.message) || NUMBER_SECRET.test(outcome.message))
        throw new Error(`a refusal holds a secret: ${outcome.message}`);
      if (outcome.message.includes(CHOSEN))
        throw new Error(`a refusal names a key the service chose: ${outcome.message}`);
      return;
    }
    shaped++;
    const text = outcome.resultJson;
    if (STRING_SECRET.test(text) || NUMBER_SECRET.test(text)) throw new Error(`a result holds a secret: ${text}`);
    const result = JSON.parse(text) as { content: { text: string }[]; structuredContent?: unknown };
    if (result.structuredContent !== undefined && result.content[0]?.text !== JSON.stringify(result.structuredContent))
      throw new Error(`the text content is not the JSON of structuredContent: ${text}`);
    if (c.declared && c.fields === 'declared' && result.structuredContent !== undefined) {
      const leaked = undeclaredKey(result.structuredContent);
      if (leaked !== undefined) throw new Error(`fields: 'declared' let ${JSON.stringify(leaked)} through: ${text}`);
    }
  });
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  fc.assert(property, { numRuns: options.count, seed });
  return { count, shaped, refused, elapsedMs: performance.now() - start };
}

/** A key of `value` (at any depth) that the output does not declare. */
function undeclaredKey(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = undeclaredKey(item);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  for (const k of Object.keys(value)) {
    if (!DECLARED.has(k)) return k;
    const found = undeclaredKey((value as Record<string, unknown>)[k]);
    if (found !== undefined) return found;
  }
  return undefined;
}
