/**
 * A refusal at the HTTP level, turned into a response in one place (`request-listener.ts`): its status, the
 * JSON-RPC code and message of the error body, extra headers, the id of the refused request when it could be
 * read (the error body echoes it; `null` otherwise) and the error's `data` when it has one. Both eras' refusals
 * are this one type: the 2025 endpoint throws it, the 2026-07-28 endpoint turns its `ModernRefusal`s into it, and
 * a `tools/call` returns it (403 `insufficient_scope`) for the endpoint to throw.
 */
export class HttpError extends Error {
  /** Response headers besides the JSON content type (`WWW-Authenticate`, `Retry-After`, `Allow`, …). */
  readonly headers: Readonly<Record<string, string>>;
  /** The refused request's id, echoed in the error body; `null` when it could not be read. */
  readonly id: string | number | null;
  /** The JSON-RPC error's `data`, when it has one. */
  readonly data?: unknown;

  /**
   * @param status the HTTP status
   * @param rpcCode the JSON-RPC error code of the body
   * @param message the JSON-RPC error message
   */
  constructor(
    readonly status: number,
    readonly rpcCode: number,
    message: string,
    options: HttpErrorOptions = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.headers = options.headers ?? {};
    this.id = options.id ?? null;
    if (options.data !== undefined) this.data = options.data;
  }
}

/** What an {@link HttpError} carries besides its status, code and message. */
export interface HttpErrorOptions {
  /** @default {} */
  readonly headers?: Readonly<Record<string, string>>;
  /** @default null */
  readonly id?: string | number | null;
  /** @default - no `data` */
  readonly data?: unknown;
}
