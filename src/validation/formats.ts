/**
 * Format checks that follow the RFCs where ajv-formats is looser or stricter than the JSON Schema Test Suite:
 * `date-time` and `time` (RFC 3339, leap seconds only at 23:59 UTC), `uuid` (bare RFC 4122 form), `email`
 * (RFC 5321: quoted local parts and address literals), `hostname` (RFC 1123 plus IDNA A-labels, RFC 5890–5892)
 * and `uri` (RFC 3986). The other formats come from ajv-formats unchanged.
 */
import addFormats from 'ajv-formats';

const ipv6Format = addFormats.get('ipv6');
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

// RFC 3492 Punycode decoding, enough to check A-labels.
function decodePunycode(input: string): string | undefined {
  const base = 36;
  const tMin = 1;
  const tMax = 26;
  const adapt = (delta: number, points: number, first: boolean): number => {
    let d = first ? Math.floor(delta / 700) : delta >> 1;
    d += Math.floor(d / points);
    let k = 0;
    while (d > ((base - tMin) * tMax) >> 1) {
      d = Math.floor(d / (base - tMin));
      k += base;
    }
    return k + Math.floor(((base - tMin + 1) * d) / (d + 38));
  };
  const digit = (c: number): number => (c >= 48 && c <= 57 ? c - 22 : c >= 65 && c <= 90 ? c - 65 : c >= 97 && c <= 122 ? c - 97 : base);
  const output: number[] = [];
  const delimiter = input.lastIndexOf('-');
  for (let j = 0; j < Math.max(delimiter, 0); j++) output.push(input.charCodeAt(j));
  let n = 128;
  let bias = 72;
  let i = 0;
  for (let index = delimiter > 0 ? delimiter + 1 : 0; index < input.length;) {
    const oldI = i;
    let w = 1;
    for (let k = base; ; k += base) {
      if (index >= input.length) return undefined;
      const d = digit(input.charCodeAt(index++));
      if (d >= base) return undefined;
      i += d * w;
      if (i > 0x10ffff * 64) return undefined;
      const t = k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias;
      if (d < t) break;
      w *= base - t;
    }
    bias = adapt(i - oldI, output.length + 1, oldI === 0);
    n += Math.floor(i / (output.length + 1));
    i %= output.length + 1;
    if (n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) return undefined;
    output.splice(i, 0, n);
    i++;
  }
  return String.fromCodePoint(...output);
}

// Code points with canonical combining class 9 (virama), which a ZERO WIDTH JOINER must follow (RFC 5892 A.2).
const VIRAMA = /[\u094D\u09CD\u0A4D\u0ACD\u0B4D\u0BCD\u0C4D\u0CCD\u0D3B\u0D3C\u0D4D\u0DCA\u0E3A\u0EBA\u0F84\u1039\u103A\u1714\u1715\u1734\u17D2\u1A60\u1B44\u1BAA\u1BAB\u1BF2\u1BF3\u2D7F\uA806\uA82C\uA8C4\uA953\uA9C0\uAAF6\uABED]/u;

/** A U-label's characters and contextual rules (RFC 5891 §4.2, RFC 5892 appendix A). */
function isULabel(label: string): boolean {
  if (label === '' || label.startsWith('-') || label.endsWith('-') || label.slice(2, 4) === '--') return false;
  if (/^\p{M}/u.test(label)) return false;
  if (!/^[\p{L}\p{M}\p{N}\-\u00B7\u0375\u05F3\u05F4\u30FB\u200C\u200D\u06FD\u06FE\u0F0B]+$/u.test(label)) return false;
  if (/[\u0640\u07FA\u302E\u302F\u3031-\u3035\u303B]/u.test(label)) return false;
  if (/[\u0660-\u0669]/u.test(label) && /[\u06F0-\u06F9]/u.test(label)) return false;
  if (/[\u30FB]/u.test(label) && !/[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u.test(label.replace(/\u30FB/g, ''))) return false;
  const chars = Array.from(label);
  return chars.every((c, i) => {
    switch (c) {
      case '\u00B7': return chars[i - 1] === 'l' && chars[i + 1] === 'l';
      case '\u0375': return chars[i + 1] !== undefined && /\p{Script=Greek}/u.test(chars[i + 1]);
      case '\u05F3':
      case '\u05F4': return chars[i - 1] !== undefined && /\p{Script=Hebrew}/u.test(chars[i - 1]);
      case '\u200D': return chars[i - 1] !== undefined && VIRAMA.test(chars[i - 1]);
      default: return true;
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
const LOCAL_PART = new RegExp(`^(?:${ATEXT}+(?:\\.${ATEXT}+)*|"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\\x20-\\x7e])*")$`);

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

const UNRESERVED = "A-Za-z0-9\\-._~";
const SUB_DELIMS = "!$&'()*+,;=";
const PCT = '%[0-9A-Fa-f]{2}';
const PCHAR = `(?:[${UNRESERVED}${SUB_DELIMS}:@]|${PCT})`;
const URI = /^([A-Za-z][A-Za-z0-9+.-]*):(?:\/\/([^/?#]*)([^?#]*)|([^?#]*))(?:\?([^#]*))?(?:#(.*))?$/;
const USERINFO = new RegExp(`^(?:[${UNRESERVED}${SUB_DELIMS}:]|${PCT})*$`);
const REG_NAME = new RegExp(`^(?:[${UNRESERVED}${SUB_DELIMS}]|${PCT})*$`);
const PATH_ABEMPTY = new RegExp(`^(?:/${PCHAR}*)*$`);
const PATH_NO_AUTHORITY = new RegExp(`^(?:/?(?:${PCHAR}+(?:/${PCHAR}*)*)?|/)$`);
const QUERY = new RegExp(`^(?:${PCHAR}|[/?])*$`);
const IPV_FUTURE = new RegExp(`^v[0-9A-Fa-f]+\\.[${UNRESERVED}${SUB_DELIMS}:]+$`);

function isAuthority(authority: string): boolean {
  const at = authority.lastIndexOf('@');
  if (at >= 0 && !USERINFO.test(authority.slice(0, at))) return false;
  const hostPort = authority.slice(at + 1);
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(hostPort);
  if (m === null) return false;
  const host = m[1];
  if (host.startsWith('[')) {
    const inner = host.slice(1, -1);
    return IPV6.test(inner) || IPV_FUTURE.test(inner);
  }
  return REG_NAME.test(host);
}

/** RFC 3986 absolute URI (a scheme is required; an optional fragment allowed). */
export function isUri(s: string): boolean {
  const m = URI.exec(s);
  if (m === null) return false;
  const [, , authority, pathAfterAuthority, path, query, fragment] = m;
  if (authority !== undefined) {
    if (!isAuthority(authority) || !PATH_ABEMPTY.test(pathAfterAuthority)) return false;
  } else if (!PATH_NO_AUTHORITY.test(path)) {
    return false;
  }
  return (query === undefined || QUERY.test(query)) && (fragment === undefined || QUERY.test(fragment));
}

/** The formats replaced in ajv, by name. */
export const strictFormats: Readonly<Record<string, (s: string) => boolean>> = {
  'date-time': isDateTime,
  'date': isDate,
  'time': isTime,
  'uuid': isUuid,
  'email': isEmail,
  'hostname': isHostname,
  'uri': isUri,
};
