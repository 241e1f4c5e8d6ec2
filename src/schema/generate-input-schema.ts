import {
  CONSTRAINT_ORDER,
  type ConstraintName,
  hasOwn,
  isJsonObject,
  isReservedName,
  keyPath,
  PARAM_TYPES,
  patternProblem,
  reservedNameReason,
  typesOf,
} from '../validation';
import { InputSpecError } from './input-spec-error';
import { InputSpec, ParamSpec, ParamType, StringFormat } from './input-spec';

const TYPES: readonly ParamType[] = PARAM_TYPES;
const FORMATS: readonly StringFormat[] = [
  'date-time',
  'date',
  'time',
  'email',
  'uri',
  'uuid',
  'hostname',
  'ipv4',
  'ipv6',
];

// Which types each constraint applies to, in the order attributes are emitted: the shared table.
const CONSTRAINTS: readonly (readonly [keyof ParamSpec, readonly ParamType[]])[] = CONSTRAINT_ORDER.map(
  (name) => [name, typesOf(name)] as const,
);
const OTHER_ATTRIBUTES: readonly (keyof ParamSpec)[] = [
  'type',
  'required',
  'description',
  'default',
  'aliases',
  'forwardAs',
];
const ATTRIBUTES: readonly string[] = [...OTHER_ATTRIBUTES, ...CONSTRAINTS.map(([name]) => name)];

const quoted = (xs: readonly string[]): string => xs.join(', ');
const show = (value: unknown): string =>
  typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));

/** Where a spec sits: its argument path, and whether it is a top-level parameter or an array's items. */
interface Place {
  readonly path: string;
  readonly topLevel: boolean;
  readonly items: boolean;
}

/**
 * The JSON Schema 2020-12 a tool advertises for a declared input (see docs/input-and-validation.md).
 *
 * Deterministic: properties keep their declaration order, attributes a fixed order; `required` is present only
 * when non-empty; `aliases`, `forwardAs` and the per-parameter `required` flags are never advertised.
 * No `$schema` is emitted: the generated subset reads the same in draft-07 and 2020-12, and MCP's default
 * dialect is 2020-12.
 *
 * @throws InputSpecError naming the parameter path and how to fix it, for an input that cannot be served
 * @example
 * generateInputSchema({ customer_id: { type: 'string', required: true } });
 * // { type: 'object', properties: { customer_id: { type: 'string' } }, required: ['customer_id'], additionalProperties: false }
 */
export function generateInputSchema(input: InputSpec | undefined): Record<string, unknown> {
  if (input === undefined) return { type: 'object', properties: {}, additionalProperties: false };
  if (!isJsonObject(input)) {
    throw new InputSpecError(
      '',
      "expected an object mapping parameter names to parameter specs, e.g. { id: { type: 'string' } }",
    );
  }
  checkTopLevelNames(input);
  return objectSchema(input, '', true, false);
}

function objectSchema(properties: InputSpec, path: string, topLevel: boolean, open: boolean): Record<string, unknown> {
  const props: Record<string, unknown> = {};
  const required: string[] = [];
  for (const name of Object.keys(properties)) {
    const childPath = keyPath(path, name);
    if (name === '') throw new InputSpecError(path, 'a parameter name is empty; give every parameter a name');
    if (name === '__proto__')
      throw new InputSpecError(childPath, 'the name "__proto__" is not supported; choose another name');
    // defineProperty: a parameter named `__proto__` must stay an ordinary key of the schema.
    Object.defineProperty(props, name, {
      value: paramSchema(properties[name], { path: childPath, topLevel, items: false }),
      enumerable: true,
      writable: true,
      configurable: true,
    });
    if (properties[name].required === true) required.push(name);
  }
  const schema: Record<string, unknown> = { type: 'object', properties: props };
  if (required.length > 0) schema.required = required;
  schema.additionalProperties = open;
  return schema;
}

function paramSchema(spec: ParamSpec, place: Place): Record<string, unknown> {
  const { path } = place;
  if (!isJsonObject(spec)) {
    throw new InputSpecError(path, "expected a parameter spec object such as { type: 'string' }");
  }
  for (const key of Object.keys(spec)) {
    if (!ATTRIBUTES.includes(key)) {
      throw new InputSpecError(path, `unknown attribute "${key}"; use one of ${quoted(ATTRIBUTES)}`);
    }
  }
  const type = spec.type;
  if (typeof type !== 'string' || !TYPES.includes(type)) {
    const got = type === undefined ? 'missing type' : `unknown type ${JSON.stringify(type)}`;
    throw new InputSpecError(path, `${got}; use one of ${quoted(TYPES)}`);
  }
  checkGeneralAttributes(spec, place);
  for (const [name, types] of CONSTRAINTS) {
    if (spec[name] !== undefined && !types.includes(type)) {
      throw new InputSpecError(
        path,
        `${name} applies to ${quoted(types)} parameters, not ${type}; remove it or change the type`,
      );
    }
  }
  checkNumbers(spec, path);
  checkOrder(spec, path, 'minimum', 'maximum');
  checkOrder(spec, path, 'minLength', 'maxLength');
  checkOrder(spec, path, 'minItems', 'maxItems');

  const schema: Record<string, unknown> = { type };
  if (spec.description !== undefined) schema.description = spec.description;
  // the constraints in the table's order; most are written as declared, these are checked or converted first
  const written: Partial<Record<ConstraintName, () => unknown>> = {
    enum: () => checkEnum(spec.enum, type, path),
    pattern: () => checkPattern(spec.pattern, path),
    format: () => checkFormat(spec.format, path),
    uniqueItems: () => {
      if (typeof spec.uniqueItems !== 'boolean') throw new InputSpecError(path, 'uniqueItems must be true or false');
      // No maxItems needed: uniqueness is checked in linear time, whatever the elements (validation/unique-items.ts).
      return spec.uniqueItems ? true : undefined;
    },
    items: () => paramSchema(spec.items!, { path: `${path}[]`, topLevel: false, items: true }),
  };
  for (const name of CONSTRAINT_ORDER) {
    // an object's properties are written by nestedObject, with their own checks
    if (spec[name] === undefined || name === 'properties' || name === 'additionalProperties') continue;
    const value = written[name] === undefined ? spec[name] : written[name]();
    if (value !== undefined) schema[name] = value;
  }
  if (type === 'object') Object.assign(schema, nestedObject(spec, path));
  if (spec.default !== undefined) schema.default = checkDefault(spec.default, type, path);
  return schema;
}

function checkGeneralAttributes(spec: ParamSpec, place: Place): void {
  const { path } = place;
  if (spec.required !== undefined && typeof spec.required !== 'boolean') {
    throw new InputSpecError(path, 'required must be true or false');
  }
  if (place.items && spec.required !== undefined) {
    throw new InputSpecError(
      path,
      'required has no meaning on array items; remove it (use minItems to require elements)',
    );
  }
  if (spec.description !== undefined && typeof spec.description !== 'string') {
    throw new InputSpecError(path, 'description must be a string');
  }
  for (const name of ['aliases', 'forwardAs'] as const) {
    if (spec[name] !== undefined && !place.topLevel) {
      throw new InputSpecError(
        path,
        `${name} is only supported on top-level parameters; remove it from this nested one`,
      );
    }
  }
  if (spec.forwardAs !== undefined && (typeof spec.forwardAs !== 'string' || spec.forwardAs === '')) {
    throw new InputSpecError(path, 'forwardAs must be a non-empty string naming the backend field');
  }
  if (
    spec.aliases !== undefined &&
    (!Array.isArray(spec.aliases) || spec.aliases.some((a) => typeof a !== 'string' || a === ''))
  ) {
    throw new InputSpecError(path, 'aliases must be an array of non-empty strings');
  }
}

const NON_NEGATIVE_INTEGERS = ['minLength', 'maxLength', 'minItems', 'maxItems'] as const;
const FINITE_NUMBERS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const;

function checkNumbers(spec: ParamSpec, path: string): void {
  for (const name of FINITE_NUMBERS) {
    const value = spec[name];
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) {
      throw new InputSpecError(path, `${name} must be a finite number, got ${show(value)}`);
    }
  }
  for (const name of NON_NEGATIVE_INTEGERS) {
    const value = spec[name];
    if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < 0)) {
      throw new InputSpecError(path, `${name} must be a non-negative integer, got ${show(value)}`);
    }
  }
}

function checkOrder(spec: ParamSpec, path: string, low: keyof ParamSpec, high: keyof ParamSpec): void {
  const a = spec[low];
  const b = spec[high];
  if (typeof a === 'number' && typeof b === 'number' && a > b) {
    throw new InputSpecError(path, `${low} (${a}) must be <= ${high} (${b}); no value could pass`);
  }
}

function sameType(value: unknown, type: ParamType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isJsonObject(value);
  }
}

function checkEnum(values: unknown, type: ParamType, path: string): unknown[] {
  if (!Array.isArray(values) || values.length === 0) {
    throw new InputSpecError(path, 'enum must be a non-empty array of the allowed values');
  }
  values.forEach((value, i) => {
    if (value === null) {
      throw new InputSpecError(
        path,
        'enum must not contain null; an optional parameter is expressed by leaving it out',
      );
    }
    if (!sameType(value, type)) {
      throw new InputSpecError(
        path,
        `enum value ${show(value)} (at index ${i}) is not of type ${type}; list only ${type} values`,
      );
    }
    if (values.indexOf(value) !== i) {
      throw new InputSpecError(path, `enum lists ${JSON.stringify(value)} twice; list each allowed value once`);
    }
  });
  return [...values];
}

function checkPattern(pattern: unknown, path: string): string {
  if (typeof pattern !== 'string')
    throw new InputSpecError(path, 'pattern must be a string holding a regular expression', 'pattern');
  // The validator runs patterns on a linear-time engine (unicode mode): what it cannot run is refused here.
  const problem = patternProblem(pattern);
  if (problem !== undefined) throw new InputSpecError(path, `pattern ${JSON.stringify(pattern)} ${problem}`, 'pattern');
  return pattern;
}

function checkFormat(format: unknown, path: string): StringFormat {
  if (!FORMATS.includes(format as StringFormat)) {
    throw new InputSpecError(
      path,
      `unsupported format ${JSON.stringify(format)}; use one of ${quoted(FORMATS)}, or a pattern`,
    );
  }
  return format as StringFormat;
}

function nestedObject(spec: ParamSpec, path: string): Record<string, unknown> {
  if (spec.additionalProperties !== undefined && typeof spec.additionalProperties !== 'boolean') {
    throw new InputSpecError(path, 'additionalProperties must be true or false');
  }
  if (spec.properties === undefined) {
    if (spec.additionalProperties === false) {
      throw new InputSpecError(
        path,
        'additionalProperties: false without properties would accept only {}; declare properties',
      );
    }
    return {}; // an intentionally open map: only type-checked
  }
  if (!isJsonObject(spec.properties)) {
    throw new InputSpecError(path, 'properties must be an object mapping property names to parameter specs');
  }
  const nested = objectSchema(spec.properties, path, false, spec.additionalProperties === true);
  delete nested.type;
  return nested;
}

function checkDefault(value: unknown, type: ParamType, path: string): unknown {
  if (!sameType(value, type)) {
    throw new InputSpecError(
      path,
      `default must be of type ${type}, like the parameter (it is advertised, never applied)`,
    );
  }
  try {
    return JSON.parse(JSON.stringify(value));
  } catch {
    throw new InputSpecError(path, 'default must be a JSON value');
  }
}

function checkTopLevelNames(input: InputSpec): void {
  // Which parameter each advertised name, alias and backend field belongs to.
  const owner = new Map<string, string>();
  for (const name of Object.keys(input)) owner.set(name, name);
  const backend = new Map<string, string>();
  for (const name of Object.keys(input)) {
    const path = keyPath('', name);
    if (isReservedName(name))
      throw new InputSpecError(path, `the name ${reservedNameReason(name)}; choose another name`);
    const spec = input[name];
    if (!isJsonObject(spec)) continue; // reported with its path while generating
    const aliases: unknown = spec.aliases;
    if (Array.isArray(aliases)) {
      for (const alias of aliases) {
        if (typeof alias !== 'string') continue;
        if (isReservedName(alias))
          throw new InputSpecError(path, `alias ${reservedNameReason(alias)}; choose another alias`);
        if (alias === name) throw new InputSpecError(path, `alias "${alias}" is the parameter's own name; remove it`);
        const taken = owner.get(alias);
        if (taken !== undefined) {
          const what = hasOwn(input, alias)
            ? `the parameter \`${keyPath('', alias)}\``
            : `an alias of \`${keyPath('', taken)}\``;
          throw new InputSpecError(path, `alias "${alias}" clashes with ${what}; choose another alias`);
        }
        owner.set(alias, name);
      }
    }
    if (typeof spec.forwardAs === 'string' && isReservedName(spec.forwardAs)) {
      throw new InputSpecError(
        path,
        `forwardAs ${reservedNameReason(spec.forwardAs)}; choose another backend field name`,
      );
    }
    const field = typeof spec.forwardAs === 'string' ? spec.forwardAs : name;
    const other = backend.get(field);
    if (other !== undefined) {
      throw new InputSpecError(
        path,
        `forwardAs sends it to the backend field "${field}", which \`${keyPath('', other)}\` also uses; choose distinct backend fields`,
      );
    }
    backend.set(field, name);
  }
}
