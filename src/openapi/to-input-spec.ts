import type { InputSpec, ParamSpec } from '../schema';
import { generateInputSchema } from '../schema';
import { CONSTRAINT_ORDER, isJsonObject, PARAM_TYPES } from '../validation';
import type { OperationParameter } from './operation-input';

type Json = Record<string, unknown>;

const TYPES: ReadonlySet<string> = new Set(PARAM_TYPES);
const FORMATS = new Set(['date-time', 'date', 'time', 'email', 'uri', 'uuid', 'hostname', 'ipv4', 'ipv6']);
/** Keywords copied as they are: the annotations and the constraints of the declared-input table (not the structure). */
const STRUCTURE = new Set(['format', 'items', 'properties', 'additionalProperties']);
const COPIED = ['description', 'default', ...CONSTRAINT_ORDER.filter((k) => !STRUCTURE.has(k))];
const KNOWN = new Set<string>([...COPIED, 'type', 'format', 'items', 'properties', 'required', 'additionalProperties']);

/**
 * The declared input (the `input` a hand-written `Service` would have) that generates exactly these parameters'
 * schemas, or `undefined` when some schema says more than declared input can (a type union, `oneOf`, `$ref`s to
 * `$defs`, a format declared input does not list, …); the tool then carries the translated schema as it is.
 */
export function toInputSpec(parameters: readonly OperationParameter[]): InputSpec | undefined {
  const spec: Record<string, ParamSpec> = {};
  for (const p of parameters) {
    const param = paramSpec(p.schema);
    if (param === undefined) return undefined;
    spec[p.name] = p.required ? { ...param, required: true } : param;
  }
  try {
    generateInputSchema(spec); // the declared-input rules (enum types, bounds in order, defaults, …)
  } catch {
    return undefined;
  }
  return spec;
}

/** The declared-input specs of those parameters that have one (for the call-shape line of a raw schema). */
export function partialInputSpec(parameters: readonly OperationParameter[]): InputSpec {
  const spec: Record<string, ParamSpec> = {};
  for (const p of parameters) {
    const param = paramSpec(p.schema);
    if (param !== undefined) spec[p.name] = p.required ? { ...param, required: true } : param;
  }
  return spec;
}

function paramSpec(schema: unknown): ParamSpec | undefined {
  if (!isJsonObject(schema) || typeof schema.type !== 'string' || !TYPES.has(schema.type)) return undefined;
  if (!Object.keys(schema).every((key) => KNOWN.has(key))) return undefined;
  const out: Json = { type: schema.type };
  for (const key of COPIED) if (schema[key] !== undefined) out[key] = schema[key];
  if (schema.format !== undefined) {
    if (typeof schema.format !== 'string' || !FORMATS.has(schema.format)) return undefined;
    out.format = schema.format;
  }
  if (schema.items !== undefined) {
    const items = paramSpec(schema.items);
    if (items === undefined) return undefined;
    out.items = items;
  }
  if (schema.type === 'object') {
    const extra = schema.additionalProperties;
    if (extra !== undefined && typeof extra !== 'boolean') return undefined;
    if (schema.properties === undefined) {
      if (extra === false || schema.required !== undefined) return undefined;
    } else {
      if (!isJsonObject(schema.properties)) return undefined;
      // declared input closes an object with properties unless it says additionalProperties: true
      if (extra === undefined) return undefined;
      const required = Array.isArray(schema.required) ? schema.required : [];
      const properties: Record<string, ParamSpec> = {};
      for (const [name, sub] of Object.entries(schema.properties)) {
        const spec = paramSpec(sub);
        if (spec === undefined) return undefined;
        properties[name] = required.includes(name) ? { ...spec, required: true } : spec;
      }
      if (required.some((name) => typeof name !== 'string' || !Object.hasOwn(properties, name))) return undefined;
      out.properties = properties;
      if (extra) out.additionalProperties = true;
    }
  } else if (
    schema.properties !== undefined ||
    schema.required !== undefined ||
    schema.additionalProperties !== undefined
  ) {
    return undefined;
  }
  return out as unknown as ParamSpec;
}
