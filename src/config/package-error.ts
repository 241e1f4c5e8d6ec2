/**
 * The base of the errors this package's CLI and server raise on purpose: a message for a person and a stable
 * `code` for a program (as undici's errors carry `UND_ERR_*`), so a caller can tell them apart without
 * matching messages or depending on which module's class it holds.
 *
 * @example
 * try { loadGatewayConfig(file); } catch (err) { if (err instanceof PackageError && err.code === 'ERR_CONFIG') … }
 */
export class PackageError extends Error {
  public constructor(
    message: string,
    /** A stable code: `ERR_CONFIG`, `ERR_USAGE`, … */
    public readonly code: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A bad command-line flag or argument: reported as one line, exit code 2. */
export class UsageError extends PackageError {
  public constructor(message: string) {
    super(message, 'ERR_USAGE');
  }
}
