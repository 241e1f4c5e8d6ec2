/**
 * The stateless MCP revision 2026-07-28 (see docs/gateway.md): its names, codes and versions, how a request is told apart
 * from a 2025 one, and the typed refusals of the modern era. Pure: no I/O, nothing from the endpoint.
 */
import { methodNotFoundMessage, RpcCode } from '../../errors/jsonrpc';
import { isObject } from '../../../validation/json-object';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../2025/protocol-version';

/** Modern (stateless) revisions this gateway speaks, newest first. */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28'];

/**
 * Every version the gateway speaks, modern first: `server/discover` `supportedVersions` and the `supported` list
 * of -32022 are this same list (the conformance suite checks that the second is a subset of the first).
 */
export const ALL_PROTOCOL_VERSIONS: readonly string[] = [...MODERN_PROTOCOL_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS];

/** Versions of the `initialize` era: a request naming one of these is never modern. */
const LEGACY_VERSIONS: ReadonlySet<string> = new Set([...SUPPORTED_PROTOCOL_VERSIONS, '2024-11-05', '2024-10-07']);

/** `_meta` keys of the revision. */
export const MetaKey = {
  PROTOCOL_VERSION: 'io.modelcontextprotocol/protocolVersion',
  CLIENT_CAPABILITIES: 'io.modelcontextprotocol/clientCapabilities',
  CLIENT_INFO: 'io.modelcontextprotocol/clientInfo',
  LOG_LEVEL: 'io.modelcontextprotocol/logLevel',
  SERVER_INFO: 'io.modelcontextprotocol/serverInfo',
  SUBSCRIPTION_ID: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** JSON-RPC codes the revision defines (the -32020…-32099 range is reserved for the specification). */
export const ModernCode = {
  HEADER_MISMATCH: -32020,
  MISSING_REQUIRED_CLIENT_CAPABILITY: -32021,
  UNSUPPORTED_PROTOCOL_VERSION: -32022,
} as const;

/** Methods the gateway answers in the modern era; anything else (`ping`, `initialize`, …) is 404 + -32601. */
export const MODERN_METHOD_NAMES = ['server/discover', 'tools/list', 'tools/call', 'subscriptions/listen'] as const;

/** A method the gateway answers in the modern era. */
export type ModernMethod = (typeof MODERN_METHOD_NAMES)[number];

/** Methods whose `Mcp-Name` header is required, and the params field it mirrors. */
export const NAME_SOURCE: Readonly<Record<string, 'name' | 'uri'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/**
 * A refusal of the modern era: the HTTP status and the JSON-RPC error (with `data` for -32022). The endpoint
 * throws it as an `HttpError` with the request id, which the listener answers like every other refusal.
 */
export interface ModernRefusal {
  readonly status: 400 | 404;
  readonly code: number;
  readonly message: string;
  readonly data?: { readonly supported: readonly string[]; readonly requested: string };
}

/** What the endpoint needs to tell the eras apart, straight from the request. */
export interface EraInput {
  /** `Mcp-Session-Id`, as node gives it. */
  readonly sessionId: string | string[] | undefined;
  /** `MCP-Protocol-Version`, as node gives it. */
  readonly protocolVersionHeader: string | string[] | undefined;
  /** The parsed JSON-RPC message's `params` (anything). */
  readonly params: unknown;
}

/**
 * True when a request belongs to the modern era: it carries no `Mcp-Session-Id` (a session is a 2025 thing and
 * keeps the 2025 rules, as issue 12 says) and shows modern evidence — a `_meta`
 * `io.modelcontextprotocol/protocolVersion` of any value (a legacy request never has one), or an
 * `MCP-Protocol-Version` header that is not a 2025-era version (the suite's "missing _meta" probes send the
 * 2026-07-28 header with no `_meta` and expect the modern -32602). Without either, the 2025 rules apply
 * unchanged: `initialize` (no header, `params.protocolVersion`) and session requests stay legacy.
 * @example
 * isModernRequest({ sessionId: undefined, protocolVersionHeader: '2026-07-28', params: {} }); // true
 * isModernRequest({ sessionId: undefined, protocolVersionHeader: undefined, params: { protocolVersion: '2025-11-25' } }); // false
 */
export function isModernRequest(input: EraInput): boolean {
  if (input.sessionId !== undefined) return false;
  const meta = isObject(input.params) ? own(input.params, '_meta') : undefined;
  if (isObject(meta) && own(meta, MetaKey.PROTOCOL_VERSION) !== undefined) return true;
  const header = single(input.protocolVersionHeader);
  return header !== undefined && header !== '' && !LEGACY_VERSIONS.has(header);
}

/** 404 + -32601 for a method the modern era does not have (`ping`, `logging/setLevel`, `initialize`, unknown). */
export function methodNotFound(method: string): ModernRefusal {
  return { status: 404, code: RpcCode.METHOD_NOT_FOUND, message: methodNotFoundMessage(method) };
}

/** 400 + -32020. */
export function headerMismatch(message: string): ModernRefusal {
  return { status: 400, code: ModernCode.HEADER_MISMATCH, message: `Header mismatch: ${message}` };
}

/** 400 + -32022 with the versions this gateway speaks and the one asked for (cut to 128 characters). */
export function unsupportedProtocolVersion(requested: string): ModernRefusal {
  return {
    status: 400,
    code: ModernCode.UNSUPPORTED_PROTOCOL_VERSION,
    message: 'Unsupported protocol version',
    data: { supported: ALL_PROTOCOL_VERSIONS, requested: requested.slice(0, 128) },
  };
}

/** 400 + -32602 (a missing or malformed `_meta`, or malformed params of a modern method). */
export function invalidParams(message: string): ModernRefusal {
  return { status: 400, code: -32602, message: `Invalid params: ${message}` };
}

/** The one value of a header node may hand over as a list (duplicates of some headers); a list is not one value. */
export function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** An own property of a parsed JSON object (never one inherited from the prototype chain). */
export function own(object: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}
