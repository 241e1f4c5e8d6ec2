/**
 * `Gateway.auth.oauth`, `resourceUrl`, token `scopes` and `Service.requiredScopes` (docs/auth.md) in the synthesized
 * gateway config, from the constructs and from a manifest; bad values fail synth naming the prop.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Gateway, Manifest, Service } from '../../index';
import { parseGatewayConfig } from '../../src/config';
import { configText, newStack, synth } from './synth';

const HASH = 'a'.repeat(64);

function service(stack: ReturnType<typeof newStack>, name: string, requiredScopes?: string[]): Service {
  return new Service(stack, name, {
    description: name,
    endpoint: { url: `http://crm:8080/${name}`, method: 'GET' },
    input: {},
    ...(requiredScopes !== undefined ? { requiredScopes } : {}),
  });
}

describe('Gateway auth.oauth and Service.requiredScopes', () => {
  it('write auth.oauth in snake_case, the default resource URL, token scopes and required_scopes; serve accepts the config', () => {
    const stack = newStack();
    new Gateway(stack, 'agents', {
      services: [service(stack, 'read_crm', ['crm.read']), service(stack, 'ping')],
      auth: {
        tokens: [{ id: 'ci', sha256: HASH, scopes: ['crm.read'] }],
        oauth: {
          issuer: 'https://idp.example.com',
          jwksUri: 'https://idp.example.com/keys',
          principalClaim: 'email',
          scopes: ['mcp'],
        },
      },
      port: 9000,
    });
    const config = parseGatewayConfig(JSON.parse(configText(synth(stack), 'agents')));
    assert.equal(config.gateway.resource_url, 'http://localhost:9000/mcp');
    assert.deepEqual(config.gateway.auth, {
      tokens: [{ id: 'ci', sha256: HASH, scopes: ['crm.read'] }],
      oauth: {
        issuer: 'https://idp.example.com',
        jwks_uri: 'https://idp.example.com/keys',
        scopes: ['mcp'],
        principal_claim: 'email',
      },
    });
    assert.deepEqual(
      config.tools.map((t) => t.required_scopes),
      [['crm.read'], undefined],
    );
  });

  it('take resourceUrl, and leave resource_url out without oauth', () => {
    const stack = newStack();
    new Gateway(stack, 'a', {
      services: [service(stack, 'x')],
      auth: { oauth: { issuer: 'https://idp.example.com' } },
      resourceUrl: 'https://mcp.example.com/mcp',
    });
    new Gateway(stack, 'b', {
      services: [service(stack, 'y')],
      auth: { tokens: [{ id: 'ci', sha256: HASH }] },
      port: 8081,
    });
    const json = synth(stack);
    assert.equal(JSON.parse(configText(json, 'a')).gateway.resource_url, 'https://mcp.example.com/mcp');
    assert.equal(JSON.parse(configText(json, 'b')).gateway.resource_url, undefined);
  });

  it('fail synth naming the prop for a plain-http issuer, an HS256 algorithm, a scope with a space, an empty auth', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { auth: { oauth: { issuer: 'http://idp.example.com' } } },
        /auth\.oauth\.issuer \('http:\/\/idp\.example\.com'\) must be an https:\/\/ URL/,
      ],
      [
        { auth: { oauth: { issuer: 'https://idp', algorithms: ['HS256'] } } },
        /auth\.oauth\.algorithms .*never HS\* or none/,
      ],
      [
        { auth: { tokens: [{ id: 'a', sha256: HASH, scopes: ['a b'] }] } },
        /auth\.tokens\[0\]\.scopes\[0\] \('a b'\) must be a scope name/,
      ],
      [{ auth: {} }, /'auth' is required/],
      [{ auth: { oauth: { issuer: 'https://idp' } }, resourceUrl: 'ftp://x' }, /resourceUrl \('ftp:\/\/x'\) must be/],
    ];
    for (const [props, message] of cases) {
      const stack = newStack();
      assert.throws(
        () => new Gateway(stack, 'g', { services: [service(stack, 'x')], ...(props as { auth: 'none' }) }),
        message,
      );
    }
    const stack = newStack();
    assert.throws(() => service(stack, 'bad', ['ok', 'ok']), /Service 'bad': requiredScopes\[1\] repeats scope 'ok'/);
  });

  it('read oauth, token scopes, resource_url and required_scopes from a manifest', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oauth-manifest-'));
    try {
      const file = path.join(dir, 'm.yaml');
      fs.writeFileSync(
        file,
        [
          'services:',
          '  read_crm:',
          '    description: Read',
          '    endpoint: { url: "http://crm:8080/r", method: GET }',
          '    required_scopes: [crm.read]',
          'gateways:',
          '  agents:',
          '    services: [read_crm]',
          '    resource_url: https://mcp.example.com/mcp',
          '    auth:',
          '      tokens: [{ id: ci, sha256: "' + HASH + '", scopes: [crm.read] }]',
          '      oauth: { issuer: "https://idp.example.com", principal_claim: email, allow_plain_jwt: true }',
        ].join('\n'),
      );
      const stack = newStack();
      new Manifest(stack, 'm', { path: file });
      const config = parseGatewayConfig(JSON.parse(configText(synth(stack), 'agents')));
      assert.equal(config.gateway.resource_url, 'https://mcp.example.com/mcp');
      assert.deepEqual(config.gateway.auth, {
        tokens: [{ id: 'ci', sha256: HASH, scopes: ['crm.read'] }],
        oauth: { issuer: 'https://idp.example.com', principal_claim: 'email', allow_plain_jwt: true },
      });
      assert.deepEqual(config.tools[0].required_scopes, ['crm.read']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
