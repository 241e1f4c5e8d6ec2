import { isJsonObject } from '../validation';
import { InputSpec, ParamSpec } from './input-spec';

/**
 * A tool's description as advertised: the declared description, plus — when some parameter has required fields
 * nested inside it — a final line with the one-line call shape of those parameters, for clients that do not
 * render nested JSON Schema (see docs/input-and-validation.md).
 *
 * The shape names each field with its type (`array of {…}` for arrays, `{…}` for objects with properties). When
 * every nested field is required it ends with `, all required`; otherwise optional fields carry a `?` after their
 * name and the shape ends with `, required unless marked ?`. Several such parameters are joined by `; `.
 *
 * @example
 * toolDescription('Apply edits', { steps: { type: 'array', required: true, items: { type: 'object', properties: {
 *   file: { type: 'string', required: true }, line: { type: 'integer', required: true } } } } });
 * // 'Apply edits\nsteps: array of {file: string, line: integer}, all required'
 */
export function toolDescription(description: string, input: InputSpec | undefined): string {
  if (!isJsonObject(input)) return description;
  const shapes: string[] = [];
  for (const name of Object.keys(input)) {
    const spec = input[name];
    if (!hasNestedRequired(spec)) continue;
    const counts = { optional: 0 };
    const shape = shapeOf(spec, counts);
    shapes.push(`${name}: ${shape}, ${counts.optional === 0 ? 'all required' : 'required unless marked ?'}`);
  }
  if (shapes.length === 0) return description;
  const line = shapes.join('; ');
  return description === '' ? line : `${description}\n${line}`;
}

function hasNestedRequired(spec: ParamSpec | undefined): boolean {
  if (!isJsonObject(spec)) return false;
  if (spec.type === 'array') return hasNestedRequired(spec.items);
  if (spec.type !== 'object' || !isJsonObject(spec.properties)) return false;
  return Object.values(spec.properties).some((p) => p?.required === true || hasNestedRequired(p));
}

function shapeOf(spec: ParamSpec, counts: { optional: number }): string {
  if (spec.type === 'array') return spec.items === undefined ? 'array' : `array of ${shapeOf(spec.items, counts)}`;
  if (spec.type === 'object' && isJsonObject(spec.properties)) {
    const fields = Object.keys(spec.properties).map((key) => {
      const field = spec.properties![key];
      if (field.required !== true) counts.optional++;
      return `${key}${field.required === true ? '' : '?'}: ${shapeOf(field, counts)}`;
    });
    return `{${fields.join(', ')}}`;
  }
  return spec.type;
}
