/**
 * Format checks that follow the RFCs where ajv-formats is looser or stricter than the JSON Schema Test Suite:
 * `date-time` and `time` (RFC 3339, leap seconds only at 23:59 UTC), `uuid` (bare RFC 4122 form), `email`
 * (RFC 5321: quoted local parts and address literals), `hostname` (RFC 1123 plus IDNA A-labels, RFC 5890–5892)
 * and `uri` (RFC 3986); and `url` and `iso-date-time` with ajv-formats' own verdict, rewritten because they took
 * super-linear time. The other formats come from ajv-formats unchanged.
 *
 * Every check runs in time linear in the input's length (see docs/input-and-validation.md): no regular expression here has two
 * repetitions that can match the same text, and splitting is done with `indexOf`. `bench/worst-case.ts` times
 * each format, these and ajv-formats' others, on adversarial 1 MiB inputs.
 */
// The format table alone: ajv-formats' plugin entry point loads ajv's code generator (tens of ms at start-up).
import { type DefinedFormats, fullFormats } from 'ajv-formats/dist/formats';
// the npm package (the trailing slash), not Node's deprecated built-in of the same name
import * as punycode from 'punycode/';

/**
 * ajv-formats' definition of format `name` (its default "full" mode, as ajv-instances.ts registers them);
 * `undefined` for a name it does not define.
 */
export function ajvFormatsDefinition(name: string): DefinedFormats[keyof DefinedFormats] | undefined {
  return Object.prototype.hasOwnProperty.call(fullFormats, name)
    ? fullFormats[name as keyof DefinedFormats]
    : undefined;
}

const ipv6Format = ajvFormatsDefinition('ipv6');
const IPV6 = ipv6Format instanceof RegExp ? ipv6Format : /^$/;
const DEC_OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${DEC_OCTET}(?:\\.${DEC_OCTET}){3}$`);

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeapYear(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** RFC 3339 `full-time`; a leap second (`:60`) only where UTC time is 23:59. */
export function isTime(s: string): boolean {
  const m = TIME.exec(s);
  if (m === null) return false;
  const [h, min, sec] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const sign = m[4] === '-' ? -1 : 1;
  const [oh, om] = m[4] === undefined ? [0, 0] : [Number(m[5]), Number(m[6])];
  if (h > 23 || min > 59 || sec > 60 || oh > 23 || om > 59) return false;
  if (sec === 60) {
    const utcMinutes = (((h * 60 + min - sign * (oh * 60 + om)) % 1440) + 1440) % 1440;
    return utcMinutes === 23 * 60 + 59;
  }
  return true;
}

/** RFC 3339 `full-date`. */
export function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (m === null) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  return d <= (mo === 2 && isLeapYear(y) ? 29 : DAYS[mo - 1]);
}

/** RFC 3339 `date-time`. */
export function isDateTime(s: string): boolean {
  const t = s.indexOf('T') >= 0 ? s.indexOf('T') : s.indexOf('t');
  return t === 10 && isDate(s.slice(0, t)) && isTime(s.slice(t + 1));
}

/** RFC 4122, without a `urn:uuid:` prefix or braces. */
export function isUuid(s: string): boolean {
  return /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(s);
}

/**
 * RFC 3492 Punycode decoding of an A-label's tail; `undefined` when it is not valid Punycode or encodes a surrogate
 * code point. U+D800–U+DFFF are not characters, and two of them decoded side by side would read as one astral
 * letter: such a label does not encode back to itself (the encoder reads the pair as that letter), so a decoding
 * is kept only if it does. Punycode's digits are case-insensitive, hence the comparison.
 */
function decodePunycode(input: string): string | undefined {
  try {
    const decoded = punycode.decode(input);
    return punycode.encode(decoded).toLowerCase() === input.toLowerCase() ? decoded : undefined;
  } catch {
    // RangeError: invalid input, overflow, or a code point past U+10FFFF
    return undefined;
  }
}

// Code points with canonical combining class 9 (virama), which a ZERO WIDTH JOINER must follow (RFC 5892 A.2).
const VIRAMA =
  /[\u094D\u09CD\u0A4D\u0ACD\u0B4D\u0BCD\u0C4D\u0CCD\u0D3B\u0D3C\u0D4D\u0DCA\u0E3A\u0EBA\u0F84\u1039\u103A\u1714\u1715\u1734\u17D2\u1A60\u1B44\u1BAA\u1BAB\u1BF2\u1BF3\u2D7F\uA806\uA82C\uA8C4\uA953\uA9C0\uAAF6\uABED]/u;

/** A U-label's characters and contextual rules (RFC 5891 §4.2, RFC 5892 appendix A). */
function isULabel(label: string): boolean {
  if (label === '' || label.startsWith('-') || label.endsWith('-') || label.slice(2, 4) === '--') return false;
  if (/^\p{M}/u.test(label)) return false;
  // eslint-disable-next-line no-misleading-character-class -- ZWNJ/ZWJ are listed as single code points on purpose (RFC 5892)
  if (!/^[\p{L}\p{M}\p{N}\-\u00B7\u0375\u05F3\u05F4\u30FB\u200C\u200D\u06FD\u06FE\u0F0B]+$/u.test(label)) return false;
  // eslint-disable-next-line no-misleading-character-class -- single code points (RFC 5892 DISALLOWED), no sequence meant
  if (/[\u0640\u07FA\u302E\u302F\u3031-\u3035\u303B]/u.test(label)) return false;
  if (/[\u0660-\u0669]/u.test(label) && /[\u06F0-\u06F9]/u.test(label)) return false;
  if (
    /[\u30FB]/u.test(label) &&
    !/[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u.test(label.replace(/\u30FB/g, ''))
  )
    return false;
  const chars = Array.from(label);
  return chars.every((c, i) => {
    switch (c) {
      case '\u00B7':
        return chars[i - 1] === 'l' && chars[i + 1] === 'l';
      case '\u0375':
        return chars[i + 1] !== undefined && /\p{Script=Greek}/u.test(chars[i + 1]);
      case '\u05F3':
      case '\u05F4':
        return chars[i - 1] !== undefined && /\p{Script=Hebrew}/u.test(chars[i - 1]);
      case '\u200D':
        return chars[i - 1] !== undefined && VIRAMA.test(chars[i - 1]);
      default:
        return true;
    }
  });
}

/** RFC 1123 host name, A-labels (`xn--…`) checked as IDNA requires; no trailing dot. */
export function isHostname(s: string): boolean {
  if (s.length === 0 || s.length > 253) return false;
  return s.split('.').every((label) => {
    if (!/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(label)) return false;
    if (label.slice(2, 4) !== '--') return true;
    if (label.slice(0, 2).toLowerCase() !== 'xn') return false;
    const decoded = decodePunycode(label.slice(4));
    return decoded !== undefined && isULabel(decoded);
  });
}

const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]";
const LOCAL_PART = new RegExp(
  `^(?:${ATEXT}+(?:\\.${ATEXT}+)*|"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\\x20-\\x7e])*")$`,
);

/** RFC 5321 mailbox: dot-atom or quoted local part; host name or `[IPv4]` / `[IPv6:…]` literal. */
export function isEmail(s: string): boolean {
  const at = s.lastIndexOf('@');
  if (at <= 0) return false;
  const [local, domain] = [s.slice(0, at), s.slice(at + 1)];
  if (!LOCAL_PART.test(local)) return false;
  if (domain.startsWith('[') && domain.endsWith(']')) {
    const literal = domain.slice(1, -1);
    return literal.startsWith('IPv6:') ? IPV6.test(literal.slice(5)) : IPV4.test(literal);
  }
  return isHostname(domain);
}

const UNRESERVED = 'A-Za-z0-9\\-._~';
const SUB_DELIMS = "!$&'()*+,;=";
const PCT = '%[0-9A-Fa-f]{2}';
const PCHAR = `(?:[${UNRESERVED}${SUB_DELIMS}:@]|${PCT})`;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/;
const USERINFO = new RegExp(`^(?:[${UNRESERVED}${SUB_DELIMS}:]|${PCT})*$`);
const REG_NAME = new RegExp(`^(?:[${UNRESERVED}${SUB_DELIMS}]|${PCT})*$`);
const PORT = /^[0-9]*$/;
const PATH_ABEMPTY = new RegExp(`^(?:/${PCHAR}*)*$`);
const PATH_NO_AUTHORITY = new RegExp(`^(?:/?(?:${PCHAR}+(?:/${PCHAR}*)*)?|/)$`);
const QUERY = new RegExp(`^(?:${PCHAR}|[/?])*$`);
const IPV_FUTURE = new RegExp(`^v[0-9A-Fa-f]+\\.[${UNRESERVED}${SUB_DELIMS}:]+$`);

function isAuthority(authority: string): boolean {
  const at = authority.lastIndexOf('@');
  if (at >= 0 && !USERINFO.test(authority.slice(0, at))) return false;
  const hostPort = authority.slice(at + 1);
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    if (close < 0) return false;
    const port = hostPort.slice(close + 1);
    if (port !== '' && (port[0] !== ':' || !PORT.test(port.slice(1)))) return false;
    const inner = hostPort.slice(1, close);
    return IPV6.test(inner) || IPV_FUTURE.test(inner);
  }
  const colon = hostPort.indexOf(':');
  if (colon >= 0 && !PORT.test(hostPort.slice(colon + 1))) return false;
  return REG_NAME.test(colon >= 0 ? hostPort.slice(0, colon) : hostPort);
}

/**
 * RFC 3986 absolute URI (a scheme is required; an optional fragment allowed). Split as RFC 3986 appendix B does,
 * but with `indexOf` rather than one regular expression: each part is then checked by a regular expression
 * without overlapping repetitions, so the work is linear in the length whatever the input (one regular
 * expression with overlapping groups took quadratic time on a near miss, about an hour for 1 MiB).
 */
export function isUri(s: string): boolean {
  const colon = s.indexOf(':');
  if (colon < 0 || !SCHEME.test(s.slice(0, colon))) return false;
  return isQueryFragmentAnd(s, colon + 1, isHierPart);
}

/**
 * RFC 3986 URI-reference: a URI, or a relative reference (`//authority/path`, `/path`, a path whose first segment
 * holds no `:`, or nothing), each with an optional query and fragment. Split with `indexOf` like `isUri`, so linear
 * in the length (ajv-formats' single expression backtracks on a long near miss).
 */
export function isUriReference(s: string): boolean {
  let end = s.length;
  for (const c of ['/', '?', '#']) {
    const at = s.indexOf(c);
    if (at >= 0 && at < end) end = at;
  }
  const colon = s.indexOf(':');
  // a `:` in the first segment: a scheme, or nothing valid (a relative path's first segment holds no `:`)
  if (colon >= 0 && colon < end) return isUri(s);
  return isQueryFragmentAnd(s, 0, isHierPart);
}

/** `s` from `start`: the part before an optional `?query` and `#fragment` passes `part`, and so do those. */
function isQueryFragmentAnd(s: string, start: number, part: (p: string) => boolean): boolean {
  const hash = s.indexOf('#', start);
  const beforeFragment = hash < 0 ? s : s.slice(0, hash);
  if (hash >= 0 && !QUERY.test(s.slice(hash + 1))) return false;
  const question = beforeFragment.indexOf('?', start);
  if (question >= 0 && !QUERY.test(beforeFragment.slice(question + 1))) return false;
  return part(beforeFragment.slice(start, question < 0 ? undefined : question));
}

/** `//authority path-abempty`, or a path without authority (absolute, rootless or empty). */
function isHierPart(hier: string): boolean {
  if (!hier.startsWith('//')) return PATH_NO_AUTHORITY.test(hier);
  const slash = hier.indexOf('/', 2);
  const authority = hier.slice(2, slash < 0 ? undefined : slash);
  return isAuthority(authority) && PATH_ABEMPTY.test(slash < 0 ? '' : hier.slice(slash));
}

// ajv-formats' `url` (https://gist.github.com/dperini/729294), its host part only: the user-info part
// `\S+(?::\S*)?@` overlapped itself and took quadratic time. Lookaheads here read a bounded length.
const URL_HOST = new RegExp(
  '^(?:(?!(?:10|127)(?:\\.\\d{1,3}){3})(?!(?:169\\.254|192\\.168)(?:\\.\\d{1,3}){2})' +
    '(?!172\\.(?:1[6-9]|2\\d|3[0-1])(?:\\.\\d{1,3}){2})(?:[1-9]\\d?|1\\d\\d|2[01]\\d|22[0-3])' +
    '(?:\\.(?:1?\\d{1,2}|2[0-4]\\d|25[0-5])){2}(?:\\.(?:[1-9]\\d?|1\\d\\d|2[0-4]\\d|25[0-4]))' +
    '|(?:(?:[a-z0-9\\u{00a1}-\\u{ffff}]+-)*[a-z0-9\\u{00a1}-\\u{ffff}]+)(?:\\.(?:[a-z0-9\\u{00a1}-\\u{ffff}]+-)*' +
    '[a-z0-9\\u{00a1}-\\u{ffff}]+)*(?:\\.(?:[a-z\\u{00a1}-\\u{ffff}]{2,})))(?::\\d{2,5})?$',
  'iu',
);
const URL_SCHEME = /^(?:https?|ftp):\/\//i;
// ECMAScript's \s, which `\S` in ajv-formats' expression excludes.
const WHITESPACE = /[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;

const URL_PORT_SUFFIX = /:\d{2,5}$/;
const URL_TLD = /\.[a-z\u{00a1}-\u{ffff}]{2,}$/iu;

/**
 * What `URL_HOST` needs at the end, read from the end in constant time: an IPv4 address (15 characters at most) or
 * a name whose last label is a top-level domain of two or more letters. A long near miss such as
 * `1.1.1.…1` then costs no backtracking walk over every label.
 */
function plausibleUrlHost(host: string): boolean {
  const port = URL_PORT_SUFFIX.exec(host.slice(-6));
  const name = port === null ? host : host.slice(0, host.length - port[0].length);
  return name.length <= 15 || URL_TLD.test(name.slice(name.lastIndexOf('.')));
}

/**
 * ajv-formats' `url`, with the same verdict in linear time: `scheme://[userinfo@]host[:port][/path]`, no white
 * space anywhere. The user info may hold `@` and `/`, so every `@` that could end it is tried; the host and port
 * after such an `@` run to the next `/` and hold no `@`, so the candidates are disjoint and the total work linear.
 */
export function isUrl(s: string): boolean {
  const scheme = URL_SCHEME.exec(s);
  if (scheme === null || WHITESPACE.test(s)) return false;
  const rest = s.slice(scheme[0].length);
  const hostAt = (start: number, end: number): boolean => {
    // both kinds of host hold a `.` (an IPv4 address, a name with its top-level domain): skip the expression
    // when there is none, as on the empty hosts of `a@/@/@/…`
    const host = rest.slice(start, end);
    return host.includes('.') && !host.includes('@') && plausibleUrlHost(host) && URL_HOST.test(host);
  };
  const firstSlash = rest.indexOf('/');
  if (hostAt(0, firstSlash < 0 ? rest.length : firstSlash)) return true;
  // Only the last `@` before each `/` (or the end) can end the user info, as a host never holds `@`: one pass
  // finds those, and the hosts after them are disjoint, so the work stays linear however many `@` there are.
  let lastAt = -1;
  for (let i = 0; i <= rest.length; i++) {
    const c = i < rest.length ? rest.charCodeAt(i) : 0x2f;
    if (c === 0x40) lastAt = i;
    else if (c === 0x2f && lastAt >= 0) {
      if (lastAt > 0 && hostAt(lastAt + 1, i)) return true;
      lastAt = -1;
    }
  }
  return false;
}

const isoTime = ajvFormatsDefinition('iso-time') as { validate: (s: string) => boolean };
const ISO_SEPARATOR = /[Tt\s]/g;

/**
 * ajv-formats' `iso-date-time` (a date and a time, offset optional, separated by `T` or white space), without its
 * `split`, which allocated one string per separator (a megabyte of `T`s is a million strings).
 */
export function isIsoDateTime(s: string): boolean {
  ISO_SEPARATOR.lastIndex = 0;
  const first = ISO_SEPARATOR.exec(s);
  if (first === null) return false;
  if (ISO_SEPARATOR.exec(s) !== null) return false;
  return isoDate(s.slice(0, first.index)) && isoTime.validate(s.slice(first.index + 1));
}

const isoDateFormat = ajvFormatsDefinition('date') as { validate: (s: string) => boolean };
function isoDate(s: string): boolean {
  return isoDateFormat.validate(s);
}

/** The formats replaced in ajv, by name. */
export const strictFormats: Readonly<Record<string, (s: string) => boolean>> = {
  'date-time': isDateTime,
  date: isDate,
  time: isTime,
  uuid: isUuid,
  email: isEmail,
  hostname: isHostname,
  uri: isUri,
  'uri-reference': isUriReference,
  url: isUrl,
  'iso-date-time': isIsoDateTime,
};
