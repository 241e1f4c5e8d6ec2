import { hasOwn, isJsonObject } from './json-object';
import { messages } from './messages';
import { keyPath } from './path';
import { Violation } from './violation';
import { joinMessages } from './violation-messages';

/** The outcome of {@link normalizeAliases}. */
export type NormalizeAliasesResult =
  | { readonly ok: true; readonly args: Record<string, unknown> }
  | { readonly ok: false; readonly message: string; readonly violations: readonly Violation[] };

/**
 * Renames alias keys to the parameter they stand for, before validation; refuses a call that sends both a
 * parameter and one of its aliases (`Conflicting parameters: \`prompt\` and \`description\``, rule `aliases`,
 * path the parameter). Never mutates `args`; returns it as is when no alias is present.
 *
 * @param aliases alias → parameter name, as `aliasesOf()` returns
 * @example
 * normalizeAliases({ description: 'hi' }, { description: 'prompt' }); // { ok: true, args: { prompt: 'hi' } }
 */
export function normalizeAliases(
  args: Record<string, unknown>,
  aliases: Readonly<Record<string, string>>,
): NormalizeAliasesResult {
  if (!isJsonObject(args)) return { ok: true, args };
  const used = Object.keys(aliases).filter((alias) => hasOwn(args, alias) && hasOwn(aliases, alias));
  if (used.length === 0) return { ok: true, args };
  const conflicts: Violation[] = [];
  // The first key sent for each parameter (the name itself, else its first alias in input order).
  const firstSent = new Map<string, string>();
  for (const key of Object.keys(args)) {
    const name = hasOwn(aliases, key) ? aliases[key] : key;
    if (!hasOwn(aliases, key) && !used.some((alias) => aliases[alias] === key)) continue;
    const earlier = firstSent.get(name);
    if (earlier === undefined) {
      firstSent.set(name, key);
      continue;
    }
    // The parameter's own name always comes first in the message; two aliases appear in input order.
    const [first, second] = earlier === name || key !== name ? [earlier, key] : [key, earlier];
    conflicts.push(
      Object.freeze({
        path: keyPath('', name),
        rule: 'aliases',
        message: messages.conflictingParameters(first, second),
      }),
    );
  }
  if (conflicts.length > 0) {
    return { ok: false, message: joinMessages(conflicts), violations: Object.freeze(conflicts) };
  }
  const renamed: Record<string, unknown> = {};
  for (const key of Object.keys(args)) {
    const target = hasOwn(aliases, key) ? aliases[key] : key;
    // defineProperty keeps a key such as `__proto__` an ordinary own property.
    Object.defineProperty(renamed, target, { value: args[key], enumerable: true, writable: true, configurable: true });
  }
  return { ok: true, args: renamed };
}
