import {
  CLIENT_HEADER,
  ConfigError,
  fieldPath,
  headerValueProblem,
  PRINCIPAL_HEADER,
  type ToolConfig,
} from '../../config';
import type { SecretValues } from './secrets';

/** Who makes a call, as far as a backend may learn it (`forward_identity`). */
export interface CallerIdentity {
  /** The token id, `null` when authentication is off. */
  readonly principal: string | null;
  readonly client: { readonly name: string | null };
}

/** The longest identity header value sent; a longer client name is cut. */
const MAX_IDENTITY_LENGTH = 256;

/**
 * The request headers of a tool as undici's flat `[name, value, …]` list: the gateway's own (`base`), then the
 * service's `headers` with secret references replaced by their values. Built once per config load.
 *
 * @param where the tool's field path, e.g. `tools[2]`, for errors
 * @throws ConfigError when a secret's value cannot be sent in a header (the message names the secret, never the value)
 */
export function backendHeaderList(
  base: readonly string[],
  backend: ToolConfig['backend'],
  secrets: SecretValues,
  where: string,
): readonly string[] {
  const entries = Object.entries(backend.headers ?? {});
  if (entries.length === 0) return base;
  const list = [...base];
  for (const [name, value] of entries) {
    if (typeof value === 'string') {
      list.push(name.toLowerCase(), value);
      continue;
    }
    const secret = secrets.get(value.secret);
    if (secret === undefined)
      throw new ConfigError(`${fieldPath(`${where}.backend.headers`, name)}: secret ${value.secret} was not read`);
    const problem = headerValueProblem(secret);
    if (problem !== undefined)
      throw new ConfigError(`${fieldPath(`${where}.backend.headers`, name)}: secret ${value.secret} ${problem}`);
    list.push(name.toLowerCase(), secret);
  }
  return list;
}

/**
 * `headers` plus `X-MCP-Principal` and `X-MCP-Client` for the caller (each only when known). Values are
 * percent-encoded outside printable ASCII (and `%` itself), so any client name can be sent and read back with
 * `decodeURIComponent`.
 */
export function withIdentity(headers: readonly string[], identity: CallerIdentity): string[] {
  const list = [...headers];
  if (identity.principal !== null) list.push(PRINCIPAL_HEADER, identityValue(identity.principal));
  if (identity.client.name !== null && identity.client.name !== '') {
    list.push(CLIENT_HEADER, identityValue(identity.client.name));
  }
  return list;
}

/** Printable ASCII but `%`: sent as is. */
const PLAIN = /^[\x21-\x24\x26-\x7e]*$/;

function identityValue(text: string): string {
  const cut = text.length > MAX_IDENTITY_LENGTH ? text.slice(0, MAX_IDENTITY_LENGTH) : text;
  if (PLAIN.test(cut)) return cut;
  let out = '';
  for (const ch of cut) out += PLAIN.test(ch) ? ch : encodeCodePoint(ch);
  return out;
}

/** UTF-8 percent-encoding of one code point; a lone surrogate becomes U+FFFD. */
function encodeCodePoint(ch: string): string {
  try {
    return encodeURIComponent(ch);
  } catch {
    return '%EF%BF%BD';
  }
}
