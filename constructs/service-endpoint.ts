import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import {
  BackendTlsConfig,
  GATEWAY_CA_DIR,
  HeaderValueConfig,
  headerNameProblem,
  headerValueProblem,
  parsePemBundle,
} from '../src/config';
import { quote } from './docker-names';
import { checkNestedProps, type PropKeys } from './known-props';
import { Secret } from './secret';

/** How the gateway checks an `https://` backend's certificate. Set one of `caFile` and `ca`. */
export interface ServiceTls {
  /**
   * A PEM file of CA certificates (relative to the directory the app runs in, or absolute), read at synthesis and
   * uploaded into the gateway container. The backend's certificate must chain to one of them (instead of Node's
   * bundled CAs).
   * @default - unless `ca` is set, Node's bundled CA certificates
   */
  readonly caFile?: string;
  /**
   * A secret holding the PEM text of the CA certificates, read by the gateway at start.
   * @default - unless `caFile` is set, Node's bundled CA certificates
   */
  readonly ca?: Secret;
}

/** A file synthesis uploads into the gateway container. */
export interface GatewayUpload {
  readonly file: string;
  readonly content: string;
}

/** The checked headers of an endpoint, as the config holds them, and the secrets they name. */
export function checkHeaders(
  headers: Readonly<Record<string, string | Secret>> | undefined,
  fail: (m: string) => never,
): { headers: Record<string, HeaderValueConfig> | undefined; secrets: string[] } {
  if (headers === undefined) return { headers: undefined, secrets: [] };
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    return fail("endpoint.headers must be an object of header name to a string or Secret.env('NAME')");
  }
  const out: Record<string, HeaderValueConfig> = Object.create(null) as Record<string, HeaderValueConfig>;
  const secrets: string[] = [];
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    const nameProblem = headerNameProblem(name);
    if (nameProblem !== undefined) fail(`endpoint.headers ${quote(name)} ${nameProblem}`);
    if (seen.has(name.toLowerCase()))
      fail(`endpoint.headers ${quote(name)} repeats another header (names are case-insensitive)`);
    seen.add(name.toLowerCase());
    if (Secret.isSecret(value)) {
      out[name] = value.toConfig();
      if (!secrets.includes(value.name)) secrets.push(value.name);
    } else if (typeof value === 'string') {
      // never quote the value: a secret pasted here by mistake must not reach build logs
      const problem = headerValueProblem(value);
      if (problem !== undefined) fail(`endpoint.headers ${quote(name)} ${problem}`);
      out[name] = value;
    } else {
      fail(`endpoint.headers ${quote(name)} must be a string or Secret.env('NAME')`);
    }
  }
  return { headers: Object.keys(out).length === 0 ? undefined : { ...out }, secrets };
}

const TLS_PROPS: PropKeys<ServiceTls> = { caFile: true, ca: true };

/** The checked TLS settings: the config's `tls`, the CA file to upload, the secret named. */
export function checkTls(
  tls: ServiceTls | undefined,
  url: string,
  fail: (m: string) => never,
): { tls: BackendTlsConfig | undefined; upload: GatewayUpload | undefined; secret: string | undefined } {
  if (tls === undefined) return { tls: undefined, upload: undefined, secret: undefined };
  checkNestedProps(tls, TLS_PROPS, 'endpoint.tls', fail);
  if (!/^https:/i.test(url)) fail(`endpoint.tls applies only to an https:// URL (endpoint.url is ${quote(url)})`);
  if ((tls.caFile === undefined) === (tls.ca === undefined)) {
    fail("endpoint.tls needs exactly one of caFile (a PEM file) and ca (Secret.env('NAME'))");
  }
  if (tls.ca !== undefined) {
    if (!Secret.isSecret(tls.ca)) fail("endpoint.tls.ca must be Secret.env('NAME')");
    return { tls: { ca_secret: tls.ca.name }, upload: undefined, secret: tls.ca.name };
  }
  const pem = readPem(tls.caFile!, fail);
  const file = `${GATEWAY_CA_DIR}/${createHash('sha256').update(pem).digest('hex').slice(0, 16)}.pem`;
  return { tls: { ca_file: file }, upload: { file, content: pem }, secret: undefined };
}

function readPem(file: string, fail: (m: string) => never): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    return fail(
      `endpoint.tls.caFile ${quote(file)} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'unreadable'}); ` +
        'the path is relative to the directory the app runs in',
    );
  }
  const bundle = parsePemBundle(text);
  if ('problem' in bundle) return fail(`endpoint.tls.caFile ${quote(file)} ${bundle.problem}`);
  return `${bundle.certificates.join('\n')}\n`;
}
