/** One reason a tool call's arguments were refused (see docs/input-and-validation.md). */
export interface Violation {
  /** Where: keys joined by `.`, array indices as `[n]`, other keys as `["key"]`; `""` for the root. */
  readonly path: string;
  /** The violated keyword (`type`, `required`, `additionalProperties`, `enum`, `minimum`, …). */
  readonly rule: string;
  /** The human-readable refusal for this violation alone. */
  readonly message: string;
}

/** The outcome of validating one set of tool arguments. */
export type ValidationResult =
  | { readonly valid: true }
  | { readonly valid: false; readonly message: string; readonly violations: readonly Violation[] };

/** A compiled tool input schema. */
export interface ToolValidator {
  /**
   * Checks the arguments of one call. Total: never throws, whatever the value; `undefined` counts as `{}`.
   */
  validate(args: unknown): ValidationResult;
}

/** The outcome of compiling a tool input schema. */
export type CompileResult =
  { readonly ok: true; readonly validator: ToolValidator } | { readonly ok: false; readonly error: string };
