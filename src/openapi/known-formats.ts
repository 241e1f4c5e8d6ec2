import { compileToolSchema } from '../validation';

const verdicts = new Map<string, boolean>();

/**
 * Whether the gateway's validator checks `format` (ajv-formats' formats and the gateway's stricter ones: `date-time`,
 * `email`, `int32`, `byte`, …). Asked of the validator itself, once per format name.
 */
export function knownFormat(format: string): boolean {
  let known = verdicts.get(format);
  if (known === undefined) {
    known = compileToolSchema({ type: 'object', properties: { x: { format } } }).ok;
    verdicts.set(format, known);
  }
  return known;
}
