import type { JsonText } from '../../../response';
import type { ListenStreamSpec } from './stream-specs';

/**
 * An answer to write: status, headers and (JSON) body; no body for 202. `listen` instead of a body: open that
 * `subscriptions/listen` stream (the request passed every check).
 */
export interface McpReply {
  readonly status: number;
  readonly body?: JsonText;
  readonly sessionId?: string;
  readonly listen?: ListenStreamSpec;
}

/** The answer to a POST of only notifications or client responses. */
export const ACCEPTED: McpReply = { status: 202 };
