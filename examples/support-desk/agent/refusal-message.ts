/**
 * Reads a gateway refusal message (see docs/input-and-validation.md) back into its violations, the way an agent that sees only
 * the text would: split at the message starts, drop the ` (+N more)` tail, pull out the path and what
 * was expected. Works for both channels (`MCP error -32602: …` from a JSON-RPC error, or the plain text
 * of an `isError` tool result).
 */

/** One violation read from a refusal message. */
export type ParsedViolation =
  | { readonly kind: 'missing'; readonly path: string }
  | { readonly kind: 'unknown'; readonly path: string }
  | { readonly kind: 'type'; readonly path: string; readonly expected: string }
  | { readonly kind: 'value'; readonly path: string; readonly expected: string }
  | { readonly kind: 'conflict'; readonly parameter: string; readonly alias: string };

/** A path segment: an object key or an array index. */
export type PathSegment = string | number;

const STARTS = [
  'Missing required parameter: ',
  'Unknown parameter: ',
  'Invalid type for ',
  'Invalid value for ',
  'Conflicting parameters: ',
];
const SPLIT = new RegExp(`; (?=${STARTS.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`);

/** The violations a refusal message names; `[]` when the text is not a validation refusal. */
export function parseRefusal(text: string): ParsedViolation[] {
  const body = text.replace(/^MCP error -?\d+: /, '').replace(/ \(\+\d+ more\)$/, '');
  const found: ParsedViolation[] = [];
  for (const part of body.split(SPLIT)) {
    let m: RegExpExecArray | null;
    if ((m = /^Missing required parameter: `(.*)`$/s.exec(part)) !== null) found.push({ kind: 'missing', path: m[1] });
    else if ((m = /^Unknown parameter: `(.*)`$/s.exec(part)) !== null) found.push({ kind: 'unknown', path: m[1] });
    else if ((m = /^Invalid type for `(.*)`: expected (\w+)$/s.exec(part)) !== null)
      found.push({ kind: 'type', path: m[1], expected: m[2] });
    else if ((m = /^Invalid value for `(.*)`: expected (.+)$/s.exec(part)) !== null)
      found.push({ kind: 'value', path: m[1], expected: m[2] });
    else if ((m = /^Conflicting parameters: `(.*)` and `(.*)`$/s.exec(part)) !== null)
      found.push({ kind: 'conflict', parameter: m[1], alias: m[2] });
  }
  return found;
}

/**
 * Splits a refusal path into segments: `customer.addresses[2].zip_code` → `['customer', 'addresses', 2, 'zip_code']`,
 * `["odd key"].x` → `['odd key', 'x']`; `""` (the root) → `[]`.
 */
export function parsePath(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  const re = /\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\.?([^.[\]]+)/gy;
  let m: RegExpExecArray | null;
  while (re.lastIndex < path.length && (m = re.exec(path)) !== null) {
    if (m[1] !== undefined) segments.push(Number(m[1]));
    else if (m[2] !== undefined) segments.push(JSON.parse(m[2]) as string);
    else segments.push(m[3]);
  }
  return segments;
}
