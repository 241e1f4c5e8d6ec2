/**
 * How the scripted agent fixes its arguments from a refusal: a missing field gets a value derived from
 * its name and advertised schema, a wrong type is converted, an unknown field is dropped, an
 * out-of-range value is brought into range. No LLM: only the refusal text and `tools/list`.
 */
import { ParsedViolation, parsePath, PathSegment } from './refusal-message';

type Json = Record<string, unknown>;
type Schema = Record<string, unknown>;

/** The repaired arguments and one readable line per repair. */
export interface Repair {
  readonly args: Json;
  readonly notes: readonly string[];
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The advertised schema of the value at `path`, when the tool's input schema declares it. */
export function schemaAt(root: Schema | undefined, path: readonly PathSegment[]): Schema | undefined {
  let node: unknown = root;
  for (const seg of path) {
    if (!isObject(node)) return undefined;
    node = typeof seg === 'number' ? node.items : isObject(node.properties) ? node.properties[seg] : undefined;
  }
  return isObject(node) ? node : undefined;
}

function words(name: string): string {
  return name
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .trim();
}

/** A plausible value for a field, from its schema and name (what a careful agent would fill in). */
export function exampleValue(name: string, schema: Schema | undefined): unknown {
  if (schema === undefined) return `${words(name) || 'value'} (unknown)`;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  switch (schema.type) {
    case 'integer':
    case 'number': {
      if (typeof schema.minimum === 'number') return schema.minimum;
      if (typeof schema.exclusiveMinimum === 'number')
        return schema.type === 'integer' ? Math.floor(schema.exclusiveMinimum) + 1 : schema.exclusiveMinimum + 1;
      return typeof schema.maximum === 'number' && schema.maximum < 1 ? schema.maximum : 1;
    }
    case 'boolean':
      return false;
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return Array.from({ length: min }, () => exampleValue(name, isObject(schema.items) ? schema.items : undefined));
    }
    case 'object': {
      const out: Json = {};
      const props = isObject(schema.properties) ? schema.properties : {};
      for (const key of Array.isArray(schema.required) ? (schema.required as string[]) : []) {
        out[key] = exampleValue(key, isObject(props[key]) ? (props[key] as Schema) : undefined);
      }
      return out;
    }
    default:
      return exampleString(name, schema);
  }
}

function exampleString(name: string, schema: Schema): string {
  switch (schema.format) {
    case 'email':
      return `${words(name).replace(/\s+/g, '.') || 'someone'}@example.com`;
    case 'date-time':
      return new Date().toISOString();
    case 'date':
      return new Date().toISOString().slice(0, 10);
    case 'uri':
      return 'https://example.com/';
    case 'uuid':
      return '00000000-0000-4000-8000-000000000000';
    default:
      break;
  }
  let text =
    typeof schema.description === 'string' && schema.description.length <= 40
      ? schema.description
      : `${words(name) || 'value'} (filled in by the agent)`;
  if (typeof schema.maxLength === 'number') text = [...text].slice(0, schema.maxLength).join('');
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  while ([...text].length < min) text += '.';
  return text;
}

/** Converts a value to the expected JSON type, when it can be done without guessing. */
export function convertType(value: unknown, expected: string): { ok: true; value: unknown } | { ok: false } {
  switch (expected) {
    case 'integer':
    case 'number': {
      const n =
        typeof value === 'string' && value.trim() !== ''
          ? Number(value)
          : typeof value === 'boolean'
            ? Number(value)
            : NaN;
      if (!Number.isFinite(n)) return { ok: false };
      return { ok: true, value: expected === 'integer' ? Math.trunc(n) : n };
    }
    case 'string':
      if (value === null || value === undefined) return { ok: false };
      return { ok: true, value: typeof value === 'object' ? JSON.stringify(value) : String(value) };
    case 'boolean':
      if (value === 'true' || value === 1 || value === '1') return { ok: true, value: true };
      if (value === 'false' || value === 0 || value === '0') return { ok: true, value: false };
      return { ok: false };
    case 'array':
      return value === null || value === undefined ? { ok: false } : { ok: true, value: [value] };
    case 'object':
      if (typeof value === 'string') {
        try {
          const parsed: unknown = JSON.parse(value);
          if (isObject(parsed)) return { ok: true, value: parsed };
        } catch {
          /* not JSON */
        }
      }
      return { ok: false };
    default:
      return { ok: false };
  }
}

const indexOf = (path: readonly PathSegment[]): number => {
  const last = path[path.length - 1];
  return typeof last === 'number' ? last : -1;
};

function getAt(root: Json, path: readonly PathSegment[]): unknown {
  let node: unknown = root;
  for (const seg of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string | number, unknown>)[seg];
  }
  return node;
}

function setAt(root: Json, path: readonly PathSegment[], value: unknown): void {
  let node: Record<string | number, unknown> = root;
  path.slice(0, -1).forEach((seg, i) => {
    if (typeof node[seg] !== 'object' || node[seg] === null) node[seg] = typeof path[i + 1] === 'number' ? [] : {};
    node = node[seg] as Record<string | number, unknown>;
  });
  node[path[path.length - 1]] = value;
}

function deleteAt(root: Json, path: readonly PathSegment[]): void {
  const parent = getAt(root, path.slice(0, -1));
  const last = path[path.length - 1];
  if (Array.isArray(parent) && typeof last === 'number') parent.splice(last, 1);
  else if (isObject(parent) && typeof last === 'string') delete parent[last];
}

function fixValue(
  current: unknown,
  expected: string,
  schema: Schema | undefined,
  name: string,
): { ok: true; value: unknown } | { ok: false } {
  let m: RegExpExecArray | null;
  if ((m = /^one of (.+)$/.exec(expected)) !== null) {
    const first = /^("(?:[^"\\]|\\.)*"|[^,]+)/.exec(m[1]);
    try {
      return first === null ? { ok: false } : { ok: true, value: JSON.parse(first[1].trim()) };
    } catch {
      return { ok: false };
    }
  }
  if ((m = /^(>=|<=|>|<) (-?[\d.e+-]+)$/.exec(expected)) !== null) {
    const bound = Number(m[2]);
    const step = schema?.type === 'integer' ? 1 : Number.EPSILON * Math.max(1, Math.abs(bound));
    return { ok: true, value: m[1] === '>=' || m[1] === '<=' ? bound : m[1] === '>' ? bound + step : bound - step };
  }
  if ((m = /^at most (\d+) characters?$/.exec(expected)) !== null && typeof current === 'string') {
    return { ok: true, value: [...current].slice(0, Number(m[1])).join('') };
  }
  if ((m = /^at least (\d+) characters?$/.exec(expected)) !== null && typeof current === 'string') {
    return { ok: true, value: current.padEnd(Number(m[1]), '.') };
  }
  if ((m = /^at most (\d+) items?$/.exec(expected)) !== null && Array.isArray(current)) {
    return { ok: true, value: current.slice(0, Number(m[1])) };
  }
  if (expected === 'unique items' && Array.isArray(current)) {
    const seen = new Set<string>();
    return {
      ok: true,
      value: current.filter((v) => {
        const k = JSON.stringify(v);
        return seen.has(k) ? false : (seen.add(k), true);
      }),
    };
  }
  if (/^format /.test(expected) || /^at least \d+ items?$/.test(expected)) {
    return { ok: true, value: exampleValue(name, schema) };
  }
  return { ok: false };
}

/**
 * Applies every repair it can to a copy of `args`. A violation it cannot repair (a pattern it cannot
 * satisfy, a conversion that would be a guess) is left alone and reported in `notes` as not repaired.
 */
export function repairArguments(
  args: Json,
  violations: readonly ParsedViolation[],
  inputSchema: Schema | undefined,
): Repair {
  const out = structuredClone(args);
  const notes: string[] = [];
  // Deletions by index shift later siblings; apply unknown-field removals last, deepest/highest index first.
  const removals: PathSegment[][] = [];
  for (const v of violations) {
    if (v.kind === 'conflict') {
      delete out[v.alias];
      notes.push(`dropped \`${v.alias}\` (an alias of \`${v.parameter}\`, which is already set)`);
      continue;
    }
    const path = parsePath(v.path);
    const name = String(path.filter((s) => typeof s === 'string').pop() ?? 'value');
    const schema = schemaAt(inputSchema, path);
    switch (v.kind) {
      case 'missing': {
        const value = exampleValue(name, schema);
        setAt(out, path, value);
        notes.push(`added \`${v.path}\` = ${JSON.stringify(value)}`);
        break;
      }
      case 'unknown':
        removals.push(path);
        notes.push(`dropped \`${v.path}\``);
        break;
      case 'type': {
        const current = getAt(out, path);
        const converted = convertType(current, v.expected);
        if (converted.ok) {
          setAt(out, path, converted.value);
          notes.push(
            `converted \`${v.path}\` from ${JSON.stringify(current)} to ${JSON.stringify(converted.value)} (${v.expected})`,
          );
        } else {
          const value = exampleValue(name, schema ?? { type: v.expected });
          setAt(out, path, value);
          notes.push(
            `replaced \`${v.path}\` by ${JSON.stringify(value)} (${v.expected}; ${JSON.stringify(current)} does not convert)`,
          );
        }
        break;
      }
      case 'value': {
        const fixed = fixValue(getAt(out, path), v.expected, schema, name);
        if (fixed.ok) {
          setAt(out, path, fixed.value);
          notes.push(`set \`${v.path}\` to ${JSON.stringify(fixed.value)} (expected ${v.expected})`);
        } else {
          notes.push(`could not repair \`${v.path}\` (expected ${v.expected})`);
        }
        break;
      }
    }
  }
  removals.sort((a, b) => b.length - a.length || indexOf(b) - indexOf(a)).forEach((p) => deleteAt(out, p));
  return { args: out, notes };
}
