/** A part of an OpenAPI document that cannot become a tool: where it is (a JSON pointer) and why. */
export class OpenApiError extends Error {
  /**
   * @param pointer the JSON pointer of the offending value, e.g. `#/components/schemas/Pet/properties/name/pattern`
   * @param reason what is wrong and, where there is one, how to fix it
   */
  constructor(
    public readonly pointer: string,
    public readonly reason: string,
  ) {
    super(`${pointer}: ${reason}`);
    this.name = 'OpenApiError';
  }
}
