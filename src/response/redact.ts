/**
 * Redaction: the string values at declared paths, and every match of the declared patterns in any string, become
 * `[redacted]`. Works in place on a freshly parsed response (the gateway's own copy); never changes the shape:
 * only string values change, and they stay strings.
 */
import type { LinearRegExp } from '../validation/linear-regexp';
import type { PathStep } from './redact-path';

/** What a redacted value or match becomes. */
export const REDACTED = '[redacted]';

/** Replaces the string values at `paths` in `root`; returns how many were replaced. */
export function redactPaths(root: unknown, paths: readonly (readonly PathStep[])[]): number {
  let count = 0;
  for (const steps of paths) count += redactAt(root, steps, 0);
  return count;
}

function redactAt(node: unknown, steps: readonly PathStep[], index: number): number {
  if (typeof node !== 'object' || node === null) return 0;
  const step = steps[index];
  const last = index === steps.length - 1;
  if (step.kind === 'element') {
    if (!Array.isArray(node)) return 0;
    let count = 0;
    for (let i = 0; i < node.length; i++) {
      if (last) {
        if (typeof node[i] === 'string') {
          node[i] = REDACTED;
          count++;
        }
      } else count += redactAt(node[i], steps, index + 1);
    }
    return count;
  }
  if (Array.isArray(node)) return 0;
  const record = node as Record<string, unknown>;
  if (step.kind === 'key') return redactKey(record, step.key, steps, index, last);
  let count = 0;
  for (const key of Object.keys(record)) count += redactKey(record, key, steps, index, last);
  return count;
}

function redactKey(
  record: Record<string, unknown>,
  key: string,
  steps: readonly PathStep[],
  index: number,
  last: boolean,
): number {
  if (!Object.prototype.hasOwnProperty.call(record, key)) return 0;
  if (!last) return redactAt(record[key], steps, index + 1);
  if (typeof record[key] !== 'string') return 0;
  record[key] = REDACTED;
  return 1;
}

/**
 * Replaces every match of `patterns` in every string value of `root` (not in keys); returns the value (a string
 * root is returned replaced), how many strings changed and how many there are.
 *
 * The engine's cost per string call is high next to its cost per character, so a pattern is first searched once
 * in every string joined by U+0000 (one pass): a pattern that matches nowhere there matches in no string, and only
 * a pattern that does is run string by string. A pattern with `^` or `$` is always run string by string (it
 * anchors to each string's ends, which the joined text does not have), and so is every pattern when there are
 * few strings (the joined search would read them all once more for nothing when one matches).
 */
export function redactMatches(
  root: unknown,
  patterns: readonly LinearRegExp[],
): { value: unknown; count: number; strings: number } {
  if (typeof root === 'string') {
    const replaced = redactText(root, patterns);
    return { value: replaced, count: replaced === root ? 0 : 1, strings: 1 };
  }
  const slots = stringSlots(root);
  const { texts } = slots;
  if (texts.length === 0) return { value: root, count: 0, strings: 0 };
  let joined: string | undefined;
  let changed: Uint8Array | undefined;
  let count = 0;
  for (const pattern of patterns) {
    if (texts.length > FEW_STRINGS && !anchorsToEnds(pattern)) {
      joined ??= texts.join(SEPARATOR);
      if (!pattern.test(joined)) continue;
    }
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i];
      const replaced = pattern.replaceAll(text, REDACTED);
      if (replaced !== text) {
        texts[i] = replaced;
        (slots.holders[i] as Record<string | number, unknown>)[slots.keys[i]] = replaced;
        changed ??= new Uint8Array(texts.length);
        if (changed[i] === 0) count++;
        changed[i] = 1;
      }
    }
    joined = undefined; // the strings changed: join again for the next pattern
  }
  return { value: root, count, strings: texts.length };
}

/**
 * Joins the strings for the one-pass search. A match found across it is only a reason to search string by string;
 * a match inside one string is found either way (the separator is a non-word character, like a string's ends).
 */
const SEPARATOR = '\u0000';

/**
 * Whether a pattern may use `^` or `$` (read from its source, so a literal `\^` counts too: the safe side). Such a
 * pattern anchors to each string's own ends, which no joined or serialized text has, so it is always searched
 * string by string.
 */
export function anchorsToEnds(pattern: LinearRegExp): boolean {
  return /[\^$]/.test(pattern.source);
}

/** Up to this many strings, each is searched by itself: one joined search first saves nothing. */
export const FEW_STRINGS = 8;

/** A value with more elements and members than this counts as one of many strings, whatever they hold. */
const FEW_STRINGS_ITEMS = 256;

/**
 * Whether `root` is a small value holding at most {@link FEW_STRINGS} string values (not keys). Stops at the
 * string after, or after {@link FEW_STRINGS_ITEMS} elements and members of any kind: a value of many numbers, or
 * an object of many keys, is not walked whole for an answer that only chooses the quicker search (either choice
 * finds the same matches).
 */
export function hasFewStrings(root: unknown): boolean {
  if (typeof root === 'string') return true;
  let strings = 0;
  let items = 0;
  const stack: unknown[] = [root];
  const visit = (item: unknown): boolean => {
    if (++items > FEW_STRINGS_ITEMS) return false;
    if (typeof item === 'string') return ++strings <= FEW_STRINGS;
    if (typeof item === 'object' && item !== null) stack.push(item);
    return true;
  };
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      for (const item of node) if (!visit(item)) return false;
    } else {
      // for…in, not Object.values: a value of 60,000 keys is left after the first few, not copied whole first
      for (const key in node) {
        if (Object.prototype.hasOwnProperty.call(node, key) && !visit((node as Record<string, unknown>)[key])) {
          return false;
        }
      }
    }
  }
  return true;
}

/** The string values of a response: each one's text, and the object or array holding it under which key. */
interface StringSlots {
  readonly texts: string[];
  readonly holders: object[];
  readonly keys: (string | number)[];
}

/** Every string value under `root` (not keys); iterative, in no particular order. */
function stringSlots(root: unknown): StringSlots {
  const slots: StringSlots = { texts: [], holders: [], keys: [] };
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item: unknown = node[i];
        if (typeof item === 'string') {
          slots.texts.push(item);
          slots.holders.push(node);
          slots.keys.push(i);
        } else if (typeof item === 'object' && item !== null) stack.push(item);
      }
      continue;
    }
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (typeof item === 'string') {
        slots.texts.push(item);
        slots.holders.push(record);
        slots.keys.push(key);
      } else if (typeof item === 'object' && item !== null) stack.push(item);
    }
  }
  return slots;
}

/** `text` with every match of every pattern replaced (the same string when nothing matched). */
export function redactText(text: string, patterns: readonly LinearRegExp[]): string {
  let out = text;
  for (const pattern of patterns) out = pattern.replaceAll(out, REDACTED);
  return out;
}

/**
 * Whether a pattern matches a key or a number of `root` (as its JSON text): string values are redacted where they
 * are, but those parts are not string values, so the text content must be redacted as a whole.
 * @param json `JSON.stringify(root)`: searched in one pass first, then (on a hit) with its string values emptied,
 *   and only a hit there is confirmed key by key and number by number
 * @param wholeTextFirst whether to search `json` whole before emptying its strings: worth it for many short
 *   strings (emptying them costs more than the search); not for a few long ones (the search reads them for nothing)
 */
export function matchesOutsideStrings(
  root: unknown,
  json: string,
  patterns: readonly LinearRegExp[],
  wholeTextFirst = true,
): boolean {
  let skeleton: string | undefined;
  const candidates = patterns.filter((pattern) => {
    // Anchors see the skeleton's ends, not each key's: such a pattern is searched key by key.
    if (anchorsToEnds(pattern)) return true;
    // A key or a number is in `json` as it is, between punctuation: no match in `json`, none in them. (Usually
    // the end: the string values, which `json` holds too, were redacted already.)
    if (wholeTextFirst && !pattern.test(json)) return false;
    skeleton ??= withoutStringValues(json);
    return pattern.test(skeleton);
  });
  return candidates.length > 0 && keysOrNumbersMatch(root, candidates);
}

/**
 * `json` (as `JSON.stringify` writes it: no white space) with every string value written `""`; keys, numbers and
 * punctuation kept. A match in a key or a number is a match here too: their neighbours here are punctuation, which
 * is no word character, like a text's ends.
 */
function withoutStringValues(json: string): string {
  let out = '';
  let copied = 0;
  for (let quote = json.indexOf('"'); quote !== -1;) {
    let end = json.indexOf('"', quote + 1);
    while (end !== -1) {
      let backslashes = 0;
      for (let j = end - 1; json.charCodeAt(j) === 0x5c; j--) backslashes++;
      if (backslashes % 2 === 0) break;
      end = json.indexOf('"', end + 1);
    }
    if (end === -1) break;
    if (json.charCodeAt(end + 1) !== 0x3a /* ':' : a value, not a key */ && end > quote + 1) {
      out += json.slice(copied, quote + 1);
      copied = end;
    }
    quote = json.indexOf('"', end + 1);
  }
  return copied === 0 ? json : out + json.slice(copied);
}

/** Whether a pattern matches the JSON text of one key or one number of `root`. */
function keysOrNumbersMatch(root: unknown, patterns: readonly LinearRegExp[]): boolean {
  const hit = (text: string): boolean => patterns.some((p) => p.test(text));
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'number') {
      if (hit(JSON.stringify(node))) return true;
    } else if (Array.isArray(node)) {
      for (const item of node) if (typeof item === 'object' || typeof item === 'number') stack.push(item);
    } else if (typeof node === 'object' && node !== null) {
      const record = node as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        if (hit(JSON.stringify(key))) return true;
        const item = record[key];
        if (typeof item === 'object' || typeof item === 'number') stack.push(item);
      }
    }
  }
  return false;
}
