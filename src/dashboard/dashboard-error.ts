/** A request the dashboard refuses: its HTTP status and a one-line message, answered as `{ "error": message }`. */
export class DashboardError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'DashboardError';
  }
}
