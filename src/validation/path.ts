/**
 * The documented dotted path form and the escaping of caller-supplied names.
 *
 * Names chosen by the caller (keys, tool names) are cut at {@link MAX_NAME_CODE_POINTS} code points, the cut
 * marked with `…`, so a refusal stays short whatever the payload; they are then escaped so that a message is
 * always one line and a backtick in a name cannot end the quoted name early.
 */

/** Longest caller-supplied name, in code points, that appears whole in a message. */
export const MAX_NAME_CODE_POINTS = 64;

/** Marks where a name was cut. */
export const CUT_MARK = '…';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Anything that needs escaping in a backtick-quoted name: control characters, quotes, backslash, backtick,
// the JavaScript line separators, and lone surrogates (JSON.stringify escapes those).
// eslint-disable-next-line no-control-regex -- control characters are what must be escaped
const NEEDS_ESCAPE = /[\u0000-\u001f\u007f"\\`\u2028\u2029\ud800-\udfff]/;

/** The first {@link MAX_NAME_CODE_POINTS} code points of `name`, followed by `…` when it was longer. */
export function cutName(name: string): string {
  if (name.length <= MAX_NAME_CODE_POINTS) return name;
  let index = 0;
  for (let count = 0; count < MAX_NAME_CODE_POINTS && index < name.length; count++) {
    const code = name.charCodeAt(index);
    const isPair =
      code >= 0xd800 &&
      code <= 0xdbff &&
      index + 1 < name.length &&
      name.charCodeAt(index + 1) >= 0xdc00 &&
      name.charCodeAt(index + 1) <= 0xdfff;
    index += isPair ? 2 : 1;
  }
  return index >= name.length ? name : name.slice(0, index) + CUT_MARK;
}

/** JSON string escaping plus a backtick escape, without the surrounding quotes. */
function escapeInner(text: string): string {
  return JSON.stringify(text).slice(1, -1).replace(/`/g, '\\u0060');
}

/** A caller-supplied name (e.g. a tool name) as it appears between backticks in a message: cut, then escaped. */
export function escapeName(name: string): string {
  const cut = cutName(String(name));
  return NEEDS_ESCAPE.test(cut) ? escapeInner(cut) : cut;
}

/** The path of property `key` inside the value at `parent`: `a.key`, or `a["my key"]` for a non-identifier. */
export function keyPath(parent: string, key: string): string {
  if (IDENTIFIER.test(key)) return parent === '' ? cutName(key) : `${parent}.${cutName(key)}`;
  return `${parent}["${escapeInner(cutName(key))}"]`;
}

/** The path of element `index` inside the array at `parent`: `a[2]`. */
export function indexPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}
