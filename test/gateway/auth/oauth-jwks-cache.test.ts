/**
 * The issuer's keys over time, against a real authorization server: rotation (one refetch), the refetch rate
 * limit under a flood of unknown `kid`s (counted at the issuer), the issuer down and back, a key set that does
 * not parse, metadata that names another issuer. The verifier's clock is moved by hand.
 */
import assert from 'node:assert/strict';
import { OAuthTokenError, type OAuthVerifier } from '../../../src/gateway/auth/oauth-verifier';
import { startOidcIssuer, type OidcIssuer } from '../../helpers/oidc-issuer';
import {
  GATEWAY_RESOURCE,
  epochSeconds,
  manualClock,
  recordingLogger,
  rejection,
  verifierFor,
  type ManualClock,
} from './support';

const UNAVAILABLE = 'the authorization server is unavailable, so the token cannot be checked; try again later';
const FLOOD = 200;

describe('OAuth keys: rotation, rate limit, outages', () => {
  let idp: OidcIssuer;
  let clock: ManualClock;
  let logs: ReturnType<typeof recordingLogger>;
  let verifier: OAuthVerifier;

  beforeEach(async () => {
    // Tokens live an hour, so moving the verifier's clock by minutes does not expire them.
    idp = await startOidcIssuer({ resources: [GATEWAY_RESOURCE], accessTokenTtlSeconds: 3600 });
    clock = manualClock();
    logs = recordingLogger();
    verifier = verifierFor(idp, {}, { now: clock.now, logger: logs.logger });
    floodTokens = undefined;
  });
  afterEach(() => idp.close());

  const jwksRequests = () => idp.requestCount('/jwks');

  async function description(token: string): Promise<string> {
    const err = await rejection(verifier.verify(token));
    assert.ok(err instanceof OAuthTokenError, String(err));
    return err.description;
  }

  /** A token signed with the issuer's key but naming a `kid` the issuer never published. */
  function unknownKidToken(i: number): Promise<string> {
    const now = epochSeconds(clock.now());
    return idp.sign(
      { iss: idp.url, aud: GATEWAY_RESOURCE, sub: 'x', iat: now, exp: now + 3600 },
      { header: { kid: `flood-${i}` } },
    );
  }

  /** Verifies {@link FLOOD} tokens with distinct unknown kids at once; the tokens are signed once per test. */
  let floodTokens: string[] | undefined;
  async function flood(): Promise<string[]> {
    floodTokens ??= await Promise.all(Array.from({ length: FLOOD }, (_, i) => unknownKidToken(i)));
    return Promise.all(floodTokens.map((t) => description(t)));
  }

  it('fetches the metadata and the JWKS once for many tokens', async () => {
    const token = await idp.getToken();
    await Promise.all(Array.from({ length: 20 }, () => verifier.verify(token)));
    assert.equal(jwksRequests(), 1);
    assert.equal(idp.requestCount('/.well-known/oauth-authorization-server'), 1);
  });

  it('verifies a token of a rotated key after exactly one refetch, once the minute since the last fetch is over', async () => {
    await verifier.verify(await idp.getToken());
    assert.equal(jwksRequests(), 1);

    await idp.rotateKey();
    const rotated = await idp.getToken();
    // Within the minute: no refetch, the new kid is unknown.
    assert.equal(await description(rotated), "no key of the issuer matches the token's kid");
    assert.equal(jwksRequests(), 1);

    clock.advance(60_000);
    const caller = await verifier.verify(rotated);
    assert.equal(caller.principal, 'test-agent');
    assert.equal(jwksRequests(), 2, 'exactly one refetch');
    await verifier.verify(await idp.getToken());
    assert.equal(jwksRequests(), 2, 'the new key is cached');
  });

  it('refetches at most once a minute under a flood of unknown kids', async () => {
    await verifier.verify(await idp.getToken());
    assert.equal(jwksRequests(), 1);

    // Same instant as the first fetch: no refetch at all.
    for (const d of await flood()) assert.equal(d, "no key of the issuer matches the token's kid");
    assert.equal(jwksRequests(), 1);

    // A minute later: the concurrent flood shares one refetch; the next flood at the same instant makes none.
    clock.advance(60_000);
    await flood();
    assert.equal(jwksRequests(), 2);
    await flood();
    assert.equal(jwksRequests(), 2);

    clock.advance(59_999);
    await flood();
    assert.equal(jwksRequests(), 2, '59.999 s after the last fetch');
    clock.advance(1);
    await flood();
    assert.equal(jwksRequests(), 3);
  });

  it('fails closed while the issuer is down, logs one line naming it, and recovers when it is back', async () => {
    const token = await idp.getToken();
    await idp.stop();

    assert.equal(await description(token), UNAVAILABLE);
    assert.equal(await description(token), UNAVAILABLE);
    const warnings = logs.records.filter((r) => r.level === 'warn');
    assert.equal(warnings.length, 1, 'the second refusal (within 5 s) makes no attempt and writes no line');
    assert.equal(warnings[0].issuer, idp.url);
    assert.match(String(warnings[0].reason), /oauth-authorization-server: fetch failed \(ECONNREFUSED\)/);
    assert.doesNotMatch(JSON.stringify(warnings[0]), /\\n|eyJ/);

    await idp.start();
    assert.equal(await description(token), UNAVAILABLE, 'no new attempt within 5 s of the failure');
    clock.advance(5_000);
    assert.equal((await verifier.verify(token)).principal, 'test-agent');
    assert.deepEqual(logs.records.at(-1), {
      level: 'info',
      msg: 'oauth: the authorization server answers again',
      issuer: idp.url,
    });
  });

  it('keeps using fresh cached keys while the issuer is down, and refuses once they are ten minutes old', async () => {
    const token = await idp.getToken();
    await verifier.verify(token);
    await idp.stop();
    clock.advance(599_999);
    await verifier.verify(token);
    clock.advance(1);
    assert.equal(await description(token), UNAVAILABLE);
    await idp.start();
    clock.advance(5_000);
    await verifier.verify(token);
    assert.equal(jwksRequests(), 2);
  });

  for (const [name, body, answer] of [
    ['not JSON', '<html>oops</html>', UNAVAILABLE],
    ['JSON but not a key set', '{"keys":"none"}', UNAVAILABLE],
    ['over 256 KiB', `{"keys":[],"pad":"${'x'.repeat(256 * 1024)}"}`, UNAVAILABLE],
    [
      'a key set whose key is not a key',
      '{"keys":[{"kty":"RSA","kid":"KID","n":"!!","e":"AQAB"}]}',
      'the token could not be verified',
    ],
    ['a key set holding a private key', 'PRIVATE', 'the token could not be verified'],
  ] as const) {
    it(`fails closed on a JWKS that is ${name}, and recovers when it is fixed`, async () => {
      const token = await idp.getToken();
      const keySet =
        body === 'PRIVATE'
          ? JSON.stringify({ keys: [idp.currentKey.privateJwk] })
          : body.replace('KID', idp.currentKey.kid);
      idp.override('/jwks', { status: 200, body: keySet });
      assert.equal(await description(token), answer);
      idp.override('/jwks', undefined);
      clock.advance(600_000);
      await verifier.verify(token);
    });
  }

  it('refuses metadata that names another issuer (and does not fetch its keys)', async () => {
    idp.override('/.well-known/oauth-authorization-server', {
      status: 200,
      body: JSON.stringify({ issuer: 'http://127.0.0.1:1', jwks_uri: `${idp.url}/jwks` }),
    });
    assert.equal(await description(await idp.getToken()), UNAVAILABLE);
    assert.equal(jwksRequests(), 0);
    assert.match(
      String(logs.records[0].reason),
      /the metadata's issuer "http:\/\/127\.0\.0\.1:1" is not "http:\/\/127\.0\.0\.1:\d+"/,
    );
  });

  it('falls back to openid-configuration when oauth-authorization-server is not served', async () => {
    idp.override('/.well-known/oauth-authorization-server', { status: 404, body: '{}' });
    await verifier.verify(await idp.getToken());
    assert.equal(idp.requestCount('/.well-known/openid-configuration'), 1);
  });

  it('uses a configured jwks_uri without discovery, and warm() loads it before the first token', async () => {
    const v = verifierFor(idp, { jwks_uri: `${idp.url}/jwks` }, { now: clock.now });
    await v.warm();
    assert.equal(jwksRequests(), 1);
    await v.verify(await idp.getToken());
    assert.equal(jwksRequests(), 1);
    assert.equal(idp.requestCount('/.well-known/oauth-authorization-server'), 0);
    assert.equal(idp.requestCount('/.well-known/openid-configuration'), 0);
  });

  it('warm() never throws while the issuer is down', async () => {
    await idp.stop();
    await verifier.warm();
    assert.equal(logs.records.filter((r) => r.level === 'warn').length, 1);
  });
});
