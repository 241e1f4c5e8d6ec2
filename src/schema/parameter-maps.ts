import { isJsonObject } from '../validation';
import { InputSpec } from './input-spec';

/**
 * Alias → parameter name for the top-level parameters of a declared input (never advertised; the gateway
 * renames aliases before validation). `{}` when there are none.
 *
 * @example
 * aliasesOf({ prompt: { type: 'string', aliases: ['description'] } }); // { description: 'prompt' }
 */
export function aliasesOf(input: InputSpec | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isJsonObject(input)) return out;
  for (const name of Object.keys(input)) {
    for (const alias of input[name]?.aliases ?? []) {
      Object.defineProperty(out, alias, { value: name, enumerable: true, writable: true, configurable: true });
    }
  }
  return out;
}

/**
 * Parameter name → backend field name for the top-level parameters that declare `forwardAs`. `{}` when none.
 *
 * @example
 * forwardAsOf({ prompt: { type: 'string', forwardAs: 'description' } }); // { prompt: 'description' }
 */
export function forwardAsOf(input: InputSpec | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isJsonObject(input)) return out;
  for (const name of Object.keys(input)) {
    const field = input[name]?.forwardAs;
    if (field !== undefined)
      Object.defineProperty(out, name, { value: field, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
