import type { IConstruct } from 'constructs';

/** How a construct's synthesis-time refusals read, when a manifest declared it rather than TypeScript. */
const wordings = new WeakMap<IConstruct, (message: string) => string>();

/** Has `construct`'s synthesis-time refusals read as `word` makes them (a manifest's file:line and keys). */
export function wordRefusals(construct: IConstruct, word: (message: string) => string): void {
  wordings.set(construct, word);
}

/** `messages`, refusals of `construct`, as they read where it was declared. */
export function worded(construct: IConstruct, messages: string[]): string[] {
  const word = wordings.get(construct);
  return word === undefined ? messages : messages.map(word);
}
