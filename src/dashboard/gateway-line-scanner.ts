import type { AuditOutcome, PrincipalKind } from './gateway-shared';

/**
 * The fast reader of audit lines written exactly as the gateway writes them (`JSON.stringify` of its record: these
 * keys in this order, no whitespace, no escapes), reading the record straight out of the decoded chunk without
 * cutting it into lines or building a JSON tree: the dashboard reads a million lines in seconds this way. Anything
 * else — another key order, spaces, an escape, a duplicate key, trailing text — is not read here (`undefined`)
 * and goes to `JSON.parse`: the scanner only ever accepts valid JSON, and reads it as `JSON.parse` would.
 */

/** A backslash (an escape) or a control character other than the newline: such text goes to `JSON.parse`. */
// eslint-disable-next-line no-control-regex -- matching control characters is this expression's whole job
export const NEEDS_JSON_PARSE = /[\\\u0000-\u0009\u000b-\u001f]/;

/** The fields of a line as the scanner found them; strings are views of the chunk (see `detached-string.ts`). */
export interface ScannedLine {
  ts: number;
  gateway: string;
  principal: string | null;
  /** The principal's kind as written; `undefined` for a line written before the gateway wrote it. */
  auth: PrincipalKind | null | undefined;
  clientName: string | null;
  clientVersion: string | null;
  tool: string;
  outcome: AuditOutcome;
  message: string | null;
  code: string | null;
}

// The scanner's cursor: module state, so reading a field allocates nothing but the field.
let src = '';
let pos = 0;
let end = 0;
/** Set by `str()`: whether the value read was `null`. */
let wasNull = false;

function lit(text: string): boolean {
  if (!src.startsWith(text, pos) || pos + text.length > end) return false;
  pos += text.length;
  return true;
}

/** Reads a string or `null` (sets `wasNull`); returns `undefined` when neither is there. */
function str(): string | undefined {
  wasNull = false;
  if (src.charCodeAt(pos) === 0x6e /* n */ && lit('null')) {
    wasNull = true;
    return '';
  }
  if (src.charCodeAt(pos) !== 0x22 /* " */) return undefined;
  const close = src.indexOf('"', pos + 1);
  if (close < 0 || close >= end) return undefined;
  const value = src.slice(pos + 1, close);
  pos = close + 1;
  return value;
}

/** Skips a string or `null`; false when neither is there. */
function skipStr(): boolean {
  if (src.charCodeAt(pos) === 0x6e && lit('null')) return true;
  if (src.charCodeAt(pos) !== 0x22) return false;
  const close = src.indexOf('"', pos + 1);
  if (close < 0 || close >= end) return false;
  pos = close + 1;
  return true;
}

function digits(at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const c = src.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

/** `YYYY-MM-DDTHH:MM:SS.sssZ` (what `toISOString` writes) at `pos`, as ms; NaN for any other form. */
function isoTime(): number {
  if (src.charCodeAt(pos) !== 0x22 || src.charCodeAt(pos + 25) !== 0x22 || pos + 26 > end) return NaN;
  const p = pos + 1;
  if (
    src.charCodeAt(p + 4) !== 0x2d ||
    src.charCodeAt(p + 7) !== 0x2d ||
    src.charCodeAt(p + 10) !== 0x54 ||
    src.charCodeAt(p + 13) !== 0x3a ||
    src.charCodeAt(p + 16) !== 0x3a ||
    src.charCodeAt(p + 19) !== 0x2e ||
    src.charCodeAt(p + 23) !== 0x5a
  )
    return NaN;
  const year = digits(p, 4);
  const month = digits(p + 5, 2);
  const day = digits(p + 8, 2);
  const hour = digits(p + 11, 2);
  const minute = digits(p + 14, 2);
  const second = digits(p + 17, 2);
  const ms = digits(p + 20, 3);
  if (
    year < 1000 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysIn(year, month) ||
    hour < 0 ||
    hour > 23 ||
    minute < 0 ||
    minute > 59 ||
    second < 0 ||
    second > 59 ||
    ms < 0
  )
    return NaN;
  pos += 26;
  return Date.UTC(year, month - 1, day, hour, minute, second, ms);
}

function daysIn(year: number, month: number): number {
  return month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : month === 4 || month === 6 || month === 9 || month === 11
      ? 30
      : 31;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Reads the line `text[start, stop)` — which must contain no backslash and no control character (test
 * {@link NEEDS_JSON_PARSE} first) — or returns `undefined` when it is not in the gateway's exact form.
 */
export function scanGatewayLine(text: string, start: number, stop: number): ScannedLine | undefined {
  src = text;
  pos = start;
  end = stop;
  try {
    return scan();
  } finally {
    src = '';
  }
}

function scan(): ScannedLine | undefined {
  if (!lit('{"ts":')) return undefined;
  const ts = isoTime();
  if (Number.isNaN(ts) || !lit(',"gateway":"')) return undefined;
  pos--;
  const gateway = str();
  if (gateway === undefined || wasNull || !lit(',"session":') || !skipStr() || !lit(',"principal":')) return undefined;
  const principal = str();
  if (principal === undefined) return undefined;
  const principalNull = wasNull;
  // `auth` (the principal's kind) since the gateway keys principals by kind and name; older lines lack it.
  let auth: PrincipalKind | null | undefined;
  if (lit(',"auth":')) {
    if (lit('"token"')) auth = 'token';
    else if (lit('"oauth"')) auth = 'oauth';
    else if (lit('null')) auth = null;
    else return undefined;
  }
  if (!lit(',"client":{"name":')) return undefined;
  const clientName = str();
  if (clientName === undefined) return undefined;
  const nameNull = wasNull;
  if (!lit(',"version":')) return undefined;
  const clientVersion = str();
  if (clientVersion === undefined) return undefined;
  const versionNull = wasNull;
  if (!lit('},"tool":"')) return undefined;
  pos--;
  const tool = str();
  if (tool === undefined || !lit(',"outcome":"')) return undefined;
  let outcome: AuditOutcome;
  if (lit('ok"')) outcome = 'ok';
  else if (lit('refused"')) outcome = 'refused';
  else if (lit('error"')) outcome = 'error';
  else return undefined;
  if (!lit(',"error":')) return undefined;
  let message: string | null = null;
  let code: string | null = null;
  if (!lit('null')) {
    if (!lit('{"code":"')) return undefined;
    pos--;
    const c = str();
    if (c === undefined || !lit(',"message":"')) return undefined;
    pos--;
    const m = str();
    if (m === undefined || !lit('}')) return undefined;
    code = c;
    message = m;
  }
  if (!lit(',"duration_ms":')) return undefined;
  NUMBER.lastIndex = pos;
  const number = NUMBER.exec(src);
  if (number === null) return undefined;
  pos += number[0].length;
  if (!Number.isFinite(Number(number[0])) || !lit('}') || pos !== end) return undefined;
  return {
    ts,
    gateway,
    principal: principalNull ? null : principal,
    auth,
    clientName: nameNull ? null : clientName,
    clientVersion: versionNull ? null : clientVersion,
    tool,
    outcome,
    message,
    code,
  };
}
