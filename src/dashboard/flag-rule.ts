/** When an agent counts as failing systematically over a window. */
export interface FlagRule {
  /** At least this many refused calls. @default 10 */
  readonly minRefusals: number;
  /** And at least this share of its calls refused (0..1). @default 0.5 */
  readonly minRate: number;
}

export const DEFAULT_FLAG_RULE: FlagRule = { minRefusals: 10, minRate: 0.5 };

/** Refused calls over calls; 0 without calls. */
export function refusalRate(calls: number, refusals: number): number {
  return calls === 0 ? 0 : refusals / calls;
}

/** Whether `refusals` of `calls` meet the rule. */
export function isFlagged(rule: FlagRule, calls: number, refusals: number): boolean {
  return calls > 0 && refusals >= rule.minRefusals && refusals / calls >= rule.minRate;
}
