import assert from 'node:assert/strict';
import { insufficientScopeError, unauthorizedError, wwwAuthenticate } from '../../../src/gateway/auth/oauth-challenge';
import { OAuthTokenError } from '../../../src/gateway/auth/oauth-verifier';
import { HttpError } from '../../../src/gateway/errors/http-error';
import { RpcCode } from '../../../src/gateway/errors/jsonrpc';

const PRM = 'https://gw.example.com/.well-known/oauth-protected-resource/mcp';

describe('wwwAuthenticate', () => {
  it('names only the metadata when no token was sent', () => {
    assert.equal(wwwAuthenticate({ resourceMetadataUrl: PRM }), `Bearer resource_metadata="${PRM}"`);
  });

  it('adds error, error_description and scope in that order', () => {
    assert.equal(
      wwwAuthenticate({
        resourceMetadataUrl: PRM,
        scope: ['crm.read', 'crm.write'],
        description: 'the call needs scope "crm.write"',
        error: 'insufficient_scope',
      }),
      `Bearer resource_metadata="${PRM}", error="insufficient_scope", error_description="the call needs scope \\"crm.write\\"", scope="crm.read crm.write"`,
    );
  });

  it('takes a space-separated scope string as it is', () => {
    assert.equal(
      wwwAuthenticate({ resourceMetadataUrl: PRM, scope: 'a b' }),
      `Bearer resource_metadata="${PRM}", scope="a b"`,
    );
  });

  it('escapes quotes and backslashes, so a value cannot close its quoted string', () => {
    const header = wwwAuthenticate({
      resourceMetadataUrl: PRM,
      error: 'invalid_token',
      description: 'a "b" \\ c", error="none',
    });
    assert.equal(
      header,
      `Bearer resource_metadata="${PRM}", error="invalid_token", error_description="a \\"b\\" \\\\ c\\", error=\\"none"`,
    );
  });

  it('replaces CR, LF, other controls and non-ASCII with ?, so a value cannot add a header line', () => {
    const header = wwwAuthenticate({ resourceMetadataUrl: PRM, description: 'x\r\nSet-Cookie: a=b\u0000\u00e9\u2028' });
    assert.equal(header, `Bearer resource_metadata="${PRM}", error_description="x??Set-Cookie: a=b???"`);
    assert.doesNotMatch(header, /[^\x20-\x7E]/);
  });

  it('stays linear on 1 MiB of quotes and backslashes', () => {
    const nasty = '"\\'.repeat(512 * 1024);
    const header = wwwAuthenticate({ resourceMetadataUrl: PRM, description: nasty });
    assert.equal(header.length, `Bearer resource_metadata="${PRM}", error_description=""`.length + 2 * nasty.length);
  });
});

describe('unauthorizedError', () => {
  it('is a 401 with the bare challenge when no token was sent', () => {
    const err = unauthorizedError(PRM);
    assert.ok(err instanceof HttpError);
    assert.equal(err.status, 401);
    assert.equal(err.rpcCode, RpcCode.INVALID_REQUEST);
    assert.equal(err.message, 'Unauthorized: a valid bearer token is required');
    assert.deepEqual(err.headers, { 'WWW-Authenticate': `Bearer resource_metadata="${PRM}"` });
  });

  it('is a 401 with invalid_token and the description when a token was refused', () => {
    const err = unauthorizedError(PRM, new OAuthTokenError('the token has expired'));
    assert.equal(err.status, 401);
    assert.equal(err.message, 'Unauthorized: the token has expired');
    assert.deepEqual(err.headers, {
      'WWW-Authenticate': `Bearer resource_metadata="${PRM}", error="invalid_token", error_description="the token has expired"`,
    });
  });
});

describe('insufficientScopeError', () => {
  it('is a 403 naming the missing scope, with every required scope in the challenge, echoing the request id', () => {
    const err = insufficientScopeError(PRM, ['tools:write'], ['tools:read', 'tools:write'], 7);
    assert.equal(err.status, 403);
    assert.equal(err.rpcCode, RpcCode.INVALID_REQUEST);
    assert.equal(err.id, 7);
    assert.equal(err.message, 'Forbidden: the call needs scope "tools:write"');
    assert.deepEqual(err.headers, {
      'WWW-Authenticate': `Bearer resource_metadata="${PRM}", error="insufficient_scope", error_description="the call needs scope \\"tools:write\\"", scope="tools:read tools:write"`,
    });
  });

  it('names every missing scope', () => {
    assert.equal(insufficientScopeError(PRM, ['a', 'b']).message, 'Forbidden: the call needs scope "a", "b"');
  });
});
