/**
 * A real OAuth 2.1 authorization server for tests: `oidc-provider` on 127.0.0.1 (ephemeral port) with one
 * confidential client for the `client_credentials` grant, resource indicators (RFC 8707) for the resources the test
 * names, JWT access tokens (RFC 9068, `typ: at+jwt`) and two scopes. Tokens come from its real token endpoint.
 *
 * Beyond a plain server it lets a test:
 * - rotate the signing key (`rotateKey`: a new provider with a new key behind the same URL),
 * - count requests per path (`requestCount('/jwks')`),
 * - go down and come back on the same port (`stop` / `start`),
 * - answer one path with a canned body (`override`, e.g. a JWKS that does not parse),
 * - sign arbitrary claims with its current private key (`sign`), for tokens its endpoint would never issue.
 *
 * oidc-provider is an ES module; it is loaded with a dynamic `import()` from this CommonJS test code.
 */
import { createPrivateKey, generateKeyPairSync, randomBytes, sign as cryptoSign, type JsonWebKey } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { JWK, JWTPayload } from 'jose' with { 'resolution-mode': 'import' };
import type * as OidcProvider from 'oidc-provider' with { 'resolution-mode': 'import' };

/** The scopes the issuer knows, as two tools would need them. */
export const ISSUER_SCOPES = ['tools:read', 'tools:write'] as const;

/** What the test wants of the issuer. */
export interface OidcIssuerOptions {
  /**
   * Resource indicators the issuer issues tokens for (a gateway's `…/mcp` URL and, for "another resource"
   * cases, any other). The first one is the default when a token request names none.
   */
  readonly resources: readonly string[];
  /** Access token lifetime. @default 300 */
  readonly accessTokenTtlSeconds?: number;
  /** The port to listen on (a fixed one for running it by hand, see docs/auth.md). @default 0 (ephemeral) */
  readonly port?: number;
  /** The client's secret. @default - random */
  readonly clientSecret?: string;
}

/** A token request to the issuer's token endpoint. */
export interface TokenRequest {
  /** Space-separated scopes. @default - both {@link ISSUER_SCOPES} */
  readonly scope?: string;
  /** The RFC 8707 `resource`. @default - the first of `resources` */
  readonly resource?: string;
}

/** A private signing key the issuer holds, with its public JWK (`kid`, `alg`, `use` set). */
export interface IssuerKey {
  readonly kid: string;
  readonly privateJwk: JWK;
  readonly publicJwk: JWK;
  /** The SPKI PEM of the public key (for the "HS256 with the public key as secret" forgery). */
  readonly publicPem: string;
}

/** A running issuer. */
export interface OidcIssuer {
  /** The issuer identifier, `http://127.0.0.1:PORT` (no trailing slash). */
  readonly url: string;
  readonly port: number;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The key new tokens are signed with. */
  readonly currentKey: IssuerKey;
  /** Gets a real access token from the token endpoint (client_credentials, HTTP Basic client authentication). */
  getToken(request?: TokenRequest): Promise<string>;
  /**
   * Signs `payload` (RS256, `typ: at+jwt`, the key's `kid`) with the current key or `key`; `header` fields are
   * added or replaced (an `undefined` one is left out). No check of any kind: tests forge with it.
   */
  sign(payload: JWTPayload, options?: { header?: Record<string, unknown>; key?: IssuerKey }): Promise<string>;
  /** Replaces the signing key: new tokens use a fresh key; the JWKS keeps the old one too unless `dropOld`. */
  rotateKey(options?: { dropOld?: boolean }): Promise<IssuerKey>;
  /** Requests received for a path (query ignored), e.g. `/jwks`. */
  requestCount(path: string): number;
  /** Answers `path` with this status and body instead of the provider until cleared with `undefined`. */
  override(path: string, answer: { status: number; body: string } | undefined): void;
  /** Stops listening and drops open connections (the issuer is down; its URL refuses connections). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

const CLIENT_ID = 'test-agent';

/** A fresh RSA signing key with a random `kid`. */
export function makeIssuerKey(): IssuerKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = `k-${randomBytes(6).toString('hex')}`;
  const meta = { kid, alg: 'RS256', use: 'sig' };
  return {
    kid,
    privateJwk: { ...(privateKey.export({ format: 'jwk' }) as JWK), ...meta },
    publicJwk: { ...(publicKey.export({ format: 'jwk' }) as JWK), ...meta },
    publicPem: publicKey.export({ format: 'pem', type: 'spki' }) as string,
  };
}

/**
 * Starts an issuer on 127.0.0.1.
 * @example
 * const idp = await startOidcIssuer({ resources: ['http://127.0.0.1:8080/mcp'] });
 * after(() => idp.close());
 * const token = await idp.getToken({ scope: 'tools:read' });
 */
export async function startOidcIssuer(options: OidcIssuerOptions): Promise<OidcIssuer> {
  // Its import warns that Node 20 is not its preferred runtime; it runs fine there for what the tests use.
  const { default: Provider, errors } = await quietly(() => import('oidc-provider'));
  const clientSecret = options.clientSecret ?? randomBytes(24).toString('base64url');
  const counts = new Map<string, number>();
  const overrides = new Map<string, { status: number; body: string }>();
  const sockets = new Set<Socket>();
  let keys: IssuerKey[] = [makeIssuerKey()];
  let handler: http.RequestListener | undefined;

  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const canned = overrides.get(path);
    if (canned !== undefined) {
      res.writeHead(canned.status, { 'content-type': 'application/json' }).end(canned.body);
      return;
    }
    handler!(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await listen(server, options.port ?? 0);
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  const makeProvider = (): OidcProvider.default => {
    const provider = new Provider(url, {
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: clientSecret,
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
          token_endpoint_auth_method: 'client_secret_basic',
          scope: ISSUER_SCOPES.join(' '),
        },
      ],
      jwks: { keys: keys.map((k) => k.privateJwk) as OidcProvider.JWK[] },
      scopes: [...ISSUER_SCOPES],
      ttl: { ClientCredentials: options.accessTokenTtlSeconds ?? 300 },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => options.resources[0],
          getResourceServerInfo: (_ctx, resourceIndicator) => {
            if (!options.resources.includes(resourceIndicator)) throw new errors.InvalidTarget();
            return {
              scope: ISSUER_SCOPES.join(' '),
              audience: resourceIndicator,
              accessTokenFormat: 'jwt',
              accessTokenTTL: options.accessTokenTtlSeconds ?? 300,
              jwt: { sign: { alg: 'RS256', kid: keys[0].kid } },
            };
          },
        },
      },
    });
    return provider;
  };
  handler = quietly(makeProvider).callback();

  const issuer: OidcIssuer = {
    url,
    port,
    clientId: CLIENT_ID,
    clientSecret,
    get currentKey() {
      return keys[0];
    },
    async getToken(request = {}) {
      const body = new URLSearchParams({
        grant_type: 'client_credentials',
        scope: request.scope ?? ISSUER_SCOPES.join(' '),
      });
      body.set('resource', request.resource ?? options.resources[0]);
      const response = await fetch(`${url}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body,
      });
      const json = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
      if (response.status !== 200 || typeof json.access_token !== 'string') {
        throw new Error(`token endpoint answered ${response.status}: ${json.error} ${json.error_description}`);
      }
      return json.access_token;
    },
    async sign(payload, signOptions = {}) {
      // node:crypto rather than jose's SignJWT, which refuses some of the odd headers tests need (e.g. `crit`).
      const key = signOptions.key ?? keys[0];
      const header = { alg: 'RS256', typ: 'at+jwt', kid: key.kid, ...signOptions.header };
      const signingInput = `${base64urlJson(header)}.${base64urlJson(payload)}`;
      const privateKey = createPrivateKey({ key: key.privateJwk as JsonWebKey, format: 'jwk' });
      return `${signingInput}.${cryptoSign('sha256', Buffer.from(signingInput), privateKey).toString('base64url')}`;
    },
    async rotateKey(rotateOptions = {}) {
      const fresh = makeIssuerKey();
      keys = rotateOptions.dropOld === true ? [fresh] : [fresh, ...keys];
      handler = quietly(makeProvider).callback();
      return fresh;
    },
    requestCount: (path) => counts.get(path) ?? 0,
    override(path, answer) {
      if (answer === undefined) overrides.delete(path);
      else overrides.set(path, answer);
    },
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    start: () => listen(server, port),
    async close() {
      if (server.listening) await issuer.stop();
    },
  };
  return issuer;
}

function base64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function listen(server: http.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * oidc-provider prints notices about its in-memory adapter and the runtime; they are what a test wants, so they
 * are kept out of the test output (console is restored once `make` has settled).
 */
function quietly<T>(make: () => T): T {
  const { warn, info } = console;
  console.warn = () => undefined;
  console.info = () => undefined;
  const restore = () => {
    console.warn = warn;
    console.info = info;
  };
  try {
    const result = make();
    if (result instanceof Promise) {
      return result.finally(restore) as T;
    }
    restore();
    return result;
  } catch (err) {
    restore();
    throw err;
  }
}
