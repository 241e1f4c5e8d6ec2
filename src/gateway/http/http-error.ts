/**
 * A refusal at the HTTP level, turned into a response in one place (`request-listener.ts`): its status, the
 * JSON-RPC code and message of the error body, extra headers, the id of the refused request when it could be
 * read (the error body echoes it; `null` otherwise) and the error's `data` when it has one. Both eras' refusals
 * are this one type: the 2025 endpoint throws it, the 2026-07-28 endpoint turns its `ModernRefusal`s into it, and
 * a `tools/call` returns it (403 `insufficient_scope`) for the endpoint to throw.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly rpcCode: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
    readonly id: string | number | null = null,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}
