import type { JsonText } from '../../response';
import type { SessionRevocations } from './session-revocations';
import type { CallServices } from '../tools/call-pipeline';
import type { ListenStreamSpec, NotificationStreams } from './notification-streams';
import type { SessionSigner } from './session-token';

/** What the MCP layer needs for the gateway's life: the session signer, the open streams, and what a call needs. */
export interface McpContext {
  readonly sessions: SessionSigner;
  readonly streams: NotificationStreams;
  readonly calls: CallServices;
  /** Ends sessions (`DELETE`): through the shared store when there is one. */
  readonly revocations: SessionRevocations;
}

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
