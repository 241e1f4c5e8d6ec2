/**
 * `tools/list` answers per scope set: a caller sees only the tools its scopes allow. The answers are serialized
 * on first request, once per distinct set of relevant scopes (the caller's scopes that some tool needs; the rest cannot change the
 * list) and kept in a bounded cache, so a flood of tokens with made-up scopes costs one serialization each at
 * most and never grows memory past the bound.
 */
import { hasScopes } from '../auth/oauth-scopes';

/** The most scope sets whose answers are kept; past it the oldest is dropped. */
export const MAX_SCOPED_LISTS = 64;

/** The answer for one scope set, built from the names of the tools the caller may see. */
export type ListBuilder<T = string> = (visible: (name: string) => boolean) => T;

/** A `tools/list` answer per scope set (its JSON text, or its pages). */
export class ScopedLists<T = string> {
  private readonly cache = new Map<string, T>();
  private readonly known: ReadonlySet<string>;
  /** The answer for every tool, built on the first request for it (a gateway of 10,000 tools starts without it). */
  private unrestricted: { readonly answer: T } | undefined;

  /**
   * @param required each tool's required scopes (gateway-wide and its own), by name
   * @param build serializes the answer for the tools `visible` admits
   */
  constructor(
    private readonly required: ReadonlyMap<string, readonly string[]>,
    private readonly build: ListBuilder<T>,
  ) {
    this.known = new Set([...required.values()].flat());
  }

  /** The answer for a caller with `scopes` (`undefined`: unrestricted, every tool). */
  for(scopes: ReadonlySet<string> | undefined): T {
    if (scopes === undefined || this.known.size === 0) {
      this.unrestricted ??= { answer: this.build(() => true) };
      return this.unrestricted.answer;
    }
    const held = [...this.known].filter((s) => scopes.has(s)).sort();
    const key = held.join(' ');
    let answer = this.cache.get(key);
    if (answer === undefined) {
      const granted = new Set(held);
      answer = this.build((name) => hasScopes(this.required.get(name) ?? [], granted));
      if (this.cache.size >= MAX_SCOPED_LISTS) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(key, answer);
    }
    return answer;
  }
}
