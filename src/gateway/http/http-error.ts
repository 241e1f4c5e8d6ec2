/**
 * Typed errors of the gateway. A bad config is a `ConfigError` (one line naming the field); a request that
 * must be refused before it reaches a JSON-RPC method is an `HttpError`, turned into a response in one place
 * (`http-server.ts`).
 */

/** A gateway config document that cannot be used; the message is one line naming the field. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * A refusal at the HTTP level: its status, the JSON-RPC code and message of the error body, extra headers, and
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
