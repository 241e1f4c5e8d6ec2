import { isJsonObject } from '../validation';
import { generateInputSchema } from './generate-input-schema';
import { InputSpecError } from './input-spec-error';
import type { InputSpec } from './input-spec';

/**
 * The `outputSchema` a tool advertises for a declared output: the language of declared input and the same
 * generation (closed objects unless opened on purpose, never `null`, the same bytes for the same output).
 * `aliases` and `forwardAs` rename what an agent sends, so they have no meaning in an output and are refused.
 *
 * @throws InputSpecError naming the field path and how to fix it
 * @example
 * generateOutputSchema({ id: { type: 'string', required: true } });
 * // { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false }
 */
export function generateOutputSchema(output: InputSpec): Record<string, unknown> {
  if (isJsonObject(output)) {
    for (const name of Object.keys(output)) {
      const spec: unknown = output[name];
      for (const attribute of ['aliases', 'forwardAs'] as const) {
        if (isJsonObject(spec) && spec[attribute] !== undefined) {
          throw new InputSpecError(name, `${attribute} has no meaning in a declared output; remove it`);
        }
      }
    }
  }
  return generateInputSchema(output);
}
