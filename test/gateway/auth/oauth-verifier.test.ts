/**
 * Token checks against a real authorization server (oidc-provider on 127.0.0.1): real tokens from its token
 * endpoint are accepted; forged and wrong tokens are each refused as `invalid_token` with a description that
 * says what is wrong and carries neither the token nor a stack.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { OAuthConfig } from '../../../src/config/oauth-config';
import { MAX_TOKEN_CHARS, OAuthTokenError, type OAuthVerifier } from '../../../src/gateway/auth/oauth-verifier';
import { makeIssuerKey, startOidcIssuer, type OidcIssuer } from '../../helpers/oidc-issuer';
import { GATEWAY_RESOURCE, OTHER_RESOURCE, b64json, epochSeconds, rejection, verifierFor } from './support';

describe('OAuth verifier against a real authorization server', () => {
  let idp: OidcIssuer;
  let verifier: OAuthVerifier;

  before(async () => {
    idp = await startOidcIssuer({ resources: [GATEWAY_RESOURCE, OTHER_RESOURCE] });
    verifier = verifierFor(idp);
  });
  after(() => idp.close());

  /** Claims of a token the issuer could have issued for the gateway, valid now. */
  function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
    const now = epochSeconds();
    return {
      iss: idp.url,
      aud: GATEWAY_RESOURCE,
      sub: 'agent-7',
      client_id: 'test-agent',
      scope: 'tools:read',
      iat: now,
      exp: now + 300,
      jti: 'j1',
      ...overrides,
    };
  }

  async function refusal(token: string, v: OAuthVerifier = verifier): Promise<string> {
    const err = await rejection(v.verify(token));
    assert.ok(err instanceof OAuthTokenError, `expected OAuthTokenError, got ${String(err)}`);
    assert.equal(err.error, 'invalid_token');
    assert.doesNotMatch(err.description, /\n|at .*\(|eyJ/, 'no stack, no token in the description');
    return err.description;
  }

  describe('accepts', () => {
    it('a token from the token endpoint: principal is sub, client is client_id, scopes from scope', async () => {
      const token = await idp.getToken();
      const caller = await verifier.verify(token);
      const exp = (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { exp: number }).exp;
      assert.deepEqual(caller, {
        principal: 'test-agent',
        client: 'test-agent',
        scopes: new Set(['tools:read', 'tools:write']),
        expiresAtMs: exp * 1000,
      });
    });

    it('a token with only the scope that was asked for', async () => {
      const caller = await verifier.verify(await idp.getToken({ scope: 'tools:read' }));
      assert.deepEqual([...caller.scopes], ['tools:read']);
    });

    it('expiry, not-before and issued-at up to 60 s off (clock skew)', async () => {
      const now = epochSeconds();
      await verifier.verify(await idp.sign(claims({ exp: now - 50 })));
      await verifier.verify(await idp.sign(claims({ nbf: now + 50 })));
      await verifier.verify(await idp.sign(claims({ iat: now + 50 })));
    });

    it('the configured principal claim, and azp as the client when client_id is absent', async () => {
      const v = verifierFor(idp, { principal_claim: 'email' });
      const token = await idp.sign(claims({ email: 'ops@example.com', client_id: undefined, azp: 'web-app' }));
      const caller = await v.verify(token);
      assert.equal(caller.principal, 'ops@example.com');
      assert.equal(caller.client, 'web-app');
    });

    it('scp as a list when there is no scope claim', async () => {
      const caller = await verifier.verify(await idp.sign(claims({ scope: undefined, scp: ['a', 'b', 7] })));
      assert.deepEqual([...caller.scopes], ['a', 'b']);
    });

    it('no client and no scopes when the token names neither', async () => {
      const caller = await verifier.verify(await idp.sign(claims({ client_id: undefined, scope: undefined })));
      assert.equal(caller.client, null);
      assert.equal(caller.scopes.size, 0);
    });

    it('the configured audience instead of the resource URL', async () => {
      const v = verifierFor(idp, { audience: 'api://crm' });
      await v.verify(await idp.sign(claims({ aud: ['api://crm', 'other'] })));
      assert.equal(await refusal(await idp.sign(claims()), v), 'the token is meant for another resource (aud)');
    });

    it('a resource URL compared as given (a bare origin gains no trailing slash)', async () => {
      const v = verifierFor(idp, {}, { resourceUrl: 'http://127.0.0.1:18080' });
      await v.verify(await idp.sign(claims({ aud: 'http://127.0.0.1:18080' })));
      assert.equal(
        await refusal(await idp.sign(claims({ aud: 'http://127.0.0.1:18080/' })), v),
        'the token is meant for another resource (aud)',
      );
    });

    it('a plain JWT (typ JWT or none) only when allow_plain_jwt is set', async () => {
      const plain = await idp.sign(claims(), { header: { typ: 'JWT' } });
      const untyped = await idp.sign(claims(), { header: { typ: undefined } });
      const v = verifierFor(idp, { allow_plain_jwt: true });
      await v.verify(plain);
      await v.verify(untyped);
      await v.verify(await idp.sign(claims(), { header: { typ: 'application/at+jwt' } }));
      assert.equal(await refusal(plain), 'the token is not a JWT access token (typ must be "at+jwt")');
      assert.equal(await refusal(untyped), 'the token is not a JWT access token (typ must be "at+jwt")');
      assert.equal(
        await refusal(await idp.sign(claims(), { header: { typ: 'dpop+jwt' } }), v),
        'the token is not a JWT access token (typ must be "at+jwt", "JWT" or absent)',
      );
    });
  });

  describe('refuses forged and wrong tokens (each invalid_token)', () => {
    const now = () => epochSeconds();
    /** Each row: the case, how to make the token, the description the agent gets. */
    const forged: [string, () => Promise<string>, string][] = [
      [
        'expired (exp 2 min ago)',
        () => idp.sign(claims({ exp: now() - 120, iat: now() - 400 })),
        'the token has expired',
      ],
      [
        'not yet valid (nbf in 2 min)',
        () => idp.sign(claims({ nbf: now() + 120 })),
        'the token is not valid yet (nbf)',
      ],
      [
        'wrong iss',
        () => idp.sign(claims({ iss: 'http://127.0.0.1:1' })),
        'the token was issued by another issuer (iss)',
      ],
      [
        'wrong aud',
        () => idp.sign(claims({ aud: 'http://127.0.0.1:18080/other' })),
        'the token is meant for another resource (aud)',
      ],
      [
        'alg none',
        async () => `${b64json({ alg: 'none', typ: 'at+jwt' })}.${b64json(claims())}.`,
        "the token's signing algorithm none is not accepted",
      ],
      [
        "HS256 signed with the issuer's public key as the secret",
        async () => hs256(claims(), idp.currentKey.publicPem, idp.currentKey.kid),
        "the token's signing algorithm HS256 is not accepted",
      ],
      [
        'a key the JWKS does not hold',
        () => idp.sign(claims(), { key: makeIssuerKey() }),
        "no key of the issuer matches the token's kid",
      ],
      [
        "another key claiming the issuer's kid",
        () => idp.sign(claims(), { key: { ...makeIssuerKey(), kid: idp.currentKey.kid } }),
        'the token signature is invalid',
      ],
      [
        'tampered payload (scope widened)',
        async () => tamper(await idp.getToken({ scope: 'tools:read' })),
        'the token signature is invalid',
      ],
      [
        'a token for another resource (from the token endpoint)',
        () => idp.getToken({ resource: OTHER_RESOURCE }),
        'the token is meant for another resource (aud)',
      ],
      ['no exp', () => idp.sign(claims({ exp: undefined })), 'the token has no valid expiry (exp)'],
      [
        'iat in the future',
        () => idp.sign(claims({ iat: now() + 3600, exp: now() + 7200 })),
        'the token was issued in the future (iat)',
      ],
      ['iat not a number', () => idp.sign(claims({ iat: 'yesterday' })), "the token's iat claim is invalid"],
      ['no sub', () => idp.sign(claims({ sub: undefined })), 'the token has no "sub" claim'],
      ['sub not a string', () => idp.sign(claims({ sub: 42 })), 'the token has no "sub" claim'],
      [
        'an ID-token-like typ JWT',
        () => idp.sign(claims(), { header: { typ: 'JWT' } }),
        'the token is not a JWT access token (typ must be "at+jwt")',
      ],
      [
        'unknown crit header',
        () => idp.sign(claims(), { header: { crit: ['x-bank'], 'x-bank': 1 } }),
        'the token could not be verified',
      ],
      ['not a JWT', async () => 'opaque-token-value', 'the token is not a signed JWT'],
      ['a JWE (five parts)', async () => 'a.b.c.d.e', 'the token is not a signed JWT'],
      [
        'a header that is not JSON',
        async () => `${Buffer.from('{nope').toString('base64url')}.${b64json(claims())}.c2ln`,
        'the token is not a signed JWT',
      ],
      ['1 MiB of base64url', async () => 'A'.repeat(1024 * 1024), 'the token is too long'],
    ];

    for (const [name, make, description] of forged) {
      it(`${name} → "${description}"`, async () => {
        assert.equal(await refusal(await make()), description);
      });
    }

    it('an RS256 token when only ES256 is configured', async () => {
      const v = verifierFor(idp, { algorithms: ['ES256'] });
      assert.equal(await refusal(await idp.getToken(), v), "the token's signing algorithm RS256 is not accepted");
    });

    it('an algorithm the issuer does not advertise, by default (it advertises RS256 only)', async () => {
      const v = verifierFor(idp);
      const token = `${b64json({ alg: 'ES256', typ: 'at+jwt', kid: idp.currentKey.kid })}.${b64json(claims())}.c2ln`;
      assert.equal(await refusal(token, v), "the token's signing algorithm ES256 is not accepted");
      assert.equal(await refusal(token, v), "the token's signing algorithm ES256 is not accepted");
    });

    it('an HS256 forgery even when a misconfigured allowlist names HS256 (the key set never yields a secret)', async () => {
      const v = verifierFor(idp, { algorithms: ['HS256'] as unknown as OAuthConfig['algorithms'] });
      const token = hs256(claims(), idp.currentKey.publicPem, idp.currentKey.kid);
      assert.equal(await refusal(token, v), 'the token could not be verified');
    });

    it('__proto__ or constructor as the principal claim never reads the prototype', async () => {
      for (const claim of ['__proto__', 'constructor', 'toString']) {
        const v = verifierFor(idp, { principal_claim: claim });
        assert.equal(await refusal(await idp.sign(claims()), v), `the token has no ${JSON.stringify(claim)} claim`);
      }
    });

    it('a token of exactly the length limit is parsed; one character more is not', async () => {
      const atLimit = `${'A'.repeat(MAX_TOKEN_CHARS - 4)}.A.A`;
      assert.equal(await refusal(atLimit), 'the token is not a signed JWT');
      assert.equal(await refusal(`${atLimit}A`), 'the token is too long');
    });
  });
});

function hs256(payload: Record<string, unknown>, secret: string, kid: string): string {
  const signingInput = `${b64json({ alg: 'HS256', typ: 'at+jwt', kid })}.${b64json(payload)}`;
  return `${signingInput}.${createHmac('sha256', secret).update(signingInput).digest('base64url')}`;
}

/** Rewrites the payload of a signed token (widening its scope), keeping the header and signature. */
function tamper(token: string): string {
  const [header, payload, signature] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  return `${header}.${b64json({ ...claims, scope: 'tools:read tools:write admin' })}.${signature}`;
}
