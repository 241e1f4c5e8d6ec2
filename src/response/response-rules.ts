/**
 * The checks of a tool's declared response controls, shared by synthesis (with the props' names) and config
 * loading (with the config's): each problem is the end of a sentence starting with the field it is about.
 */
import { isJsonObject, patternProblem } from '../validation';
import { compileLinearPattern } from '../regex/linear-regexp';
import { parseRedactPath, redactPathProblem, type PathStep } from './redact-path';

/** `response.fields`: keep every field (`all`) or only the declared ones (`declared`). */
export const RESPONSE_FIELDS = ['declared', 'all'] as const;
export type ResponseFields = (typeof RESPONSE_FIELDS)[number];

/** The largest `response.maxBytes` (64 MiB): past that a result is no longer something to hand an agent. */
export const MAX_RESPONSE_MAX_BYTES = 67_108_864;

/** A name of `redactPatterns`: names the pattern in docs and messages. */
export const REDACT_PATTERN_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** One problem, located by the field it is about (`redact[1]`, `redactPatterns.card`, `maxBytes`). */
export interface ResponseProblem {
  /** Which setting: `fields`, `redact`, `redactPatterns` or `maxBytes`, with an index or name. */
  readonly where: { readonly setting: 'fields' | 'redact' | 'redactPatterns' | 'maxBytes'; readonly at?: string };
  /** The end of a sentence starting with the setting and its value. */
  readonly problem: string;
}

/** The settings, as the constructs and the config both hold them. */
export interface ResponseSettings {
  readonly fields?: unknown;
  readonly redact?: unknown;
  readonly redactPatterns?: unknown;
  readonly maxBytes?: unknown;
}

/**
 * The first problem of a tool's response settings; `undefined` when they can be served.
 * @param output the declared output schema, when there is one
 */
export function responseSettingsProblem(
  settings: ResponseSettings,
  output: Record<string, unknown> | undefined,
): ResponseProblem | undefined {
  const { fields, redact, redactPatterns, maxBytes } = settings;
  if (fields !== undefined && !RESPONSE_FIELDS.includes(fields as ResponseFields)) {
    return { where: { setting: 'fields' }, problem: `must be 'declared' or 'all'` };
  }
  if (fields === 'declared' && output === undefined) {
    return {
      where: { setting: 'fields' },
      problem: `is 'declared', but the service declares no output: declare its output, or remove fields`,
    };
  }
  if (redact !== undefined) {
    if (!Array.isArray(redact)) return { where: { setting: 'redact' }, problem: 'must be an array of paths' };
    for (const [i, path] of redact.entries()) {
      const at = `[${i}]`;
      if (typeof path !== 'string') return { where: { setting: 'redact', at }, problem: 'must be a path (a string)' };
      const steps = parseRedactPath(path);
      if (typeof steps === 'string') return { where: { setting: 'redact', at }, problem: steps };
      const problem = output === undefined ? undefined : redactPathProblem(steps, output);
      if (problem !== undefined) {
        return { where: { setting: 'redact', at }, problem: `${problem}: name a declared string field` };
      }
    }
  }
  if (redactPatterns !== undefined) {
    if (!isJsonObject(redactPatterns)) {
      return { where: { setting: 'redactPatterns' }, problem: 'must be an object mapping names to patterns' };
    }
    for (const name of Object.keys(redactPatterns)) {
      const source = redactPatterns[name];
      const at = name;
      if (!REDACT_PATTERN_NAME.test(name)) {
        return {
          where: { setting: 'redactPatterns', at },
          problem: `has a name that is not ${REDACT_PATTERN_NAME.source}`,
        };
      }
      if (typeof source !== 'string' || source === '') {
        return { where: { setting: 'redactPatterns', at }, problem: 'must be a non-empty pattern (a string)' };
      }
      const problem = patternProblem(source);
      if (problem !== undefined) return { where: { setting: 'redactPatterns', at }, problem };
      if (matchesEmpty(source)) {
        return {
          where: { setting: 'redactPatterns', at },
          problem:
            'matches the empty string, so it would redact between every character; make it match at least one character',
        };
      }
      const renamed = output === undefined ? undefined : declaredNames(output).find((n) => matchesIn(source, n));
      if (renamed !== undefined) {
        return {
          where: { setting: 'redactPatterns', at },
          problem: `matches the declared field name ${JSON.stringify(renamed)}, which redaction would rename; make the pattern match only values`,
        };
      }
    }
  }
  if (maxBytes !== undefined) {
    if (
      typeof maxBytes !== 'number' ||
      !Number.isInteger(maxBytes) ||
      maxBytes < 1 ||
      maxBytes > MAX_RESPONSE_MAX_BYTES
    ) {
      return {
        where: { setting: 'maxBytes' },
        problem: `must be an integer between 1 and ${MAX_RESPONSE_MAX_BYTES} (bytes)`,
      };
    }
  }
  return undefined;
}

/** Every property name the schema declares, at any depth (where a pattern must not match: keys are redacted too). */
function declaredNames(schema: Record<string, unknown>): string[] {
  const names = new Set<string>();
  const stack: unknown[] = [schema];
  const seen = new Set<unknown>();
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    const properties = (node as Record<string, unknown>).properties;
    if (isJsonObject(properties)) for (const name of Object.keys(properties)) names.add(name);
    for (const value of Object.values(node)) if (typeof value === 'object' && value !== null) stack.push(value);
  }
  return [...names];
}

function matchesIn(source: string, text: string): boolean {
  return compileLinearPattern(source).test(text);
}

/** A replacement no probe holds. */
const MARK = '\u0000';

/** Whether a pattern can match the empty string (probed at the start, end and middle of short strings). */
function matchesEmpty(source: string): boolean {
  const re = compileLinearPattern(source);
  if (re.test('')) return true;
  for (const probe of ['a', '0', ' ', '-', '.', 'é', 'aa', '00']) {
    const marked = re.replaceAll(probe, MARK);
    // A match of one character or more consumes it; a match of none leaves every character and adds a mark.
    if (marked !== probe && marked.split(MARK).join('') === probe) return true;
  }
  return false;
}

/** The parsed paths of settings that passed {@link responseSettingsProblem}. */
export function redactSteps(redact: readonly string[] | undefined): readonly (readonly PathStep[])[] {
  return (redact ?? []).map((path) => parseRedactPath(path) as readonly PathStep[]);
}
