/**
 * `String.prototype.toWellFormed` (Node >= 20; not yet in the ES2022 lib this package compiles against): `text` with
 * each lone surrogate written as U+FFFD, as a UTF-8 encoder writes it.
 */
export function toWellFormed(text: string): string {
  return (text as string & { toWellFormed(): string }).toWellFormed();
}
