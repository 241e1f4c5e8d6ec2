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
  const keys = step.kind === 'key' ? [step.key] : Object.keys(record);
  let count = 0;
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(record, key)) continue;
    if (last) {
      if (typeof record[key] === 'string') {
        record[key] = REDACTED;
        count++;
      }
    } else count += redactAt(record[key], steps, index + 1);
  }
  return count;
}

/**
 * Replaces every match of `patterns` in every string value of `root` (not in keys); returns the value (a string
 * root is returned replaced) and how many strings changed.
 *
 * The engine's cost per string call is high next to its cost per character, so a pattern is first searched once
 * in every string joined by U+0000 (one pass): a pattern that matches nowhere there matches in no string, and only
 * a pattern that does is run string by string. A pattern with `^` or `$` is always run string by string (it
 * anchors to each string's ends, which the joined text does not have).
 */
export function redactMatches(root: unknown, patterns: readonly LinearRegExp[]): { value: unknown; count: number } {
  if (typeof root === 'string') {
    const replaced = redactText(root, patterns);
    return { value: replaced, count: replaced === root ? 0 : 1 };
  }
  const slots = stringSlots(root);
  if (slots.length === 0) return { value: root, count: 0 };
  let joined: string | undefined;
  const changed = new Set<number>();
  for (const pattern of patterns) {
    if (!/[\^$]/.test(pattern.source)) {
      joined ??= slots.map((slot) => slot.get()).join(SEPARATOR);
      if (!pattern.test(joined)) continue;
    }
    for (let i = 0; i < slots.length; i++) {
      const text = slots[i].get();
      const replaced = pattern.replaceAll(text, REDACTED);
      if (replaced !== text) {
        slots[i].set(replaced);
        changed.add(i);
      }
    }
    joined = undefined; // the strings changed: join again for the next pattern
  }
  return { value: root, count: changed.size };
}

/**
 * Joins the strings for the one-pass search. A match found across it is only a reason to search string by string;
 * a match inside one string is found either way (the separator is a non-word character, like a string's ends).
 */
const SEPARATOR = '\u0000';

interface StringSlot {
  get(): string;
  set(value: string): void;
}

/** Every string value under `root` (not keys), with a way to replace it; iterative, in no particular order. */
function stringSlots(root: unknown): StringSlot[] {
  const slots: StringSlot[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item: unknown = node[i];
        if (typeof item === 'string') {
          slots.push({ get: () => node[i] as string, set: (v) => (node[i] = v) });
        } else if (typeof item === 'object' && item !== null) stack.push(item);
      }
      continue;
    }
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (typeof item === 'string') {
        slots.push({ get: () => record[key] as string, set: (v) => (record[key] = v) });
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
 */
export function matchesOutsideStrings(root: unknown, patterns: readonly LinearRegExp[]): boolean {
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
