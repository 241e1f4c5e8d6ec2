/**
 * Compiled linear-time patterns shared by source text. A config of many tools repeats patterns (an id format, a
 * date), and compiling one for the linear engine costs tens of microseconds; each distinct source is compiled once
 * and checked once. A compiled pattern holds no state a second user could see (its memo of the last input only
 * skips repeating a verdict), so tools may share one. Bounded: past {@link MAX_SHARED_PATTERNS} sources the oldest
 * is dropped (and compiled again if it comes back).
 */
import { compileLinearPattern, type LinearRegExp, patternProblem } from './linear-regexp';

/** Distinct pattern sources kept compiled at most. */
export const MAX_SHARED_PATTERNS = 4096;

const compiled = new Map<string, LinearRegExp>();

/**
 * {@link compileLinearPattern} of `source`, shared with every other user of the same source.
 * @throws as `compileLinearPattern` does (nothing is kept for a pattern that does not compile)
 */
export function sharedLinearPattern(source: string): LinearRegExp {
  let re = compiled.get(source);
  if (re === undefined) {
    re = compileLinearPattern(source);
    if (compiled.size >= MAX_SHARED_PATTERNS) compiled.delete(compiled.keys().next().value as string);
    compiled.set(source, re);
  }
  return re;
}

/** {@link patternProblem} of `source`, compiling it at most once for the check and for its later use. */
export function sharedPatternProblem(source: string): string | undefined {
  try {
    sharedLinearPattern(source);
    return undefined;
  } catch {
    // Rare: a refused pattern; its message comes from the engine's own check.
    return patternProblem(source);
  }
}
