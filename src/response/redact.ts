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
 */
export function redactMatches(root: unknown, patterns: readonly LinearRegExp[]): { value: unknown; count: number } {
  if (typeof root === 'string') {
    const replaced = redactText(root, patterns);
    return { value: replaced, count: replaced === root ? 0 : 1 };
  }
  let count = 0;
  // Iterative: the depth was bounded before, but a wide response must not cost a frame per value either.
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item: unknown = node[i];
        if (typeof item === 'string') {
          const replaced = redactText(item, patterns);
          if (replaced !== item) {
            node[i] = replaced;
            count++;
          }
        } else if (typeof item === 'object' && item !== null) stack.push(item);
      }
      continue;
    }
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (typeof item === 'string') {
        const replaced = redactText(item, patterns);
        if (replaced !== item) {
          record[key] = replaced;
          count++;
        }
      } else if (typeof item === 'object' && item !== null) stack.push(item);
    }
  }
  return { value: root, count };
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
