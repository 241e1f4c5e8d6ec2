/**
 * Redaction: the values at declared paths (strings, in a checked response), and every match of the declared
 * patterns in any string, become `[redacted]`. Works in place on a freshly parsed response (the gateway's own copy).
 */
import type { LinearRegExp } from '../regex/linear-regexp';
import type { PathStep } from './redact-path';
import type { RedactPattern } from './redact-pattern';

/** What a redacted value or match becomes. */
export const REDACTED = '[redacted]';

/**
 * What {@link redactPaths} did: the values it replaced, or the first path (its index) that ends at a value other
 * than a string or `null`, which it cannot replace without changing the response's shape.
 */
export type PathRedaction = { readonly count: number } | { readonly unredactable: number };

/**
 * Replaces the string values at `paths` in `root`, in place.
 *
 * A checked response holds a string wherever a path ends. One that no schema checked (no output declared, or
 * `validate_output` off) may hold anything there, and nothing a path covers may reach the agent: an array met where
 * a step expects none is stepped through, item by item (as field selection does), and any other value that is not
 * a string or `null` where a path ends makes the response one to refuse.
 */
export function redactPaths(root: unknown, paths: readonly (readonly PathStep[])[]): PathRedaction {
  const state = { count: 0, unredactable: false };
  for (const [i, steps] of paths.entries()) {
    redactAt(root, steps, 0, state);
    if (state.unredactable) return { unredactable: i };
  }
  return { count: state.count };
}

interface RedactionState {
  count: number;
  unredactable: boolean;
}

function redactAt(node: unknown, steps: readonly PathStep[], index: number, state: RedactionState): void {
  if (typeof node !== 'object' || node === null) return;
  const step = steps[index];
  const last = index === steps.length - 1;
  if (step.kind === 'element') {
    if (!Array.isArray(node)) {
      // an object where the path expects an array: what the path covers in it is its own item
      if (last) state.unredactable = true;
      else redactAt(node, steps, index + 1, state);
      return;
    }
    for (let i = 0; i < node.length; i++) {
      if (last) redactValue(node as unknown as Record<number, unknown>, i, state);
      else redactAt(node[i], steps, index + 1, state);
    }
    return;
  }
  if (Array.isArray(node)) {
    for (const item of node) redactAt(item, steps, index, state);
    return;
  }
  const record = node as Record<string, unknown>;
  const keys = step.kind === 'key' ? [step.key] : Object.keys(record);
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(record, key)) continue;
    if (last) redactValue(record, key, state);
    else redactAt(record[key], steps, index + 1, state);
  }
}

/** Redacts the value a path ends at: a string, an array's items, `null` not at all; anything else is unredactable. */
function redactValue(holder: Record<string | number, unknown>, key: string | number, state: RedactionState): void {
  const value = holder[key];
  if (typeof value === 'string') {
    holder[key] = REDACTED;
    state.count++;
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) redactValue(value as unknown as Record<number, unknown>, i, state);
  } else if (value !== null) {
    state.unredactable = true;
  }
}

/**
 * Replaces every match of `patterns` in every string value of `root` (not in keys); returns the value (a string
 * root is returned replaced) and how many strings changed.
 *
 * Each string is searched by itself, so `^`, `$`, `\b` and `\B` see its own ends. A string shorter than every
 * pattern's shortest match cannot hold one and is not searched: a response of 250,000 one-character strings costs
 * one walk, not 250,000 calls. (Searching the strings joined into one text first, to skip the calls when no string
 * matches, read every string once more whenever one does: a hostile response of dense near misses paid for the
 * joined search more than for the calls it could save.)
 */
export function redactMatches(root: unknown, patterns: readonly RedactPattern[]): { value: unknown; count: number } {
  if (typeof root === 'string') {
    const replaced = redactText(root, patterns);
    return { value: replaced, count: replaced === root ? 0 : 1 };
  }
  const minLength = shortestMatch(patterns);
  let count = 0;
  // In place: only string values change, never a key or the shape.
  forEachMember(root, (holder, key, item) => {
    if (typeof item !== 'string' || item.length < minLength) return;
    const replaced = redactText(item, patterns);
    if (replaced !== item) {
      (holder as Record<string | number, unknown>)[key] = replaced;
      count++;
    }
  });
  return { value: root, count };
}

/**
 * The fewest UTF-16 units any of `patterns` can match (1 where a pattern's analysis does not say): a code point of
 * a match is one or two units, so a match of m code points is at least m units long.
 */
function shortestMatch(patterns: readonly RedactPattern[]): number {
  let shortest = Infinity;
  for (const pattern of patterns) shortest = Math.min(shortest, pattern.alphabet?.minLength ?? 1);
  return shortest;
}

/**
 * Whether a pattern may use `^` or `$` (read from its source, so a literal `\^` counts too: the safe side). Such a
 * pattern anchors to each string's own ends, which no serialized text or list of keys has, so it is always
 * searched string by string (and key by key).
 */
export function anchorsToEnds(pattern: LinearRegExp): boolean {
  return /[\^$]/.test(pattern.source);
}

/**
 * Whether a pattern may match in a string value, a key or a number of the value `json` serializes. `false` only when
 * none can: no pattern matches the text, and the text holds no escape, so every string and key stands in it exactly
 * as it is, between quotes or punctuation (neither a word character nor a line end, like a string's own ends, so
 * `\b` and `\B` see the same neighbours). A pattern with `^` or `$` ({@link anchorsToEnds}) may always match.
 */
export function mayMatchInJson(json: string, patterns: readonly LinearRegExp[]): boolean {
  if (json.includes('\\')) return true;
  return patterns.some((pattern) => anchorsToEnds(pattern) || pattern.test(json));
}

/**
 * Up to this many strings, each is searched at once: a search of the serialized value first, to skip the strings
 * when nothing matches, would read a long one twice.
 */
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

/** `text` with every match of every pattern replaced (the same string when nothing matched). */
export function redactText(text: string, patterns: readonly LinearRegExp[]): string {
  let out = text;
  for (const pattern of patterns) out = pattern.replaceAll(out, REDACTED);
  return out;
}

/**
 * Whether a pattern matches a key (as it is) or the JSON text of a number of `root` (then
 * {@link redactKeysAndNumbers} has work to do).
 *
 * The distinct keys and the numbers are gathered in one walk and each list is searched once, as the JSON text of
 * an array: where no key holds a character JSON escapes, every item stands in it as it is, between punctuation (no
 * word character, like a text's ends), so a match in one item is a match there too. Only a hit there is confirmed
 * item by item. A pattern with `^` or `$`, which anchors to each item's ends, and every pattern when a key was
 * escaped, is searched item by item. The walk costs the same whatever the strings hold (searching the serialized
 * value with its strings cut out cost a response of many short strings more).
 * @param json `JSON.stringify(root)`: a short one without escapes is searched first, and no match there ends the
 *   search
 */
export function matchesOutsideStrings(root: unknown, patterns: readonly LinearRegExp[], json: string): boolean {
  // A short text is searched first: one search of a small answer costs less than the walk.
  if (json.length <= SHORT_TEXT_CHARS && !mayMatchInJson(json, patterns)) return false;
  const { keys, numbers } = keysAndNumbers(root);
  let keysText: string | undefined;
  let numbersText: string | undefined;
  const candidates = patterns.filter((pattern) => {
    if (anchorsToEnds(pattern)) return true;
    keysText ??= JSON.stringify([...keys]);
    numbersText ??= JSON.stringify(numbers);
    return keysText.includes('\\') || pattern.test(keysText) || pattern.test(numbersText);
  });
  if (candidates.length === 0) return false;
  const hit = (text: string): boolean => candidates.some((pattern) => pattern.test(text));
  for (const key of keys) if (hit(key)) return true;
  for (const number of numbers) if (hit(JSON.stringify(number))) return true;
  return false;
}

/**
 * Redacts every match of `patterns` in the keys and numbers of `root`, in place (a number root is returned
 * replaced): a number whose JSON text holds a match becomes that text redacted, a string; a key holding a match is
 * renamed to itself redacted, keeping the members' order, with ` (2)`, ` (3)`, … after a name already taken so that
 * no member is lost. Run after {@link matchesOutsideStrings} said some key or number matches.
 * @returns the value and how many keys and numbers changed
 */
export function redactKeysAndNumbers(
  root: unknown,
  patterns: readonly LinearRegExp[],
): { value: unknown; count: number } {
  if (typeof root === 'number') {
    const text = JSON.stringify(root);
    const replaced = redactText(text, patterns);
    return replaced === text ? { value: root, count: 0 } : { value: replaced, count: 1 };
  }
  let count = 0;
  const renaming = new Set<Record<string, unknown>>();
  forEachMember(root, (holder, key, item) => {
    if (typeof item === 'number') {
      const text = JSON.stringify(item);
      const replaced = redactText(text, patterns);
      if (replaced !== text) {
        (holder as Record<string | number, unknown>)[key] = replaced;
        count++;
      }
    }
    if (
      typeof key === 'string' &&
      !renaming.has(holder as Record<string, unknown>) &&
      patterns.some((pattern) => pattern.test(key))
    )
      renaming.add(holder as Record<string, unknown>);
  });
  for (const record of renaming) count += renameKeys(record, patterns);
  return { value: root, count };
}

/** Renames the keys of `record` that hold a match, in place and in order; returns how many were renamed. */
function renameKeys(record: Record<string, unknown>, patterns: readonly LinearRegExp[]): number {
  const members: [string, unknown][] = [];
  for (const key in record) if (Object.prototype.hasOwnProperty.call(record, key)) members.push([key, record[key]]);
  for (const [key] of members) Reflect.deleteProperty(record, key);
  const taken = new Set<string>();
  // the next suffix to try per redacted name: 20,000 keys redacted alike cost one pass, not 20,000² tries
  const nextSuffix = new Map<string, number>();
  let renamed = 0;
  for (const [key, item] of members) {
    const redacted = redactText(key, patterns);
    if (redacted !== key) renamed++;
    let name = redacted;
    if (taken.has(name)) {
      let n = nextSuffix.get(redacted) ?? 2;
      while (taken.has(`${redacted} (${n})`)) n++;
      name = `${redacted} (${n})`;
      nextSuffix.set(redacted, n + 1);
    }
    taken.add(name);
    // defineProperty: a key `__proto__` stays an own member, never the prototype
    Object.defineProperty(record, name, { value: item, writable: true, enumerable: true, configurable: true });
  }
  return renamed;
}

/** Texts up to this many UTF-16 units are searched whole before keys and numbers are gathered. */
const SHORT_TEXT_CHARS = 4096;

/** The distinct keys of every object under `root`, and every number. */
function keysAndNumbers(root: unknown): { keys: Set<string>; numbers: number[] } {
  const keys = new Set<string>();
  const numbers: number[] = typeof root === 'number' ? [root] : [];
  forEachMember(root, (_holder, key, item) => {
    if (typeof key === 'string') keys.add(key);
    if (typeof item === 'number') numbers.push(item);
  });
  return { keys, numbers };
}

/**
 * Calls `visit` with every element of every array and every own member of every object under `root`, with the
 * array or object holding it and its index or key (a number for an array's elements), then descends into it.
 * Iterative: a response may nest 512 levels.
 */
function forEachMember(root: unknown, visit: (holder: object, key: string | number, item: unknown) => void): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item: unknown = node[i];
        visit(node, i, item);
        if (typeof item === 'object' && item !== null) stack.push(item);
      }
    } else if (typeof node === 'object' && node !== null) {
      const record = node as Record<string, unknown>;
      // for…in with an own-key check, not Object.keys: no array of keys per object (a hostile response of empty
      // objects holds 350,000 of them in a MiB)
      for (const key in record) {
        if (!Object.prototype.hasOwnProperty.call(record, key)) continue;
        const item = record[key];
        visit(record, key, item);
        if (typeof item === 'object' && item !== null) stack.push(item);
      }
    }
  }
}
