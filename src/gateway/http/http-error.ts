/**
 * A refusal at the HTTP level, turned into a response in one place (`request-listener.ts`): its status, the JSON-RPC code and message of the error body, extra headers, and
 * the id of the refused request when it could be read (the error body echoes it; `null` otherwise).
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly rpcCode: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
    readonly id: string | number | null = null,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}
