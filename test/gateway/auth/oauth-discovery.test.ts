/**
 * Discovery and the guarded fetch, against small 127.0.0.1 servers that answer exactly what each case needs
 * (the happy path against a real authorization server is in `oauth-jwks-cache.test.ts`).
 */
import assert from 'node:assert/strict';
import { discoverIssuer, metadataUrls } from '../../../src/gateway/auth/oauth-discovery';
import { IssuerHttpStatusError, IssuerUnavailableError, fetchIssuerJson } from '../../../src/gateway/auth/oauth-fetch';
import { downBackendUrl, startBackend, type BackendAnswer, type TestBackend } from '../../helpers/backend';
import { rejection } from './support';

describe('metadataUrls', () => {
  it('tries RFC 8414 then OpenID Connect for an issuer without a path', () => {
    assert.deepEqual(metadataUrls('https://idp.example.com'), [
      'https://idp.example.com/.well-known/oauth-authorization-server',
      'https://idp.example.com/.well-known/openid-configuration',
    ]);
    assert.deepEqual(metadataUrls('https://idp.example.com/'), metadataUrls('https://idp.example.com'));
  });

  it('inserts the well-known segment before a path, then appends the OpenID one', () => {
    assert.deepEqual(metadataUrls('https://idp.example.com/realms/acme'), [
      'https://idp.example.com/.well-known/oauth-authorization-server/realms/acme',
      'https://idp.example.com/.well-known/openid-configuration/realms/acme',
      'https://idp.example.com/realms/acme/.well-known/openid-configuration',
    ]);
  });
});

describe('discoverIssuer and fetchIssuerJson', () => {
  let backend: TestBackend;
  let answer: (path: string) => BackendAnswer;

  before(async () => {
    backend = await startBackend({ respond: (req) => answer(req.url) });
  });
  after(() => backend.close());

  const json = (value: unknown): BackendAnswer => ({ body: JSON.stringify(value) });

  it('takes the jwks_uri and the advertised asymmetric algorithms (never HS*, never none)', async () => {
    answer = () =>
      json({
        issuer: backend.url,
        jwks_uri: `${backend.url}/keys`,
        id_token_signing_alg_values_supported: ['HS256', 'none', 'ES256', 'RS256', 'XX999'],
      });
    assert.deepEqual(await discoverIssuer(backend.url, fetch), {
      issuer: backend.url,
      jwksUri: `${backend.url}/keys`,
      algorithms: ['RS256', 'ES256'],
    });
  });

  it('moves on after a 404 and says what each location answered when none has metadata', async () => {
    answer = () => ({ status: 404, body: '{}' });
    const err = await rejection(discoverIssuer(backend.url, fetch));
    assert.ok(err instanceof IssuerUnavailableError);
    assert.equal(
      err.message,
      `no authorization server metadata found (${backend.url}/.well-known/oauth-authorization-server answered HTTP 404; ` +
        `${backend.url}/.well-known/openid-configuration answered HTTP 404)`,
    );
  });

  for (const [name, doc, reason] of [
    [
      'another issuer',
      (u: string) => ({ issuer: `${u}/`, jwks_uri: `${u}/k` }),
      /the metadata's issuer "http:\/\/127\.0\.0\.1:\d+\/" is not/,
    ],
    ['no jwks_uri', (u: string) => ({ issuer: u }), /jwks_uri undefined is missing or not an https URL/],
    [
      'a plain-http jwks_uri off loopback',
      (u: string) => ({ issuer: u, jwks_uri: 'http://keys.example.com/jwks' }),
      /jwks_uri "http:\/\/keys\.example\.com\/jwks" is missing or not an https URL/,
    ],
    ['an array', () => [], /the metadata is not a JSON object/],
  ] as const) {
    it(`refuses metadata with ${name}`, async () => {
      answer = () => json(doc(backend.url));
      const err = await rejection(discoverIssuer(backend.url, fetch));
      assert.ok(err instanceof IssuerUnavailableError);
      assert.match(err.message, reason);
    });
  }

  it('reports a non-2xx status as IssuerHttpStatusError', async () => {
    answer = () => ({ status: 503, body: 'busy' });
    const err = await rejection(fetchIssuerJson(`${backend.url}/x`, fetch));
    assert.ok(err instanceof IssuerHttpStatusError);
    assert.equal(err.status, 503);
  });

  it('gives up on a server that does not answer in time', async () => {
    answer = () => ({ delayMs: 10_000, body: '{}' });
    const err = await rejection(fetchIssuerJson(`${backend.url}/slow`, fetch, { timeoutMs: 200 }));
    assert.ok(err instanceof IssuerUnavailableError);
    assert.equal(err.message, `${backend.url}/slow: no answer in time`);
  });

  it('stops reading a body over the size limit', async () => {
    answer = () => ({ body: `"${'x'.repeat(4096)}"` });
    const err = await rejection(fetchIssuerJson(`${backend.url}/big`, fetch, { maxBytes: 1024 }));
    assert.equal((err as Error).message, `${backend.url}/big: the body is larger than 1024 bytes`);
  });

  it('refuses a body that is not JSON', async () => {
    answer = () => ({ body: '{"a":' });
    assert.equal(
      ((await rejection(fetchIssuerJson(`${backend.url}/j`, fetch))) as Error).message,
      `${backend.url}/j: the body is not JSON`,
    );
  });

  it('follows no redirect across origins: another loopback port is refused without connecting to it', async () => {
    const other = await downBackendUrl();
    answer = () => ({ status: 302, headers: { location: `${other}/jwks` } });
    const err = await rejection(fetchIssuerJson(`${backend.url}/moved`, fetch));
    assert.equal(
      (err as Error).message,
      `${backend.url}/moved: redirected to ${other}/jwks, another origin; redirects are followed only within ${backend.url}`,
    );
  });

  it('follows no redirect from https to a loopback http service (a fake fetch stands for the issuer)', async () => {
    const asked: string[] = [];
    const fakeFetch = (async (input: string | URL | Request) => {
      asked.push(String(input));
      return new Response(null, { status: 301, headers: { location: 'http://127.0.0.1:2375/keys' } });
    }) as typeof fetch;
    const err = await rejection(fetchIssuerJson('https://idp.example.com/jwks', fakeFetch));
    assert.equal(
      (err as Error).message,
      'https://idp.example.com/jwks: redirected to http://127.0.0.1:2375/keys, another origin; redirects are followed only within https://idp.example.com',
    );
    assert.deepEqual(asked, ['https://idp.example.com/jwks']);
  });

  it('follows a redirect within the same origin', async () => {
    answer = (p) => (p === '/moved' ? { status: 301, headers: { location: '/keys' } } : json({ keys: [] }));
    assert.deepEqual(await fetchIssuerJson(`${backend.url}/moved`, fetch), { keys: [] });
  });

  it('refuses a redirect to a plain-http host, without connecting to it', async () => {
    answer = () => ({ status: 302, headers: { location: 'http://keys.example.com/jwks' } });
    const before = backend.requests;
    const err = await rejection(fetchIssuerJson(`${backend.url}/moved`, fetch));
    assert.equal(
      (err as Error).message,
      `${backend.url}/moved: redirected to http://keys.example.com/jwks, which is not an https URL`,
    );
    assert.equal(backend.requests, before + 1);
  });

  it('stops after three redirects', async () => {
    answer = (p) => ({ status: 307, headers: { location: `${p}x` } });
    const before = backend.requests;
    const err = await rejection(fetchIssuerJson(`${backend.url}/r`, fetch));
    assert.equal((err as Error).message, `${backend.url}/r: HTTP 307 without a usable redirect`);
    assert.equal(backend.requests, before + 4);
  });

  it('names the refused connection on one line', async () => {
    const down = await downBackendUrl();
    const err = await rejection(fetchIssuerJson(`${down}/k`, fetch));
    assert.ok(err instanceof IssuerUnavailableError);
    assert.equal(err.message, `${down}/k: fetch failed (ECONNREFUSED)`);
  });
});
