/**
 * A declared input (see docs/input-and-validation.md) that cannot become a tool schema. Thrown by `generateInputSchema` at construction
 * or synthesis, never at call time; the message names the parameter path (`customer.addresses[].zip_code`, `[]`
 * standing for "each element") and says how to fix it.
 */
export class InputSpecError extends Error {
  /** The parameter path in argument form (`""` for the input as a whole). */
  public readonly path: string;

  /** The spec key at fault when it is one key (`pattern`), so that a manifest can point at its line. */
  public readonly keyword?: string;

  constructor(path: string, problem: string, keyword?: string) {
    super(path === '' ? `Invalid input spec: ${problem}` : `Invalid input spec at \`${path}\`: ${problem}`);
    this.name = 'InputSpecError';
    this.path = path;
    if (keyword !== undefined) this.keyword = keyword;
  }
}
