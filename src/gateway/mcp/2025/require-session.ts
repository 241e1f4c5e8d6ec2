import type { IncomingHttpHeaders } from 'node:http';
import type { Identity } from '../../auth/authenticator';
import { principalKey } from '../../auth/bearer-tokens';
import { HttpError } from '../../errors/http-error';
import type { Caller } from '../../tools/call-pipeline';
import { RpcCode } from '../../errors/jsonrpc';
import { SUPPORTED_PROTOCOL_VERSIONS } from './protocol-version';
import type { SessionSigner } from './session-token';

/** A 2025 session, read from its signed id (nothing about it is stored). */
export interface McpSession extends Caller {
  readonly sessionId: string;
  /** When the id stops being valid (`session_ttl_ms` after `initialize`). */
  readonly expiresAtMs: number;
}

const SESSION_NOT_FOUND = new HttpError(404, RpcCode.INVALID_REQUEST, 'Session not found');

/**
 * The session of a request after `initialize`: a missing `Mcp-Session-Id` is HTTP 400; an id that does not verify
 * (unknown, tampered with, signed with another key, expired, revoked here, or opened by another principal) is HTTP
 * 404 (the client must initialize again). An unsupported `MCP-Protocol-Version` header is HTTP 400.
 */
export function requireSession(identity: Identity, headers: IncomingHttpHeaders, sessions: SessionSigner): McpSession {
  const id = headers['mcp-session-id'];
  if (typeof id !== 'string' || id === '') {
    throw new HttpError(400, RpcCode.INVALID_REQUEST, 'Bad Request: Mcp-Session-Id header is required');
  }
  const { principal } = identity;
  const data = sessions.verify(id, principalKey(identity));
  if (data === undefined) throw SESSION_NOT_FOUND;
  const version = headers['mcp-protocol-version'];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version as string)) {
    throw new HttpError(
      400,
      RpcCode.INVALID_REQUEST,
      `Bad Request: unsupported MCP-Protocol-Version (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
    );
  }
  return {
    sessionId: id,
    principal,
    protocolVersion: data.protocolVersion,
    client: data.client,
    expiresAtMs: data.expiresAtMs,
    // Scopes and OAuth client come from this request's token, not from the one that opened the session.
    scopes: identity.scopes,
    clientId: identity.clientId,
    oauth: identity.oauth,
  };
}
