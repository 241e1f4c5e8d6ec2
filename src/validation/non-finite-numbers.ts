import { indexPath, keyPath } from './path';
import type { Violation } from './violation';
import { invalidValue } from './violation-messages';

/** As many violations as a refusal collects (see docs/input-and-validation.md). */
const MAX_VIOLATIONS = 20;

/**
 * The values a JSON request cannot carry: numbers that are not finite (`1e400` parses as `Infinity`, which
 * `JSON.stringify` would send as `null` and a query as `Infinity`). Checked whatever `validate_input` says, since
 * a raw schema may leave a value untyped. Walks the arguments without recursion (a deep payload cannot exhaust the
 * stack), own keys only, in input order; at most {@link MAX_VIOLATIONS}.
 */
export function nonFiniteNumbers(args: Readonly<Record<string, unknown>>): Violation[] | undefined {
  return hasNonFinite(args) ? locate(args) : undefined;
}

/** The quick pass every call makes: no paths built. */
function hasNonFinite(args: Readonly<Record<string, unknown>>): boolean {
  const stack: unknown[] = [args];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
    } else if (typeof value === 'object' && value !== null) {
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) stack.push(record[key]);
    }
  }
  return false;
}

/** The slow pass, only for a refusal: each non-finite number with its path, in input order. */
function locate(args: Readonly<Record<string, unknown>>): Violation[] {
  let violations: Violation[] | undefined;
  const stack: [value: unknown, path: string][] = [];
  const keys = Object.keys(args);
  for (let i = keys.length - 1; i >= 0; i--) stack.push([args[keys[i]], keyPath('', keys[i])]);
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) {
        (violations ??= []).push(invalidValue(path, 'type', 'expected a finite number'));
        if (violations.length === MAX_VIOLATIONS) break;
      }
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], indexPath(path, i)]);
    } else if (typeof value === 'object' && value !== null) {
      const record = value as Record<string, unknown>;
      const inner = Object.keys(record);
      for (let i = inner.length - 1; i >= 0; i--) stack.push([record[inner[i]], keyPath(path, inner[i])]);
    }
  }
  return violations ?? [];
}
