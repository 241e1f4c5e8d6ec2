import { isJsonObject, patternProblem } from '../validation';
import { childPointer, resolvePointer } from './json-pointer';
import { OpenApiError } from './openapi-error';
import { knownFormat } from './known-formats';

/** Which side of a call a schema describes: `readOnly` fields are left out of input, `writeOnly` ones of output. */
export type SchemaDirection = 'input' | 'output';

/** The OpenAPI versions whose schemas this translates. */
export type OpenApiVersion = '3.0' | '3.1';

type Json = Record<string, unknown>;

/**
 * Translates the schemas of one tool (its input, or its output) from an OpenAPI document to JSON Schema 2020-12,
 * collecting the `$defs` that recursive `$ref`s need. One translator per tool root: `$defs` belong to that root.
 *
 * - `$ref`s are local (checked before: see `load-openapi-document.ts`) and are resolved inline; a `$ref` met again
 *   while it is being resolved (recursion) is kept as `{"$ref": "#/$defs/Name"}` with its translation in `$defs`.
 * - OpenAPI 3.0: `nullable: true` becomes a type union with `"null"`; boolean `exclusiveMinimum`/`exclusiveMaximum`
 *   become the numeric 2020-12 ones; `example` is dropped.
 * - Input: an object with `properties` and no `additionalProperties` is closed, at every depth, as declared input
 *   is. Not inside `allOf`, where closing each branch would refuse every value: object branches of `allOf` are
 *   merged first, so the merged object is closed; an `allOf` that cannot be merged gets
 *   `unevaluatedProperties: false`, which sees the properties of every branch.
 * - Annotations that say nothing to a validator (`example(s)`, `xml`, `discriminator`, `externalDocs`, `deprecated`,
 *   `title`, `x-…`) are dropped; a `format` the gateway does not know (`int32`, `int64`, `float`, `double`,
 *   `byte`, `binary`, `password`, …) is dropped too: JSON Schema makes unknown formats annotations.
 * - A `pattern` the linear-time engine cannot run, or a keyword outside JSON Schema, is an {@link OpenApiError}
 *   naming the pointer.
 */
/** The most schema nodes one tool's translation may produce: far past any schema an agent could read. */
export const MAX_TRANSLATED_NODES = 50_000;

export class SchemaTranslator {
  /** Translations of recursive `$ref`s, by `$defs` name. */
  private readonly defs = new Map<string, unknown>();
  /** `$ref` → its `$defs` name, for refs found to be recursive. */
  private readonly defNames = new Map<string, string>();
  /** The `$ref`s being resolved right now (outermost first). */
  private readonly resolving: string[] = [];
  /** Schema nodes translated so far, bounded by {@link MAX_TRANSLATED_NODES}. */
  private nodes = 0;

  /**
   * @param document the whole OpenAPI document (where `$ref`s point)
   * @param version which OpenAPI schema dialect the document uses
   * @param direction input (closed objects, no `readOnly`) or output (the document's meaning, no `writeOnly`)
   */
  constructor(
    private readonly document: unknown,
    private readonly version: OpenApiVersion,
    private readonly direction: SchemaDirection,
  ) {}

  /** The `$defs` a root schema needs (empty when nothing recursed), in the order they were found. */
  public definitions(): Json | undefined {
    if (this.defs.size === 0) return undefined;
    return Object.fromEntries(this.defs);
  }

  /**
   * The JSON Schema for the OpenAPI schema at `pointer`.
   * @param inAllOf whether the schema is a branch of an `allOf` (then it is not closed)
   */
  public translate(schema: unknown, pointer: string, inAllOf = false): unknown {
    if (++this.nodes > MAX_TRANSLATED_NODES) {
      // Shared `$ref`s are inlined at every use: a document reusing one definition twice per level doubles the
      // schema per level (18 levels: millions of nodes, gigabytes of JSON).
      throw new OpenApiError(
        pointer,
        `the schema expands to more than ${MAX_TRANSLATED_NODES.toLocaleString('en-US')} nodes once its shared $refs ` +
          'are inlined (definitions reused at every level); simplify the schema or expose the operation with a raw ' +
          'inputSchema written by hand',
      );
    }
    if (typeof schema === 'boolean') return schema; // 3.1 boolean schemas
    if (!isJsonObject(schema)) throw new OpenApiError(pointer, 'a schema must be an object');
    if (typeof schema.$ref === 'string') return this.reference(schema, pointer, inAllOf);
    if (Array.isArray(schema.allOf)) {
      const merged = this.mergeAllOf(schema, pointer);
      if (merged !== undefined) return this.translate(merged.schema, merged.pointer, inAllOf);
    }
    const out: Json = {};
    for (const key of Object.keys(schema)) this.keyword(schema, key, pointer, out);
    this.applyNullable(schema, out);
    this.applyExclusiveBounds(schema, out);
    if (
      this.direction === 'input' &&
      !inAllOf &&
      isJsonObject(out.properties) &&
      out.additionalProperties === undefined &&
      out.unevaluatedProperties === undefined &&
      out.patternProperties === undefined
    ) {
      out.additionalProperties = false;
    } else if (
      this.direction === 'input' &&
      !inAllOf &&
      Array.isArray(out.allOf) &&
      out.additionalProperties === undefined &&
      out.unevaluatedProperties === undefined &&
      out.allOf.some((branch) => isJsonObject(branch) && (isJsonObject(branch.properties) || branch.$ref !== undefined))
    ) {
      // an allOf that could not be merged: closed as a whole, seeing the properties every branch declares
      out.unevaluatedProperties = false;
    }
    return out;
  }

  /** The resolved target of a local `$ref` and its pointer (after following chains of `$ref`s). */
  public follow(schema: Json, pointer: string): { schema: unknown; pointer: string } {
    let node: unknown = schema;
    let at = pointer;
    const seen = new Set<string>();
    while (isJsonObject(node) && typeof node.$ref === 'string') {
      const ref = node.$ref;
      if (seen.has(ref)) throw new OpenApiError(at, `$ref ${JSON.stringify(ref)} refers to itself`);
      seen.add(ref);
      const target = resolvePointer(this.document, ref);
      if (target === undefined) throw new OpenApiError(at, `$ref ${JSON.stringify(ref)} names nothing in the document`);
      node = target;
      at = ref;
    }
    return { schema: node, pointer: at };
  }

  private reference(schema: Json, pointer: string, inAllOf: boolean): unknown {
    const ref = schema.$ref as string;
    const known = this.defNames.get(ref);
    if (known !== undefined && (this.defs.has(known) || this.resolving.includes(ref)))
      return { $ref: `#/$defs/${known}` };
    if (this.resolving.includes(ref)) {
      const name = this.defName(ref);
      this.defNames.set(ref, name);
      return { $ref: `#/$defs/${name}` };
    }
    const target = resolvePointer(this.document, ref);
    if (target === undefined)
      throw new OpenApiError(pointer, `$ref ${JSON.stringify(ref)} names nothing in the document`);
    this.resolving.push(ref);
    let translated: unknown;
    try {
      translated = this.translate(target, ref, inAllOf);
    } finally {
      this.resolving.pop();
    }
    const name = this.defNames.get(ref);
    if (name !== undefined) {
      // recursive: every use (this one included) refers to the one definition
      this.defs.set(name, translated);
      translated = { $ref: `#/$defs/${name}` };
    }
    // 3.1 allows a description beside a $ref; keep it, it is what the agent reads
    if (typeof schema.description === 'string' && isJsonObject(translated)) {
      translated = { ...translated, description: schema.description };
    }
    return translated;
  }

  private defName(ref: string): string {
    const last = ref.split('/').pop() ?? 'schema';
    const base = last.replace(/[^A-Za-z0-9_.-]+/g, '_') || 'schema';
    const taken = new Set(this.defNames.values());
    let name = base;
    for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
    return name;
  }

  /**
   * An `allOf` whose branches are all plain object schemas (after `$ref`s), merged into one object schema: the
   * union of their properties and required lists. `undefined` when some branch is not such an object.
   */
  private mergeAllOf(schema: Json, pointer: string): { schema: Json; pointer: string } | undefined {
    const branches = schema.allOf as unknown[];
    const properties: Json = {};
    const required: string[] = [];
    let additional: unknown;
    for (const [i, branch] of branches.entries()) {
      const at = childPointer(childPointer(pointer, 'allOf'), i);
      const { schema: resolved } = isJsonObject(branch) ? this.follow(branch, at) : { schema: branch };
      if (!isJsonObject(resolved) || this.isRecursiveTarget(branch)) return undefined;
      const keys = Object.keys(resolved).filter((k) => !ANNOTATIONS.has(k) && !k.startsWith('x-'));
      if (!keys.every((k) => MERGEABLE.has(k)) || (resolved.type !== undefined && resolved.type !== 'object')) {
        return undefined;
      }
      if (Array.isArray(resolved.allOf)) return undefined;
      if (isJsonObject(resolved.properties)) {
        for (const [name, value] of Object.entries(resolved.properties)) {
          if (Object.hasOwn(properties, name)) return undefined; // the same property twice: keep allOf's meaning
          properties[name] = value;
        }
      }
      if (Array.isArray(resolved.required)) {
        for (const name of resolved.required) if (!required.includes(name as string)) required.push(name as string);
      }
      if (resolved.additionalProperties !== undefined) additional = resolved.additionalProperties;
    }
    const merged: Json = { type: 'object', properties };
    for (const key of Object.keys(schema)) {
      if (key !== 'allOf' && !Object.hasOwn(merged, key)) merged[key] = schema[key];
    }
    if (isJsonObject(schema.properties)) Object.assign(properties, schema.properties);
    if (Array.isArray(schema.required)) required.push(...(schema.required as string[]));
    if (required.length > 0) merged.required = [...new Set(required)];
    if (additional !== undefined && merged.additionalProperties === undefined) merged.additionalProperties = additional;
    return { schema: merged, pointer };
  }

  private isRecursiveTarget(branch: unknown): boolean {
    return isJsonObject(branch) && typeof branch.$ref === 'string' && this.resolving.includes(branch.$ref);
  }

  private keyword(schema: Json, key: string, pointer: string, out: Json): void {
    const value = schema[key];
    const at = childPointer(pointer, key);
    if (ANNOTATIONS.has(key) || key.startsWith('x-')) return;
    switch (key) {
      case 'nullable':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        if (this.version === '3.1' && key !== 'nullable') {
          if (typeof value !== 'number') {
            throw new OpenApiError(at, `${key} must be a number in OpenAPI 3.1 (the boolean form is OpenAPI 3.0's)`);
          }
          out[key] = value;
        }
        return; // 3.0 forms are applied after every keyword is read
      case 'readOnly':
      case 'writeOnly':
        return; // applied by leaving properties out on one side; says nothing to the validator

      case 'format':
        if (typeof value === 'string' && knownFormat(value)) out.format = value;
        return;
      case 'pattern':
        if (typeof value !== 'string') throw new OpenApiError(at, 'pattern must be a string');
        this.checkPattern(value, at);
        out.pattern = value;
        return;
      case 'properties':
        out.properties = this.properties(value, at);
        return;
      case 'required':
        out.required = this.required(value, schema);
        return;
      case 'items':
      case 'additionalProperties':
      case 'not':
      case 'contains':
      case 'propertyNames':
      case 'if':
      case 'then':
      case 'else':
      case 'unevaluatedProperties':
      case 'unevaluatedItems':
        out[key] = typeof value === 'boolean' ? value : this.translate(value, at);
        return;
      case 'allOf':
      case 'oneOf':
      case 'anyOf':
      case 'prefixItems':
        if (!Array.isArray(value)) throw new OpenApiError(at, `${key} must be an array of schemas`);
        out[key] = value.map((branch, i) => this.translate(branch, childPointer(at, i), key === 'allOf'));
        return;
      case 'patternProperties':
      case 'dependentSchemas':
        if (!isJsonObject(value)) throw new OpenApiError(at, `${key} must be an object of schemas`);
        out[key] = Object.fromEntries(
          Object.entries(value).map(([name, sub]) => {
            if (key === 'patternProperties') this.checkPattern(name, at);
            return [name, this.translate(sub, childPointer(at, name))];
          }),
        );
        return;
      case '$defs':
      case 'definitions':
        return; // reached through $refs, which are resolved inline
      default:
        if (PASSED_THROUGH.has(key)) {
          out[key] = value;
          return;
        }
        throw new OpenApiError(at, `the keyword ${JSON.stringify(key)} is not supported`);
    }
  }

  private properties(value: unknown, at: string): Json {
    if (!isJsonObject(value)) throw new OpenApiError(at, 'properties must be an object of schemas');
    const out: Json = {};
    for (const name of Object.keys(value)) {
      if (this.leftOut(value[name], childPointer(at, name))) continue;
      // defineProperty: a property named `__proto__` stays an ordinary key
      Object.defineProperty(out, name, {
        value: this.translate(value[name], childPointer(at, name)),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }

  /** Required names, less the properties this direction leaves out (`readOnly` in input, `writeOnly` in output). */
  private required(value: unknown, schema: Json): unknown {
    if (!Array.isArray(value)) return value;
    const props = isJsonObject(schema.properties) ? schema.properties : {};
    return value.filter(
      (name) => typeof name !== 'string' || !Object.hasOwn(props, name) || !this.leftOut(props[name], ''),
    );
  }

  /** Whether a property is left out on this side of the call. */
  public leftOut(property: unknown, pointer: string): boolean {
    if (!isJsonObject(property)) return false;
    const { schema } = typeof property.$ref === 'string' ? this.follow(property, pointer) : { schema: property };
    const flag = this.direction === 'input' ? 'readOnly' : 'writeOnly';
    return (isJsonObject(schema) && schema[flag] === true) || property[flag] === true;
  }

  private applyNullable(schema: Json, out: Json): void {
    if (this.version !== '3.0' || schema.nullable !== true) return;
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
  }

  private applyExclusiveBounds(schema: Json, out: Json): void {
    if (this.version !== '3.0') return;
    for (const [flag, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (schema[flag] === true && typeof schema[bound] === 'number') {
        out[flag] = schema[bound];
        if (bound === 'minimum') delete out.minimum;
        else delete out.maximum;
      } else if (typeof schema[flag] === 'number') {
        out[flag] = schema[flag]; // already the 2020-12 form
      }
    }
  }

  private checkPattern(pattern: string, at: string): void {
    const problem = patternProblem(pattern);
    if (problem !== undefined) throw new OpenApiError(at, `pattern ${JSON.stringify(pattern)} ${problem}`);
  }
}

/** Keywords that say nothing to a validator: dropped from the tool's schema. */
const ANNOTATIONS = new Set([
  'title',
  'example',
  'examples',
  'xml',
  'externalDocs',
  'discriminator',
  'deprecated',
  '$comment',
  '$schema',
  '$id',
  '$anchor',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
]);

/** Keywords an `allOf` branch may have and still be merged into one object. */
const MERGEABLE = new Set(['type', 'properties', 'required', 'additionalProperties', 'description']);

/** JSON Schema keywords copied as they are (their values are not schemas). */
const PASSED_THROUGH = new Set([
  'type',
  'description',
  'default',
  'enum',
  'const',
  'multipleOf',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'minContains',
  'maxContains',
  'dependentRequired',
]);
