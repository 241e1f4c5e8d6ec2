/**
 * Whether `v` is a JSON object: a plain object (or one without a prototype), never `null`, an array,
 * or a class instance such as a `Date` or `Map`.
 */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** `Object.hasOwn` without relying on the lib setting; safe for keys such as `__proto__` and `toString`. */
export function hasOwn(o: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

/**
 * Whether `v` is an object that is not an array (a class instance too): the check before reading own properties
 * of a value that may come from anywhere. {@link isJsonObject} is the stricter one for what must be plain JSON.
 */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
