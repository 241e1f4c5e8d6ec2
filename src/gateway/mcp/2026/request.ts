/**
 * Checks of a modern (2026-07-28) request that come before its method runs: the per-request `_meta` and the
 * standard HTTP headers that mirror the body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`). Pure.
 *
 * Order (each step refuses before the next runs; the first three match the conformance suite's own reference
 * server):
 * 1. `MCP-Protocol-Version` header missing or malformed → 400, -32020.
 * 2. `_meta` missing, or its `protocolVersion` (string) or `clientCapabilities` (object) missing → 400, -32602.
 * 3. header ≠ `_meta` protocol version → 400, -32020.
 * 4. version not spoken here → 400, -32022 `{ supported, requested }`.
 * 5. `Mcp-Method` missing, malformed or ≠ body `method` (values are case-sensitive) → 400, -32020.
 * 6. for `tools/call`, `prompts/get`, `resources/read` whose body has a string `params.name`/`params.uri`:
 *    `Mcp-Name` missing, malformed or ≠ that value (after `=?base64?…?=` decoding) → 400, -32020.
 * Header values are compared after trimming optional whitespace (RFC 9110 §5.5). Notifications (no id) are not
 * checked: the revision defines no header rules for notification POSTs.
 */
import {
  headerMismatch,
  invalidParams,
  MetaKey,
  MODERN_PROTOCOL_VERSIONS,
  type ModernRefusal,
  NAME_SOURCE,
  own,
  single,
  unsupportedProtocolVersion,
} from './protocol';
import { isObject } from '../../../validation/json-object';
import { clientInfoOf, type ClientInfo } from '../shared/client-info';

/** The standard headers of one request, as node gives them (names are case-insensitive there already). */
export interface ModernHeaders {
  readonly protocolVersion: string | string[] | undefined;
  readonly method: string | string[] | undefined;
  readonly name: string | string[] | undefined;
}

/** What the `_meta` of an accepted request says. */
export interface ModernRequestMeta {
  readonly protocolVersion: string;
  readonly clientCapabilities: Record<string, unknown>;
  /**
   * `io.modelcontextprotocol/clientInfo` for the audit, each field cut to 128 characters; `null` fields when it
   * is absent or malformed (it is self-reported and optional: a bad one is not a reason to refuse the call).
   */
  readonly client: ClientInfo;
}

export type ModernCheck =
  { readonly ok: true; readonly meta: ModernRequestMeta } | { readonly ok: false; readonly refusal: ModernRefusal };

/**
 * Runs the checks above on a request already classified modern (`isModernRequest`) with a valid JSON-RPC shape.
 * @example
 * const check = checkModernRequest({ protocolVersion: '2026-07-28', method: 'tools/list', name: undefined }, 'tools/list', params);
 * if (!check.ok) reply(check.refusal.status, errorResponseJson(id, check.refusal.code, check.refusal.message, check.refusal.data));
 */
export function checkModernRequest(headers: ModernHeaders, method: string, params: unknown): ModernCheck {
  const versionHeader = headerValue(headers.protocolVersion);
  if (versionHeader === undefined) return refuse(headerMismatch('MCP-Protocol-Version header is missing or malformed'));

  const meta = isObject(params) ? own(params, '_meta') : undefined;
  if (!isObject(meta))
    return refuse(invalidParams(`_meta is required (${MetaKey.PROTOCOL_VERSION}, ${MetaKey.CLIENT_CAPABILITIES})`));
  const version = own(meta, MetaKey.PROTOCOL_VERSION);
  if (typeof version !== 'string') return refuse(invalidParams(`_meta ${MetaKey.PROTOCOL_VERSION} must be a string`));
  const capabilities = own(meta, MetaKey.CLIENT_CAPABILITIES);
  if (!isObject(capabilities)) return refuse(invalidParams(`_meta ${MetaKey.CLIENT_CAPABILITIES} must be an object`));

  if (versionHeader !== version)
    return refuse(headerMismatch('MCP-Protocol-Version header does not match _meta protocol version'));
  if (!MODERN_PROTOCOL_VERSIONS.includes(version)) return refuse(unsupportedProtocolVersion(version));

  const methodHeader = headerValue(headers.method);
  if (methodHeader === undefined) return refuse(headerMismatch('Mcp-Method header is missing or malformed'));
  if (methodHeader !== method) return refuse(headerMismatch('Mcp-Method header does not match the body method'));

  const field = Object.prototype.hasOwnProperty.call(NAME_SOURCE, method) ? NAME_SOURCE[method] : undefined;
  const bodyName = field !== undefined && isObject(params) ? own(params, field) : undefined;
  if (typeof bodyName === 'string') {
    const nameHeader = headerValue(headers.name);
    const decoded = nameHeader === undefined ? undefined : decodeSentinel(nameHeader);
    if (decoded === undefined) return refuse(headerMismatch('Mcp-Name header is missing or malformed'));
    if (decoded !== bodyName) return refuse(headerMismatch(`Mcp-Name header does not match the body params.${field}`));
  }

  return {
    ok: true,
    meta: {
      protocolVersion: version,
      clientCapabilities: capabilities,
      client: clientInfoOf(own(meta, MetaKey.CLIENT_INFO)),
    },
  };
}

/**
 * A header's value with optional whitespace trimmed, or `undefined` when absent, repeated, or holding anything
 * but visible ASCII and inner spaces/tabs (RFC 9110 field values; node already refuses CR/LF/NUL).
 */
function headerValue(raw: string | string[] | undefined): string | undefined {
  const value = single(raw)?.replace(/^[ \t]+|[ \t]+$/g, '');
  if (value === undefined || value === '' || !/^[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?$/.test(value))
    return undefined;
  return value;
}

const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

/**
 * The value a header stands for: `=?base64?…?=` decoded (strict base64 of UTF-8; anything else in that wrapper is
 * malformed → `undefined`), any other value literally.
 */
export function decodeSentinel(value: string): string | undefined {
  if (!value.startsWith('=?base64?') || !value.endsWith('?=')) return value;
  const m = SENTINEL.exec(value);
  if (m === null || m[1].length % 4 !== 0) return undefined;
  const bytes = Buffer.from(m[1], 'base64');
  if (bytes.toString('base64') !== m[1]) return undefined;
  const text = bytes.toString('utf8');
  // Invalid UTF-8 decodes to U+FFFD: refuse rather than compare a substitute.
  return Buffer.from(text, 'utf8').equals(bytes) ? text : undefined;
}

function refuse(refusal: ModernRefusal): ModernCheck {
  return { ok: false, refusal };
}
