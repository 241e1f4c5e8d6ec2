import { TerraformStack } from 'cdktf';
import { IConstruct } from 'constructs';

/**
 * A Docker object name (container, network, volume) scoped by the stack, e.g. `support-desk-agents`.
 *
 * Prefixed with the stack id so that two stacks deployed to the same Docker host do not fight over one
 * container name; Docker allows `[a-zA-Z0-9][a-zA-Z0-9_.-]*`, so anything else becomes `-`.
 */
export function dockerName(scope: IConstruct, ...parts: string[]): string {
  const joined = [TerraformStack.of(scope).node.id, ...parts].join('-').replace(/[^A-Za-z0-9_.-]/g, '-');
  return /^[A-Za-z0-9]/.test(joined) ? joined : `x${joined}`;
}

/** Quote a user value for an error message, without letting a huge value flood the terminal. */
export function quote(value: unknown): string {
  // JSON.stringify writes NaN and ±Infinity as null: a port of NaN must read `port (NaN)`
  const text =
    typeof value === 'string'
      ? `'${value}'`
      : typeof value === 'number' && !Number.isFinite(value)
        ? String(value)
        : (JSON.stringify(value) ?? String(value));
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
