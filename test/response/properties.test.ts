/**
 * Property tests of the response steps over random declared outputs and random backend responses: selection keeps
 * exactly the declared fields at every depth; redaction never changes the shape; and a canary placed in every
 * dropped or redacted field never appears anywhere in the reply.
 */
import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import {
  compileRedactPattern,
  compileResponseControls,
  fieldSelector,
  redactMatches,
  redactPaths,
  parseRedactPath,
} from '../../src/response';
import type { PathStep } from '../../src/response';
import { generateOutputSchema, type InputSpec, type ParamSpec } from '../../src/schema';

const RUNS = { numRuns: 150 };
const NAMES = ['id', 'name', 'email', 'orders', 'total', 'my key', 'a-b', '__proto__x', 'toString', 'hasOwnProperty'];

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const leafSpec: fc.Arbitrary<ParamSpec> = fc.constantFrom<ParamSpec>(
  { type: 'string' },
  { type: 'integer' },
  { type: 'number' },
  { type: 'boolean' },
  { type: 'object' }, // an open map
);

const specOf = (depth: number): fc.Arbitrary<ParamSpec> =>
  depth === 0
    ? leafSpec
    : fc.oneof(
        leafSpec,
        fc.record({ type: fc.constant('object' as const), properties: propertiesOf(depth - 1) }),
        fc.record({ type: fc.constant('array' as const), items: specOf(depth - 1) }),
      );

function propertiesOf(depth: number): fc.Arbitrary<InputSpec> {
  return fc
    .uniqueArray(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 4 })
    .chain((names) => fc.tuple(...names.map(() => specOf(depth))).map((specs) => defineAll(names, specs)));
}

function defineAll<T>(names: readonly string[], values: readonly T[]): Record<string, T> {
  const out: Record<string, T> = {};
  names.forEach((n, i) => Object.defineProperty(out, n, { value: values[i], enumerable: true, writable: true }));
  return out;
}

/** A small seeded generator, so one fast-check integer decides a whole response. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Canaries, each unique: `KEEP…` in declared strings, `DROP…` everywhere undeclared. */
class Canaries {
  private n = 0;
  next(kind: 'KEEP' | 'DROP'): string {
    return `${kind}${++this.n}Z`;
  }
}

/** A response for `spec` that also carries undeclared fields (holding DROP canaries) at every object depth. */
function responseFor(properties: InputSpec, rnd: () => number, canaries: Canaries): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const name of Object.keys(properties)) {
    if (rnd() < 0.2) continue; // an optional field the service left out
    define(out, name, valueFor(properties[name], rnd, canaries));
  }
  const extras = 1 + Math.floor(rnd() * 2);
  for (let i = 0; i < extras; i++) {
    define(
      out,
      `undeclared_${canaries.next('DROP')}`,
      rnd() < 0.5 ? canaries.next('DROP') : { deep: canaries.next('DROP') },
    );
  }
  return out;
}

function valueFor(spec: ParamSpec, rnd: () => number, canaries: Canaries): Json {
  switch (spec.type) {
    case 'string':
      return canaries.next('KEEP');
    case 'integer':
      return Math.floor(rnd() * 100);
    case 'number':
      return rnd();
    case 'boolean':
      return rnd() < 0.5;
    case 'array':
      return Array.from({ length: Math.floor(rnd() * 3) }, () => valueFor(spec.items!, rnd, canaries));
    default:
      if (spec.properties === undefined) return { anything: canaries.next('KEEP') };
      return responseFor(spec.properties, rnd, canaries);
  }
}

function define(target: Record<string, Json>, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The reference selection, written from the declared spec (not the schema). */
function expectedSelection(value: Json, spec: ParamSpec): Json {
  if (spec.type === 'array' && Array.isArray(value)) return value.map((v) => expectedSelection(v, spec.items!));
  if (spec.type !== 'object' || spec.properties === undefined || typeof value !== 'object' || value === null) {
    return value;
  }
  const out: Record<string, Json> = {};
  for (const key of Object.keys(value)) {
    if (Object.prototype.hasOwnProperty.call(spec.properties, key)) {
      define(out, key, expectedSelection((value as Record<string, Json>)[key], spec.properties[key]));
    }
  }
  return out;
}

/** Every redaction path naming a declared string field (with `[]` through arrays). */
function stringPaths(properties: InputSpec, prefix = ''): string[] {
  const paths: string[] = [];
  for (const name of Object.keys(properties)) {
    const key = /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)
      ? prefix === ''
        ? name
        : `${prefix}.${name}`
      : `${prefix}[${JSON.stringify(name)}]`;
    let spec = properties[name];
    let path = key;
    while (spec.type === 'array') {
      path += '[]';
      spec = spec.items!;
    }
    if (spec.type === 'string') paths.push(path);
    if (spec.type === 'object' && spec.properties !== undefined) paths.push(...stringPaths(spec.properties, path));
  }
  return paths;
}

/** The shape of a JSON value: every string replaced by one marker. */
function shapeOf(value: unknown): unknown {
  if (typeof value === 'string') return '<string>';
  if (Array.isArray(value)) return value.map(shapeOf);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) define(out as never, key, shapeOf((value as never)[key]) as never);
    return out;
  }
  return value;
}

const outputs = propertiesOf(2);
const seeds = fc.integer({ min: 1, max: 2 ** 31 - 1 });

describe('response controls: properties', () => {
  it('selection keeps exactly the declared fields, at every depth', () => {
    fc.assert(
      fc.property(outputs, seeds, (output, seed) => {
        const response = responseFor(output, random(seed), new Canaries());
        const selected = fieldSelector(generateOutputSchema(output)).select(response);
        const root: ParamSpec = { type: 'object', properties: output };
        assert.deepEqual(selected.value, expectedSelection(response, root));
        assert.ok(!JSON.stringify(selected.value).includes('DROP'), 'an undeclared field survived');
      }),
      RUNS,
    );
  });

  it('redaction never changes the shape of a response: it redacts, or says the response holds what it cannot', () => {
    const json = fc.jsonValue() as fc.Arbitrary<Json>;
    const paths = fc.array(fc.constantFrom('a', 'a.b', 'a[].b', '*', 'x.*', 'a[]', 'b[].c[].d'), { maxLength: 3 });
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('a', 'b', 'x', 'c'), json), paths, (response, redact) => {
        // the shape of what the gateway holds: JSON text parsed (a -0 of the generator is 0 after JSON)
        const before = shapeOf(JSON.parse(JSON.stringify(response)));
        const copy = JSON.parse(JSON.stringify(response));
        const done = redactPaths(
          copy,
          redact.map((p) => parseRedactPath(p) as readonly PathStep[]),
        );
        // an unchecked response may hold a number or an object where a path ends: refused, never forwarded
        if ('unredactable' in done) return;
        const matched = redactMatches(copy, [compileRedactPattern('[a-f0-9]{2,}')]);
        assert.deepEqual(shapeOf(matched.value), before);
      }),
      RUNS,
    );
  });

  it('a canary in every dropped or redacted field never appears anywhere in the reply', () => {
    fc.assert(
      fc.property(outputs, seeds, fc.boolean(), (output, seed, validate) => {
        const response = responseFor(output, random(seed), new Canaries());
        const compiled = compileResponseControls(
          {
            output_schema: generateOutputSchema(output),
            response: { fields: 'declared', redact: stringPaths(output), redact_patterns: { keep: 'KEEP[0-9]+Z' } },
          },
          validate,
        );
        assert.ok('shaper' in compiled && compiled.shaper !== undefined);
        const outcome = compiled.shaper.shape(JSON.stringify(response), 'application/json', 1 << 22);
        // The response is made to conform, so it is always forwarded; nothing it carried may reach the reply.
        assert.equal(outcome.ok, true, JSON.stringify(outcome));
        if (!outcome.ok) return;
        assert.ok(!outcome.resultJson.includes('DROP'), 'a dropped value reached the reply');
        assert.ok(!outcome.resultJson.includes('KEEP'), 'a redacted value reached the reply');
        const result = JSON.parse(outcome.resultJson);
        assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
      }),
      RUNS,
    );
  });
});
