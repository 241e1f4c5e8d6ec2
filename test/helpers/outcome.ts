import type { ServiceOutcome } from '../../src/response';

/** An outcome with its result as text: worked out in place it is text, on the body thread it comes back as bytes. */
export function asText(outcome: ServiceOutcome): ServiceOutcome {
  return outcome.ok ? { ...outcome, resultJson: String(outcome.resultJson) } : outcome;
}
