import { MAX_PRINCIPAL_CHARS, type AuditOutcome, type PrincipalKind } from './gateway-shared';
import { NEEDS_JSON_PARSE, scanGatewayLine } from './gateway-line-scanner';
import { toWellFormed } from '../validation/well-formed';

/**
 * Longest gateway, client or tool name kept; longer ones are cut (the file is not trusted). A principal is kept up
 * to the gateway's own bound (`MAX_PRINCIPAL_CHARS`), so two agents are never counted as one.
 */
export const MAX_NAME_CHARS = 128;
/** Longest error message kept; longer ones are cut with an ellipsis, so memory stays bounded per message. */
export const MAX_MESSAGE_CHARS = 300;
/**
 * The tool of every call the gateway refused as an unknown tool (`UNKNOWN_TOOL`): the caller chose that name, so
 * each one must not make a series of its own (10,000 names would push every later agent into the overflow row).
 * The name stays in the message (``Unknown tool: `x` ``). Not a valid tool name, so no declared tool is mistaken for it.
 */
export const UNKNOWN_TOOL = '(unknown tool)';
/** The audit code of a call to a tool the gateway does not declare. */
const UNKNOWN_TOOL_CODE = 'UNKNOWN_TOOL';

/** The part of an audit record the dashboard keeps: names, outcome, message, time. Never argument values. */
export interface DashboardRecord {
  /** Milliseconds since the epoch, from `ts`. */
  readonly tsMs: number;
  readonly gateway: string;
  readonly principal: string | null;
  /**
   * The principal's kind: a static token id and an OAuth subject of the same name are two agents. `null` with no
   * principal; `token` for a line written before the gateway wrote the kind (static tokens were all there was).
   */
  readonly auth: PrincipalKind | null;
  readonly clientName: string | null;
  readonly clientVersion: string | null;
  readonly tool: string;
  readonly outcome: AuditOutcome;
  /** The error message of an `error` or `refused` record, `null` for `ok`. */
  readonly message: string | null;
}

/**
 * Reads one audit line (`src/gateway/audit-log.ts` format). Returns `undefined` for anything that is not a
 * well-typed record — bad JSON, a missing field, a field of the wrong type, an unknown outcome, an unparsable
 * time — so the caller can skip and count it.
 */
export function parseAuditLine(line: string): DashboardRecord | undefined {
  return parseAuditText(line, 0, line.length, !NEEDS_JSON_PARSE.test(line));
}

/**
 * Reads the line `text[start, stop)` of a decoded chunk. `plain` says the chunk holds no backslash and no control
 * character besides newlines (one regex test per chunk), so the gateway's own lines take the fast scanner.
 */
export function parseAuditText(text: string, start: number, stop: number, plain: boolean): DashboardRecord | undefined {
  if (plain) {
    const scanned = scanGatewayLine(text, start, stop);
    if (scanned !== undefined) {
      if (scanned.outcome !== 'ok' && scanned.message === null) return undefined;
      return {
        tsMs: scanned.ts,
        gateway: cut(scanned.gateway, MAX_NAME_CHARS),
        principal: scanned.principal === null ? null : cut(scanned.principal, MAX_PRINCIPAL_CHARS),
        auth: kindOf(scanned.principal, scanned.auth),
        clientName: scanned.clientName === null ? null : cut(scanned.clientName, MAX_NAME_CHARS),
        clientVersion: scanned.clientVersion === null ? null : cut(scanned.clientVersion, MAX_NAME_CHARS),
        tool: toolOf(scanned.tool, scanned.code),
        outcome: scanned.outcome,
        message: scanned.outcome === 'ok' || scanned.message === null ? null : cut(scanned.message, MAX_MESSAGE_CHARS),
      };
    }
  }
  return parseAuditJson(start === 0 && stop === text.length ? text : text.slice(start, stop));
}

/** Reads one line with `JSON.parse` and checks every field (the slow path, and the reference for the fast one). */
export function parseAuditJson(line: string): DashboardRecord | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return undefined;
  return checkFields(doc as Record<string, unknown>);
}

function checkFields(fields: Record<string, unknown>): DashboardRecord | undefined {
  const { ts, gateway, principal, auth, client, tool, outcome, error, duration_ms: durationMs } = fields;
  if (auth !== undefined && auth !== null && auth !== 'token' && auth !== 'oauth') return undefined;
  if (typeof durationMs !== 'number' || !Number.isFinite(durationMs)) return undefined;
  if (typeof ts !== 'string' || typeof gateway !== 'string' || typeof tool !== 'string') return undefined;
  if (principal !== null && typeof principal !== 'string') return undefined;
  if (outcome !== 'ok' && outcome !== 'error' && outcome !== 'refused') return undefined;
  if (typeof client !== 'object' || client === null || Array.isArray(client)) return undefined;
  const { name, version } = client as Record<string, unknown>;
  if ((name !== null && typeof name !== 'string') || (version !== null && typeof version !== 'string'))
    return undefined;
  let message: string | null = null;
  let errorCode: string | null = null;
  if (error !== null) {
    if (typeof error !== 'object' || Array.isArray(error)) return undefined;
    const { message: m, code } = error as Record<string, unknown>;
    if (typeof m !== 'string' || typeof code !== 'string') return undefined;
    errorCode = code;
    if (outcome !== 'ok') message = cutParsed(m, MAX_MESSAGE_CHARS);
  }
  if (outcome !== 'ok' && message === null) return undefined;
  const tsMs = Date.parse(ts);
  if (!Number.isFinite(tsMs)) return undefined;
  return {
    tsMs,
    gateway: cutParsed(gateway, MAX_NAME_CHARS),
    principal: principal === null ? null : cutParsed(principal, MAX_PRINCIPAL_CHARS),
    auth: kindOf(principal, auth),
    clientName: name === null ? null : cutParsed(name, MAX_NAME_CHARS),
    clientVersion: version === null ? null : cutParsed(version, MAX_NAME_CHARS),
    tool: toolOf(toWellFormed(tool), errorCode),
    outcome,
    message,
  };
}

/** The record's tool: its name, cut, or {@link UNKNOWN_TOOL} when the gateway refused it as unknown. */
function toolOf(tool: string, code: string | null): string {
  return code === UNKNOWN_TOOL_CODE ? UNKNOWN_TOOL : cut(tool, MAX_NAME_CHARS);
}

function kindOf(principal: string | null, auth: PrincipalKind | null | undefined): PrincipalKind | null {
  return principal === null ? null : (auth ?? 'token');
}

/**
 * One key per agent (kind and name), for maps: `token:alice` and `oauth:alice` differ; `null` for calls without
 * a principal (`auth: 'none'`).
 */
export function agentKey(auth: PrincipalKind | null, principal: string | null): string | null {
  return principal === null ? null : `${auth ?? 'token'}:${principal}`;
}

/**
 * `text` cut to at most `max` code units, ending in `…` when cut, never between the halves of a surrogate pair: a
 * lone half would not survive `detached` (a UTF-8 copy), so the kept name would differ from the one looked up.
 */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const high = text.charCodeAt(max - 2);
  return `${text.slice(0, high >= 0xd800 && high <= 0xdbff ? max - 2 : max - 1)}…`;
}

/**
 * A string of a line read by `JSON.parse`, cut, with each lone surrogate made U+FFFD (as a UTF-8 file would hold
 * it): every string the dashboard keeps is well-formed, so its copies equal it and the page can put it in a URL.
 */
function cutParsed(text: string, max: number): string {
  return cut(toWellFormed(text), max);
}
