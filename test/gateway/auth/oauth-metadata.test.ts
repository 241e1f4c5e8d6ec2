import assert from 'node:assert/strict';
import {
  protectedResourceMetadata,
  protectedResourceMetadataPaths,
  protectedResourceMetadataUrl,
} from '../../../src/gateway/auth/oauth-metadata';

describe('protectedResourceMetadata', () => {
  it('is exactly the RFC 9728 document: resource, authorization_servers, scopes_supported, bearer_methods_supported', () => {
    const doc = protectedResourceMetadata({
      resource: 'https://gw.example.com/mcp',
      authorizationServers: ['https://idp.example.com'],
      scopes: ['tools:read', 'tools:write', 'tools:read'],
    });
    assert.equal(
      JSON.stringify(doc),
      '{"resource":"https://gw.example.com/mcp","authorization_servers":["https://idp.example.com"],' +
        '"scopes_supported":["tools:read","tools:write"],"bearer_methods_supported":["header"]}',
    );
  });

  it('leaves out scopes_supported when the gateway knows no scope', () => {
    const doc = protectedResourceMetadata({
      resource: 'http://127.0.0.1:8080/mcp',
      authorizationServers: ['http://127.0.0.1:9000'],
    });
    assert.deepEqual(doc, {
      resource: 'http://127.0.0.1:8080/mcp',
      authorization_servers: ['http://127.0.0.1:9000'],
      bearer_methods_supported: ['header'],
    });
  });

  it("copies its inputs (a later change to the caller's array does not leak in)", () => {
    const servers = ['https://idp.example.com'];
    const doc = protectedResourceMetadata({ resource: 'https://gw/mcp', authorizationServers: servers });
    servers.push('https://evil.example.com');
    assert.deepEqual(doc.authorization_servers, ['https://idp.example.com']);
  });
});

describe('protectedResourceMetadataUrl and paths', () => {
  it('insert the well-known segment between host and path (RFC 9728 §3.1)', () => {
    assert.equal(
      protectedResourceMetadataUrl('https://gw.example.com:8443/mcp'),
      'https://gw.example.com:8443/.well-known/oauth-protected-resource/mcp',
    );
    assert.deepEqual(protectedResourceMetadataPaths('https://gw.example.com/mcp'), [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]);
  });

  it('serve one path for a resource at the root', () => {
    assert.equal(
      protectedResourceMetadataUrl('http://127.0.0.1:8080/'),
      'http://127.0.0.1:8080/.well-known/oauth-protected-resource',
    );
    assert.deepEqual(protectedResourceMetadataPaths('http://127.0.0.1:8080'), [
      '/.well-known/oauth-protected-resource',
    ]);
  });

  it('keep a deeper path and drop a trailing slash', () => {
    assert.deepEqual(protectedResourceMetadataPaths('https://gw/tenant/a/mcp/'), [
      '/.well-known/oauth-protected-resource/tenant/a/mcp',
      '/.well-known/oauth-protected-resource',
    ]);
  });
});
