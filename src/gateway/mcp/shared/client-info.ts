/**
 * What a client says about itself (`initialize` `clientInfo` in the 2025 revisions, `_meta`
 * `io.modelcontextprotocol/clientInfo` in 2026-07-28): self-reported, optional, and written to the audit log and
 * into session ids, so each field is cut here, once, for both eras.
 */
import type { Caller } from '../../tools/call-pipeline';

/** The audit `client` of a caller. */
export type ClientInfo = Caller['client'];

/** Client name and version are cut to this many UTF-16 code units (a surrogate pair is never split). */
export const MAX_CLIENT_FIELD_LENGTH = 128;

/** A client-info field: a string cut to {@link MAX_CLIENT_FIELD_LENGTH}, anything else `null`. */
export function cutClientField(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  if (value.length <= MAX_CLIENT_FIELD_LENGTH) return value;
  let end = MAX_CLIENT_FIELD_LENGTH;
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return value.slice(0, end);
}

/**
 * `{ name, version }` read from a client-info object (own properties only); `null` fields when it is absent or
 * malformed: a bad one is not a reason to refuse anything.
 */
export function clientInfoOf(info: unknown): ClientInfo {
  if (typeof info !== 'object' || info === null || Array.isArray(info)) return { name: null, version: null };
  const own = (key: string): unknown => (Object.hasOwn(info, key) ? (info as Record<string, unknown>)[key] : undefined);
  return { name: cutClientField(own('name')), version: cutClientField(own('version')) };
}
