/**
 * ECMAScript's `test` in unicode mode, the reference the linear-time patterns are held to: a match tried at every
 * code point boundary, never inside a surrogate pair (the specification's AdvanceStringIndex). V8 also tries the
 * position inside a pair for an empty match (`/\\B/u.exec('a😀a').index` is 2), which the specification never
 * reaches: the reference follows the specification.
 * @param sticky the pattern compiled with the `uy` flags
 */
export function ecmaTest(sticky: RegExp, s: string): boolean {
  for (let i = 0; i <= s.length; i++) {
    sticky.lastIndex = i;
    if (sticky.test(s)) return true;
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return false;
}
