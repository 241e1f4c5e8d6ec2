import type { CallServices } from '../tools/call-pipeline';
import type { SessionStore } from './session-store';

/** What the MCP layer needs for the gateway's life: the sessions, and what a tool call needs. */
export interface McpContext {
  readonly sessions: SessionStore;
  readonly calls: CallServices;
}

/** An answer to write: status, headers and (JSON) body; no body for 202. */
export interface McpReply {
  readonly status: number;
  readonly body?: string;
  readonly sessionId?: string;
}

/** The answer to a POST of only notifications or client responses. */
export const ACCEPTED: McpReply = { status: 202 };
