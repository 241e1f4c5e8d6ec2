/**
 * Strings the dashboard keeps must not pin the text they were cut from: V8 represents a substring of 13 or more
 * characters as a view of its parent, and the audit lines are cut from 4 MiB chunks of the file.
 */

/** A copy of `text` that shares no memory with its parent string. */
export function detached(text: string): string {
  return text.length < 13 ? text : Buffer.from(text, 'utf8').toString('utf8');
}

/** Entries an {@link Interner} holds before it starts over. */
const MAX_INTERNED = 10_000;

/**
 * Detaches strings that repeat (tool names, messages) once: later equal strings get the same copy. Bounded: when
 * full it forgets everything and starts again.
 */
export class Interner {
  private readonly table = new Map<string, string>();

  intern(text: string): string {
    const known = this.table.get(text);
    if (known !== undefined) return known;
    if (this.table.size >= MAX_INTERNED) this.table.clear();
    const copy = detached(text);
    this.table.set(copy, copy);
    return copy;
  }

  /** Like {@link intern}, passing `null` through. */
  internNullable(text: string | null): string | null {
    return text === null ? null : this.intern(text);
  }
}
