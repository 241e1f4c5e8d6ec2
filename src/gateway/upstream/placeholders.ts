import { invalidValue, joinMessages, keyPath, missingRequired, type Violation } from '../../validation';

/**
 * One `{field}` placeholder of a backend URL, prepared once per config: which parameter fills it and, for one in
 * the path, the path segment it stands in.
 */
export interface PlaceholderSlot {
  /** The parameter the caller sends (before `forwardAs`): refusals name it. */
  readonly param: string;
  /** The forwarded field name in the URL template. */
  readonly field: string;
  /**
   * For a placeholder in the path: its path segment as literal text and placeholder indices (into the URL parts),
   * `[index]` alone when the placeholder is the whole segment. `undefined` for a placeholder in the query.
   */
  readonly segment: readonly (string | number)[] | undefined;
  /** Whether the placeholder is its whole path segment (the common `/customers/{id}`): the value alone decides. */
  readonly alone: boolean;
}

/** A refusal of the arguments a URL cannot carry, in the shape of a validation refusal (see docs/input-and-validation.md). */
export interface PlaceholderProblem {
  readonly message: string;
  readonly violations: readonly Violation[];
}

const SEGMENT_EXPECTATION = 'expected a non-empty path segment other than "." or ".."';

/**
 * The slots of a URL template split around its placeholders (literal text at even indices, field names at odd
 * ones). `forwardAs` is `[parameter, field]` pairs: a field filled from a renamed parameter is named by that
 * parameter.
 */
export function planPlaceholders(
  urlParts: readonly string[],
  forwardAs: readonly (readonly [string, string])[],
): PlaceholderSlot[] {
  const slots: PlaceholderSlot[] = [];
  let inPath = true;
  for (let i = 1; i < urlParts.length; i += 2) {
    if (/[?#]/.test(urlParts[i - 1])) inPath = false;
    const field = urlParts[i];
    const renamed = forwardAs.find(([, to]) => to === field);
    const param = renamed !== undefined ? renamed[0] : field;
    const segment = inPath ? segmentOf(urlParts, i) : undefined;
    slots.push({ param, field, segment, alone: segment !== undefined && segment.length === 1 });
  }
  return slots;
}

/** The path segment around the placeholder at `index`: from the `/` before it to the `/`, `?` or `#` after it. */
function segmentOf(parts: readonly string[], index: number): (string | number)[] {
  const items: (string | number)[] = [index];
  for (let j = index - 1; j >= 0; j -= 2) {
    const slash = parts[j].lastIndexOf('/');
    const text = slash === -1 ? parts[j] : parts[j].slice(slash + 1);
    if (text !== '') items.unshift(text);
    if (slash !== -1 || j === 0) break;
    items.unshift(j - 1);
  }
  for (let j = index + 1; j < parts.length; j += 2) {
    const end = parts[j].search(/[/?#]/);
    const text = end === -1 ? parts[j] : parts[j].slice(0, end);
    if (text !== '') items.push(text);
    if (end !== -1 || j + 1 >= parts.length) break;
    items.push(j + 1);
  }
  return items;
}

/**
 * What the URL of a call cannot carry, checked whatever `validate_input` says (the gateway must not send a call
 * elsewhere than the declared endpoint): a placeholder's parameter that is absent, and a filled path segment that
 * is empty, `.` or `..` (URL parsers resolve dot segments, also `%2e`, so the call would reach another path).
 * Messages never contain the values.
 *
 * @param fields the forwarded fields (after `forwardAs`) by name
 * @param encode how a value is written into the URL (the same as the request builder's)
 */
export function placeholderProblem(
  slots: readonly PlaceholderSlot[],
  urlParts: readonly string[],
  fields: Readonly<Record<string, unknown>>,
  encode: (value: unknown) => string,
): PlaceholderProblem | undefined {
  let violations: Violation[] | undefined;
  for (const slot of slots) {
    const value = ownValue(fields, slot.field);
    let violation: Violation | undefined;
    if (value === undefined) {
      violation = missingRequired(keyPath('', slot.param));
    } else if (
      slot.alone
        ? isDotOrEmptyValue(value)
        : slot.segment !== undefined && isDotOrEmpty(segmentText(slot.segment, urlParts, fields, encode))
    ) {
      violation = invalidValue(keyPath('', slot.param), 'pathSegment', SEGMENT_EXPECTATION);
    }
    if (violation !== undefined) (violations ??= []).push(violation);
  }
  return violations === undefined ? undefined : { message: joinMessages(violations), violations };
}

function segmentText(
  segment: readonly (string | number)[],
  urlParts: readonly string[],
  fields: Readonly<Record<string, unknown>>,
  encode: (value: unknown) => string,
): string {
  let text = '';
  for (const item of segment) text += typeof item === 'string' ? item : encode(ownValue(fields, urlParts[item]));
  return text;
}

/**
 * For a placeholder that is its whole segment, without encoding the value: encoding keeps `.` and writes any other
 * text (and every non-string value) as something other than `""`, `.` or `..`.
 */
function isDotOrEmptyValue(value: unknown): boolean {
  return value === '' || value === '.' || value === '..';
}

function isDotOrEmpty(segment: string): boolean {
  if (segment.length > 6) return false;
  const dots = segment.toLowerCase().replace(/%2e/g, '.');
  return dots === '' || dots === '.' || dots === '..';
}

/**
 * The field of that name if it is the object's own, else `undefined`: `constructor`, `toString`, `__proto__` and
 * the like are ordinary names, never values inherited from `Object.prototype`.
 */
export function ownValue(fields: Readonly<Record<string, unknown>>, name: string): unknown {
  return Object.hasOwn(fields, name) ? fields[name] : undefined;
}
