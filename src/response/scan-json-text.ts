/**
 * One pass over a response's JSON text before it is parsed, outside its strings: how deep it nests (JSON.parse
 * spends microseconds per level, so a 4 MiB body of `[` would block for seconds) and whether any number in it can
 * be too large for a double (`1e400` parses as `Infinity`). Strings, most of a response, are skipped with
 * `indexOf`, so the pass costs little next to the parse.
 */

/** What the pass found. */
export interface JsonTextScan {
  /** The text nests objects and arrays deeper than the limit (exact for valid JSON). */
  readonly tooDeep: boolean;
  /**
   * A number may not be finite: one has an exponent of three digits or more, or an integer part of
   * {@link LONG_INTEGER_DIGITS} digits or more. When false, every number in the text parses as a finite double.
   */
  readonly hugeNumbers: boolean;
}

/**
 * An integer part this long may pass 1.8e308 with a two-digit exponent (at most 1e99): below it, a number needs a
 * three-digit exponent to overflow.
 */
const LONG_INTEGER_DIGITS = 200;

/**
 * Scans `text` (JSON, or something that fails to parse afterwards anyway).
 * @param maxDepth the most nested objects and arrays allowed
 */
export function scanJsonText(text: string, maxDepth: number): JsonTextScan {
  let depth = 0;
  let digits = 0;
  let hugeNumbers = false;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: jump to its closing quote, one not escaped by an odd run of backslashes.
      let end = text.indexOf('"', i + 1);
      while (end !== -1) {
        let backslashes = 0;
        for (let j = end - 1; text.charCodeAt(j) === 0x5c; j--) backslashes++;
        if (backslashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end === -1) break; // unterminated: not JSON
      i = end;
      digits = 0;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return { tooDeep: true, hugeNumbers };
      digits = 0;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      digits = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      if (++digits >= LONG_INTEGER_DIGITS) hugeNumbers = true;
    } else if (c === 0x65 || c === 0x45) {
      // `e`/`E` outside a string: an exponent (or the end of `true`/`false`, followed by no digit).
      let j = i + 1;
      const sign = text.charCodeAt(j);
      if (sign === 0x2b || sign === 0x2d) j++;
      let exponentDigits = 0;
      while (
        exponentDigits < 3 &&
        text.charCodeAt(j + exponentDigits) >= 0x30 &&
        text.charCodeAt(j + exponentDigits) <= 0x39
      )
        exponentDigits++;
      if (exponentDigits >= 3) hugeNumbers = true;
      digits = 0;
    } else {
      digits = 0;
    }
  }
  return { tooDeep: false, hugeNumbers };
}
