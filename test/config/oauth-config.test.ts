import assert from 'node:assert/strict';
import Ajv, { type ErrorObject } from 'ajv';
import { OAUTH_CONFIG_SCHEMA } from '../../src/config/oauth-config';

// The fragment as it will sit in the gateway config schema; failures read like parseGatewayConfig's (path + x-message).
const ajv = new Ajv({ allErrors: false, verbose: true, strict: true });
ajv.addKeyword({ keyword: 'x-message', schemaType: 'string' });
const validate = ajv.compile({ type: 'object', properties: { oauth: OAUTH_CONFIG_SCHEMA } });

function problem(oauth: unknown): string | undefined {
  if (validate({ oauth })) return undefined;
  const error = validate.errors![0] as ErrorObject;
  const path = `gateway.auth${error.instancePath.replace(/\/(\d+)/g, '[$1]').replace(/\//g, '.')}`;
  if (error.keyword === 'required')
    return `${path}.${(error.params as { missingProperty: string }).missingProperty}: is required`;
  if (error.keyword === 'additionalProperties')
    return `${path}.${(error.params as { additionalProperty: string }).additionalProperty}: unknown field`;
  return `${path}: ${(error.parentSchema as { 'x-message': string })['x-message']}`;
}

const URL_MESSAGE = 'must be an https:// URL (http:// only on localhost, 127.0.0.1 or [::1]) without query or fragment';

describe('OAUTH_CONFIG_SCHEMA', () => {
  it('is valid JSON Schema', () => {
    assert.equal(ajv.validateSchema(OAUTH_CONFIG_SCHEMA), true, ajv.errorsText(ajv.errors));
  });

  it('accepts every field', () => {
    assert.equal(
      problem({
        issuer: 'https://idp.example.com/realms/acme',
        audience: 'api://crm',
        jwks_uri: 'https://idp.example.com/keys',
        scopes: ['mcp:tools', 'crm.read'],
        principal_claim: 'email',
        algorithms: ['RS256', 'ES256', 'EdDSA'],
        allow_plain_jwt: true,
      }),
      undefined,
    );
  });

  for (const issuer of [
    'http://localhost:9000',
    'http://127.0.0.1',
    'http://[::1]:8080/x',
    'https://idp.example.com',
    'https://idp.example.com:8443/t/',
  ]) {
    it(`accepts the issuer ${issuer}`, () => assert.equal(problem({ issuer }), undefined));
  }

  for (const issuer of [
    'http://idp.example.com',
    'http://127.0.0.1.evil.example',
    'http://localhost@evil.example',
    'https://idp.example.com/?a=1',
    'https://idp.example.com/#f',
    'https://',
    'ftp://idp',
    'https://idp example.com',
    `https://${'a'.repeat(1 << 20)}?`,
  ]) {
    it(`refuses the issuer ${issuer.slice(0, 40)}`, () =>
      assert.equal(problem({ issuer }), `gateway.auth.oauth.issuer: ${URL_MESSAGE}`));
  }

  it('requires the issuer and refuses unknown fields', () => {
    assert.equal(problem({}), 'gateway.auth.oauth.issuer: is required');
    assert.equal(problem({ issuer: 'https://i', jwksUri: 'https://i/k' }), 'gateway.auth.oauth.jwksUri: unknown field');
  });

  it('refuses symmetric algorithms and none, naming the allowed ones', () => {
    for (const alg of ['HS256', 'none', 'rs256']) {
      assert.equal(
        problem({ issuer: 'https://i', algorithms: [alg] }),
        'gateway.auth.oauth.algorithms[0]: must be one of RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA (symmetric algorithms and "none" are never accepted)',
      );
    }
    assert.equal(
      problem({ issuer: 'https://i', algorithms: [] }),
      'gateway.auth.oauth.algorithms: must be a non-empty array of distinct algorithms from RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA',
    );
  });

  it('refuses scope names that could not be written in a WWW-Authenticate header', () => {
    for (const scope of ['two words', 'q"uote', 'back\\slash', '', 'é']) {
      assert.equal(
        problem({ issuer: 'https://i', scopes: [scope] }),
        'gateway.auth.oauth.scopes[0]: must be a scope name: printable ASCII without spaces, quotes or backslashes',
      );
    }
    assert.equal(
      problem({ issuer: 'https://i', scopes: ['a', 'a'] }),
      'gateway.auth.oauth.scopes: must be an array of distinct scope names',
    );
  });

  it('refuses an empty principal claim and a non-boolean allow_plain_jwt', () => {
    assert.equal(
      problem({ issuer: 'https://i', principal_claim: '' }),
      'gateway.auth.oauth.principal_claim: must be a claim name (a non-empty string)',
    );
    assert.equal(
      problem({ issuer: 'https://i', allow_plain_jwt: 'yes' }),
      'gateway.auth.oauth.allow_plain_jwt: must be true or false',
    );
  });
});
