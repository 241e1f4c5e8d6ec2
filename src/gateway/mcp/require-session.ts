import type { IncomingHttpHeaders } from 'node:http';
import type { Principal } from '../auth/bearer-tokens';
import { HttpError } from '../http/http-error';
import { RpcCode } from './jsonrpc';
import type { McpSession, SessionStore } from './session-store';
import { SUPPORTED_PROTOCOL_VERSIONS } from './protocol-version';

/**
 * The session of a request after `initialize`: a missing `Mcp-Session-Id` is HTTP 400; an unknown or expired one,
 * or one opened with another token, HTTP 404 (the client must initialize again). An unsupported
 * `MCP-Protocol-Version` header is HTTP 400.
 */
export function requireSession(principal: Principal, headers: IncomingHttpHeaders, sessions: SessionStore): McpSession {
  const id = headers['mcp-session-id'];
  if (typeof id !== 'string' || id === '') {
    throw new HttpError(400, RpcCode.SERVER_ERROR, 'Bad Request: Mcp-Session-Id header is required');
  }
  const session = sessions.get(id, principal);
  if (session === undefined) throw new HttpError(404, RpcCode.UNAUTHORIZED, 'Session not found');
  const version = headers['mcp-protocol-version'];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version as string)) {
    throw new HttpError(
      400,
      RpcCode.SERVER_ERROR,
      `Bad Request: unsupported MCP-Protocol-Version (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
    );
  }
  return session;
}
