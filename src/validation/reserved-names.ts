/**
 * Names that every JavaScript object inherits or that set an object's prototype (see docs/input-and-validation.md): refused as parameter
 * names, aliases and `forwardAs` targets at synthesis and in a config, so that no lookup by such a name can ever
 * reach an inherited value (`constructor` filling a URL placeholder with `function Object() …`) or replace a
 * prototype (`forwardAs: "__proto__"`).
 */

/** The reserved names, in the order messages list them. */
export const RESERVED_NAMES: readonly string[] = Object.freeze(['__proto__', 'constructor', 'prototype']);

/** Whether `name` is one of {@link RESERVED_NAMES}. */
export function isReservedName(name: string): boolean {
  return RESERVED_NAMES.includes(name);
}

/** Why a reserved name is refused, for the end of a message: `the name "constructor" is reserved (…)`. */
export function reservedNameReason(name: string): string {
  return `${JSON.stringify(name)} is reserved (JavaScript objects inherit or use it: ${RESERVED_NAMES.join(', ')})`;
}
