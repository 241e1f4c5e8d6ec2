import { readFileSync } from 'node:fs';
import type { Dispatcher } from 'undici';
import { ConfigError, parsePemBundle, type ToolConfig } from '../../config';
import type { SecretValues } from './secrets';

/** The largest CA bundle read. */
const MAX_CA_BYTES = 1_048_576;

/**
 * The CA bundle (PEM text) a tool's `https://` backend must chain to, read once per config load from
 * `tls.ca_file` or the secret `tls.ca_secret`; `undefined` when the tool names none (Node's bundled CAs apply).
 *
 * @param where the tool's field path, e.g. `tools[2]`, for errors
 * @throws ConfigError one line: the file cannot be read, or holds no certificate that parses
 */
export function readCaBundle(backend: ToolConfig['backend'], secrets: SecretValues, where: string): string | undefined {
  const tls = backend.tls;
  if (tls === undefined) return undefined;
  let pem: string;
  let field: string;
  if (tls.ca_file !== undefined) {
    field = `${where}.backend.tls.ca_file`;
    pem = readCaFile(tls.ca_file, field);
  } else {
    field = `${where}.backend.tls.ca_secret`;
    const value = secrets.get(tls.ca_secret!);
    if (value === undefined) throw new ConfigError(`${field}: secret ${tls.ca_secret} was not read`);
    pem = value;
  }
  const bundle = parsePemBundle(pem);
  if ('problem' in bundle) throw new ConfigError(`${field}: ${bundle.problem}`);
  return bundle.certificates.join('\n');
}

function readCaFile(file: string, field: string): string {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch (err) {
    throw new ConfigError(`${field}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  if (data.length > MAX_CA_BYTES) throw new ConfigError(`${field}: ${file} is larger than 1 MiB`);
  return data.toString('utf8');
}

/**
 * One connection pool per distinct CA bundle (a pool's TLS settings are fixed when it is made), made on first use
 * and shared by every tool that names the same bundle.
 */
export class CaDispatchers {
  private readonly pools = new Map<string, Dispatcher>();

  /** @param create makes a pool whose connections trust only `ca` */
  constructor(private readonly create: (ca: string) => Dispatcher) {}

  /** The pool for `ca`. */
  for(ca: string): Dispatcher {
    let pool = this.pools.get(ca);
    if (pool === undefined) {
      pool = this.create(ca);
      this.pools.set(ca, pool);
    }
    return pool;
  }

  /** Closes every pool. */
  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.destroy().catch(() => undefined)));
    this.pools.clear();
  }
}

/** Error codes of a certificate the backend presented but the gateway does not trust. */
const UNTRUSTED_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CERT_REVOKED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The short reason for a TLS failure code (for `Service unavailable: …`), or `undefined` for other codes. */
export function tlsFailureReason(code: string | undefined): string | undefined {
  if (code === undefined) return undefined;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return 'TLS certificate does not name the host';
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return 'TLS certificate not valid now';
  if (UNTRUSTED_CODES.has(code)) return 'TLS certificate not trusted';
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) return 'TLS handshake failed';
  return undefined;
}
