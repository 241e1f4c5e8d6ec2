/**
 * A fast compiler for the JSON Schema subset that `generateInputSchema` emits: one straight-line JavaScript function
 * per schema, with exactly ajv's accept/reject verdict (for the instances in ajv-instances.ts: `strictNumbers`,
 * `ownProperties`, the safe-integer and uniqueItems keywords, the linear-time pattern engine, the same formats). ajv's code generation per
 * schema dominated loading a config of 1,000 tools; this compiler costs a small fraction of it (bench/gateway.ts).
 *
 * Anything outside the subset (another keyword, a type array, a boolean subschema, an unknown format, …) gives
 * `undefined` and the caller compiles with ajv. The subset is closed: every schema accepted here is one
 * that ajv also compiles, so the lazily compiled ajv functions behind it never fail. It is also stricter than the
 * JSON Schema 2020-12 meta-schema (every keyword value is checked for its type, range and uniqueness, every pattern
 * with the meta-schema's own `regex` format), so a schema accepted here needs no meta-schema check at load; a
 * differential test (test/validation/meta-schema-differential.test.ts) holds that.
 *
 * Nothing from a schema is spliced into the code raw: property names and enum strings are JSON string literals,
 * numbers are checked finite numbers, and patterns, formats and sets are constants passed in.
 */
import { type ParamTypeName, TYPE_CONSTRAINTS } from './type-constraints';
import { ajvFormatsDefinition, strictFormats } from './formats';
import { isJsonObject } from './json-object';
import type { LinearRegExp } from '../regex/linear-regexp';
import { sharedLinearPattern } from '../regex/shared-patterns';
import { hasDuplicates } from './unique-items';

/** A compiled schema: `true` when ajv's compiled function would accept `data`. */
export type SubsetValidator = (data: unknown) => boolean;

type NodeType = ParamTypeName;

const ANNOTATIONS = ['description', 'title', 'default', 'examples'];
// The keywords each type may carry (the generator's table); any other keyword takes the schema out of the subset.
const KEYWORDS: Readonly<Record<NodeType, readonly string[]>> = TYPE_CONSTRAINTS;
const SAFE = Number.MAX_SAFE_INTEGER;
// Past these sizes a constant Set beats a chain of comparisons.
const MAX_CHAINED = 8;
// Past this length uniqueItems on scalars uses a Set rather than comparing every pair.
const MAX_PAIRWISE = 8;
// Deeper schemas go to ajv: bounds the emitter's recursion and the nesting of the generated code.
const MAX_DEPTH = 32;

/** Thrown inside the emitter when the schema leaves the subset; never escapes `compileSubset`. */
class NotInSubset extends Error {}

function outside(): never {
  throw new NotInSubset();
}

/** A JavaScript string literal for `s`; U+2028/2029 escaped too, though ES2019 allows them in literals. */
function stringLiteral(s: string): string {
  return JSON.stringify(s)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function numberLiteral(n: unknown): string {
  if (typeof n !== 'number' || !Number.isFinite(n)) outside();
  return `(${String(n)})`;
}

function countLiteral(n: unknown): number {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) outside();
  return n;
}

function scalarLiteral(v: unknown): string {
  if (typeof v === 'string') return stringLiteral(v);
  if (typeof v === 'boolean') return String(v);
  if (v === null) return 'null';
  return numberLiteral(v);
}

/** The check ajv runs for format `name` on strings, resolved as ajv-instances.ts registers formats. */
function formatCheck(name: unknown): RegExp | ((s: string) => boolean) {
  if (typeof name !== 'string') outside();
  if (Object.prototype.hasOwnProperty.call(strictFormats, name)) return strictFormats[name];
  const def: unknown = ajvFormatsDefinition(name);
  if (def === undefined) outside(); // unknown format: ajv reports it
  if (def instanceof RegExp || typeof def === 'function') return def as RegExp | ((s: string) => boolean);
  if (typeof def === 'object' && def !== null) {
    const d = def as { type?: unknown; async?: unknown; validate?: unknown };
    if ((d.type ?? 'string') !== 'string' || d.async === true) outside();
    if (d.validate instanceof RegExp || typeof d.validate === 'function')
      return d.validate as RegExp | ((s: string) => boolean);
  }
  return outside();
}

/** `format: regex` as the meta-schema check runs it (with the formats registered as in ajv-instances.ts). */
function regexFormat(source: string): boolean {
  const check = formatCheck('regex');
  return check instanceof RegExp ? check.test(source) : check(source);
}

/**
 * Walks a schema, deciding whether it is in the subset; when `emitting`, also writes the function's code. Every
 * decision (each `outside()`) is made in both modes on the same path, so a walk that only checks and a later one
 * that emits agree on a schema that has not changed: only the code writing is guarded by `emitting`.
 */
class Emitter {
  private readonly code: string[] = [];
  private readonly constants: unknown[] = [];
  private counter = 0;

  /** @param emitting write the code (else only decide; `line` and `constant` then receive nothing) */
  public constructor(public readonly emitting: boolean) {}

  public fresh(prefix: string): string {
    return `${prefix}${this.counter++}`;
  }

  public constant(value: unknown): string {
    this.constants.push(value);
    return `k${this.constants.length - 1}`;
  }

  public line(text: string): void {
    this.code.push(text);
  }

  /** The builder of the function from the code written. */
  public builder(): () => SubsetValidator {
    const constants = this.constants;
    const bindings = constants.map((_, i) => `k${i}=k[${i}]`);
    const body =
      `"use strict";${bindings.length > 0 ? `const ${bindings.join(',')};` : ''}` +
      `return function validate(data){${this.code.join('\n')}\nreturn true;};`;
    return () =>
      new Function('h', 'u', 'k', body)(Object.prototype.hasOwnProperty, ucs2length, constants) as SubsetValidator;
  }

  /** Emits the checks of `schema` on the value in variable `v`. */
  public node(schema: unknown, v: string, depth: number): void {
    if (depth > MAX_DEPTH || !isJsonObject(schema)) outside();
    const type = schema.type;
    if (typeof type !== 'string' || !Object.prototype.hasOwnProperty.call(KEYWORDS, type)) outside();
    const allowed = KEYWORDS[type as NodeType];
    for (const key of Object.keys(schema)) {
      if (key !== 'type' && !allowed.includes(key) && !ANNOTATIONS.includes(key)) outside();
    }
    for (const key of ['description', 'title']) {
      if (schema[key] !== undefined && typeof schema[key] !== 'string') outside();
    }
    if (schema.examples !== undefined && !Array.isArray(schema.examples)) outside();
    switch (type as NodeType) {
      case 'string':
        return this.string(schema, v);
      // Finite numbers only (ajv's strictNumbers), integers within ±(2^53−1) (see docs/input-and-validation.md; NaN fails every comparison).
      case 'integer':
        return this.number(schema, v, `!(typeof ${v}==="number"&&${v}<=${SAFE}&&${v}>=${-SAFE}&&!(${v}%1))`);
      case 'number':
        return this.number(schema, v, `typeof ${v}!=="number"||${v}-${v}!==0`);
      case 'boolean':
        if (this.emitting) this.line(`if(typeof ${v}!=="boolean")return false;`);
        return this.enumeration(schema.enum, v);
      case 'array':
        return this.array(schema, v, depth);
      case 'object':
        return this.object(schema, v, depth);
    }
  }

  private enumeration(values: unknown, v: string): void {
    if (values === undefined) return;
    if (!Array.isArray(values) || values.length === 0) outside();
    if (!this.emitting) {
      for (const value of values)
        if (typeof value !== 'string' && typeof value !== 'boolean' && value !== null) numberLiteral(value);
      return;
    }
    const literals = values.map(scalarLiteral);
    if (values.length <= MAX_CHAINED) {
      this.line(`if(${literals.map((l) => `${v}!==${l}`).join('&&')})return false;`);
    } else {
      // Set.has compares with SameValueZero, which differs from === only for NaN, never an enum value in JSON.
      this.line(`if(!${this.constant(new Set(values))}.has(${v}))return false;`);
    }
  }

  private string(schema: Record<string, unknown>, v: string): void {
    if (this.emitting) this.line(`if(typeof ${v}!=="string")return false;`);
    this.enumeration(schema.enum, v);
    if (schema.maxLength !== undefined) {
      // ajv counts code points; a string no longer in UTF-16 units than the limit is within it.
      const max = countLiteral(schema.maxLength);
      if (this.emitting) this.line(`if(${v}.length>${max}&&u(${v})>${max})return false;`);
    }
    if (schema.minLength !== undefined) {
      // A string of 2n UTF-16 units has at least n code points.
      const min = countLiteral(schema.minLength);
      if (min > 0 && this.emitting) this.line(`if(${v}.length<${2 * min}&&u(${v})<${min})return false;`);
    }
    if (schema.pattern !== undefined) {
      if (typeof schema.pattern !== 'string') outside();
      // The meta-schema's `format: regex` (which this subset stands in for): a pattern ajv's own check refuses
      // stays out, so that ajv reports it exactly as it reports it without this compiler.
      if (!regexFormat(schema.pattern)) outside();
      let re: LinearRegExp;
      try {
        re = sharedLinearPattern(schema.pattern);
      } catch {
        return outside(); // ajv reports the invalid or unsupported pattern
      }
      if (this.emitting) this.line(`if(!${this.constant(re)}.test(${v}))return false;`);
    }
    if (schema.format !== undefined) {
      const check = formatCheck(schema.format);
      if (!this.emitting) return;
      const c = this.constant(check);
      this.line(check instanceof RegExp ? `if(!${c}.test(${v}))return false;` : `if(!${c}(${v}))return false;`);
    }
  }

  private number(schema: Record<string, unknown>, v: string, wrongType: string): void {
    if (this.emitting) this.line(`if(${wrongType})return false;`);
    this.enumeration(schema.enum, v);
    // Negated comparisons: like ajv's `x > max || isNaN(x)`.
    const bounds = [
      ['minimum', '>='],
      ['maximum', '<='],
      ['exclusiveMinimum', '>'],
      ['exclusiveMaximum', '<'],
    ] as const;
    for (const [keyword, ok] of bounds) {
      if (schema[keyword] === undefined) continue;
      const bound = numberLiteral(schema[keyword]);
      if (this.emitting) this.line(`if(!(${v}${ok}${bound}))return false;`);
    }
  }

  private array(schema: Record<string, unknown>, v: string, depth: number): void {
    const maxItems = schema.maxItems === undefined ? undefined : countLiteral(schema.maxItems);
    const minItems = schema.minItems === undefined ? undefined : countLiteral(schema.minItems);
    if (this.emitting) {
      this.line(`if(!Array.isArray(${v}))return false;`);
      if (maxItems !== undefined) this.line(`if(${v}.length>${maxItems})return false;`);
      if (minItems !== undefined) this.line(`if(${v}.length<${minItems})return false;`);
    }
    const items = schema.items;
    if (items !== undefined) {
      if (!this.emitting) {
        this.node(items, '', depth + 1);
      } else {
        const i = this.fresh('i');
        const item = this.fresh('d');
        this.line(`for(let ${i}=0;${i}<${v}.length;${i}++){const ${item}=${v}[${i}];`);
        this.node(items, item, depth + 1);
        this.line('}');
      }
    }
    if (schema.uniqueItems !== undefined && typeof schema.uniqueItems !== 'boolean') outside();
    if (schema.uniqueItems === true && this.emitting) this.unique(v, isJsonObject(items) ? items.type : undefined);
  }

  /** uniqueItems; the items (if declared) have already passed their checks. */
  private unique(v: string, itemType: unknown): void {
    if (itemType === 'object' || itemType === 'array' || itemType === undefined) {
      // Canonical texts in a Set, as the ajv keyword that replaces ajv's own (see unique-items.ts): linear.
      this.line(`if(${this.constant(hasDuplicates)}(${v}))return false;`);
      return;
    }
    // Scalars of one type: equal exactly when ===, except NaN (not JSON; SameValueZero in the Set agrees).
    const [i, j, a, s] = [this.fresh('i'), this.fresh('j'), this.fresh('a'), this.fresh('s')];
    const same =
      itemType === 'number' ? `(${v}[${j}]===${a}||(${a}!==${a}&&${v}[${j}]!==${v}[${j}]))` : `${v}[${j}]===${a}`;
    this.line(
      `if(${v}.length>1){if(${v}.length<=${MAX_PAIRWISE}){` +
        `for(let ${i}=1;${i}<${v}.length;${i}++){const ${a}=${v}[${i}];for(let ${j}=0;${j}<${i};${j}++)if(${same})return false;}` +
        `}else{const ${s}=new Set();for(let ${i}=0;${i}<${v}.length;${i}++){const ${a}=${v}[${i}];if(${s}.has(${a}))return false;${s}.add(${a});}}}`,
    );
  }

  private object(schema: Record<string, unknown>, v: string, depth: number): void {
    if (this.emitting) this.line(`if(typeof ${v}!=="object"||${v}===null||Array.isArray(${v}))return false;`);
    // `=== undefined`, not `??`: a `null` value is no absent keyword (the meta-schema refuses it).
    const properties = schema.properties === undefined ? {} : schema.properties;
    if (!isJsonObject(properties)) outside();
    const names = Object.keys(properties);
    // ajv ignores a property named __proto__; the caller refuses such schemas, and they stay out of the subset.
    if (names.includes('__proto__')) outside();
    const required = schema.required === undefined ? [] : schema.required;
    if (!Array.isArray(required) || required.some((r) => typeof r !== 'string' || r === '__proto__')) outside();
    if (new Set(required).size !== required.length) outside(); // the meta-schema refuses duplicates
    // The empty name is refused at load with its own message (ajv does not check it): that path reports it.
    if (required.includes('')) outside();
    const additional = schema.additionalProperties;
    if (additional !== undefined && typeof additional !== 'boolean') outside();
    if (!this.emitting) {
      for (const name of names) this.node(properties[name], '', depth + 1);
      return;
    }
    for (const name of required as string[]) {
      const key = stringLiteral(name);
      this.line(`if(${v}[${key}]===undefined||!h.call(${v},${key}))return false;`);
    }
    if (additional === false) {
      // Own enumerable keys, as ajv's Object.keys loop sees them.
      const key = this.fresh('p');
      const undeclared =
        names.length === 0
          ? 'true'
          : names.length <= MAX_CHAINED
            ? names.map((n) => `${key}!==${stringLiteral(n)}`).join('&&')
            : `!${this.constant(new Set(names))}.has(${key})`;
      this.line(`for(const ${key} in ${v})if(${undeclared}&&h.call(${v},${key}))return false;`);
    }
    for (const name of names) {
      const key = stringLiteral(name);
      const value = this.fresh('d');
      this.line(`{const ${value}=${v}[${key}];`);
      // A required property was found own and defined above.
      const open = (required as string[]).includes(name) ? '{' : `if(${value}!==undefined&&h.call(${v},${key})){`;
      this.line(open);
      this.node(properties[name], value, depth + 1);
      this.line('}}');
    }
  }
}

/**
 * Compiles `schema` to one function with ajv's verdict, or gives `undefined` when the schema uses anything outside
 * the subset `generateInputSchema` emits (then ajv compiles it). Never throws.
 *
 * @example
 * const fast = compileSubset({ type: 'object', properties: { id: { type: 'string' } }, additionalProperties: false });
 * fast?.({ id: 'a' }); // true
 */
export function compileSubset(schema: unknown): SubsetValidator | undefined {
  try {
    return planSubset(schema)?.();
  } catch {
    // Anything unexpected (e.g. the engine refusing the code): ajv decides instead.
    return undefined;
  }
}

/**
 * Whether `schema` is in the subset: the walk of {@link buildSubset} without writing code (every keyword checked,
 * every pattern compiled and every format resolved). Never throws.
 */
export function inSubset(schema: unknown): boolean {
  try {
    new Emitter(false).node(schema, 'data', 0);
    return true;
  } catch {
    // NotInSubset, or anything unexpected: ajv decides instead.
    return false;
  }
}

/**
 * The function for a schema {@link inSubset} took: writes its code and has V8 compile it, most of the cost of this
 * compiler, which a caller may therefore leave to the schema's first use (a config of many tools then pays at load
 * only for the decision). It throws for a schema outside the subset (one that changed since the decision, or an
 * equal copy that differs), or if the engine refused code this module wrote (a bug, never a schema problem: every
 * schema value enters the code as a literal or a constant).
 */
export function buildSubset(schema: unknown): SubsetValidator {
  const emitter = new Emitter(true);
  emitter.node(schema, 'data', 0);
  return emitter.builder()();
}

/**
 * {@link compileSubset} in two halves: the decision now, `undefined` when the schema is outside the subset, and
 * the returned builder, which writes and compiles the function ({@link buildSubset}); `schema` must not change
 * until the builder has run.
 */
export function planSubset(schema: unknown): (() => SubsetValidator) | undefined {
  return inSubset(schema) ? () => buildSubset(schema) : undefined;
}

/**
 * A string's length in code points, as ajv counts it for `minLength`/`maxLength`: a high surrogate followed by a
 * low one counts once, a lone surrogate once.
 */
export function ucs2length(text: string): number {
  let length = 0;
  for (let pos = 0; pos < text.length; length++) {
    const unit = text.charCodeAt(pos++);
    if (unit >= 0xd800 && unit <= 0xdbff && pos < text.length && (text.charCodeAt(pos) & 0xfc00) === 0xdc00) pos++;
  }
  return length;
}
