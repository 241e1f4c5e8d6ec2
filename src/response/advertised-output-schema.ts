/**
 * The `outputSchema` a tool advertises: the declared one, loosened where redaction may replace a value.
 * `[redacted]` is no email address and matches no declared pattern, so a client checking the advertised schema
 * (the MCP specification asks clients to) would refuse a redacted result. The gateway validates a response
 * against the declared schema before redaction; the advertised one drops the string constraints that
 * `[redacted]` could break (`enum`, `const`, `format`, `pattern`, `minLength`, `maxLength`) at every redacted
 * path, and with `redactPatterns` at every string; with `redactPatterns` a number may also become the string of
 * its redacted text, so every number admits a string too. (A pattern never renames a declared key: synthesis and
 * config loading refuse one that matches a declared field's name.)
 */
import { isJsonObject } from '../validation';
import { SCHEMA_ARRAYS, SCHEMA_MAPS, SCHEMA_VALUED } from '../validation/subschemas';
import type { PathStep } from './redact-path';

const STRING_CONSTRAINTS = ['enum', 'const', 'format', 'pattern', 'minLength', 'maxLength'] as const;

/**
 * @param declared the declared output schema (not changed)
 * @param paths the parsed redaction paths
 * @param everyString whether patterns may change any string
 */
export function advertisedOutputSchema(
  declared: Record<string, unknown>,
  paths: readonly (readonly PathStep[])[],
  everyString: boolean,
): Record<string, unknown> {
  if (paths.length === 0 && !everyString) return declared;
  const copy = JSON.parse(JSON.stringify(declared)) as Record<string, unknown>;
  if (everyString) loosenEveryString(copy);
  for (const steps of paths) loosenAt(copy, steps, 0);
  return copy;
}

function admitsString(node: Record<string, unknown>): boolean {
  const t = node.type;
  return t === undefined || t === 'string' || (Array.isArray(t) && t.includes('string'));
}

function loosen(node: Record<string, unknown>): void {
  if (!admitsString(node)) return;
  for (const keyword of STRING_CONSTRAINTS) Reflect.deleteProperty(node, keyword);
}

/** A number or integer may become a string (`"[redacted]"`, or its text with a match redacted). */
function admitRedactedNumber(node: Record<string, unknown>): void {
  const t = node.type;
  const types = Array.isArray(t) ? (t as unknown[]) : [t];
  if (!types.includes('number') && !types.includes('integer')) return;
  if (!types.includes('string')) node.type = [...types, 'string'];
  Reflect.deleteProperty(node, 'enum');
  Reflect.deleteProperty(node, 'const');
}

function loosenEveryString(root: Record<string, unknown>): void {
  const stack: Record<string, unknown>[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    loosen(node);
    admitRedactedNumber(node);
    for (const keyword of SCHEMA_VALUED) if (isJsonObject(node[keyword])) stack.push(node[keyword]);
    for (const keyword of SCHEMA_ARRAYS) {
      const list = node[keyword];
      if (Array.isArray(list)) for (const sub of list) if (isJsonObject(sub)) stack.push(sub);
    }
    for (const keyword of SCHEMA_MAPS) {
      const map = node[keyword];
      if (isJsonObject(map)) for (const key of Object.keys(map)) if (isJsonObject(map[key])) stack.push(map[key]);
    }
  }
}

function loosenAt(node: unknown, steps: readonly PathStep[], index: number): void {
  if (!isJsonObject(node)) return;
  if (index === steps.length) {
    loosen(node);
    return;
  }
  const step = steps[index];
  if (step.kind === 'element') {
    loosenAt(node.items, steps, index + 1);
    return;
  }
  const properties = isJsonObject(node.properties) ? node.properties : undefined;
  if (step.kind === 'anyKey') {
    if (properties !== undefined)
      for (const key of Object.keys(properties)) loosenAt(properties[key], steps, index + 1);
  } else if (properties !== undefined && Object.prototype.hasOwnProperty.call(properties, step.key)) {
    loosenAt(properties[step.key], steps, index + 1);
    return;
  }
  loosenAt(node.additionalProperties, steps, index + 1);
}
