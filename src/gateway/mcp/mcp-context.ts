import type { CallServices } from '../tools/call-pipeline';
import type { NotificationStreams } from './notification-streams';
import type { SessionRevocations } from './2025/session-revocations';
import type { SessionSigner } from './2025/session-token';

/** What the MCP layer needs for the gateway's life: the session signer, the open streams, and what a call needs. */
export interface McpContext {
  readonly sessions: SessionSigner;
  readonly streams: NotificationStreams;
  readonly calls: CallServices;
  /** Ends sessions (`DELETE`): through the shared store when there is one. */
  readonly revocations: SessionRevocations;
}
