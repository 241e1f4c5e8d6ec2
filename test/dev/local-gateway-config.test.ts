import * as assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import type { GatewayConfig } from '../../src/config';
import { generateDevToken, localGatewayConfig, mapBackendUrl, sha256Hex } from '../../src/dev/local-gateway-config';

const deployed: GatewayConfig = {
  version: 1,
  gateway: {
    name: 'agents',
    port: 8080,
    host: '0.0.0.0',
    validate_input: true,
    auth: { tokens: [{ id: 'support-bot', sha256: 'a'.repeat(64) }] },
    audit_log: true,
    allowed_hosts: ['mcp.example.com'],
    allowed_origins: ['https://app.example.com'],
  },
  tools: [
    {
      name: 'get_customer',
      description: 'Look up a customer',
      input_schema: { type: 'object' },
      backend: { url: 'http://support-desk-api:8080/customers/{customer_id}', method: 'GET' },
    },
  ],
};

describe('local gateway config', () => {
  it('maps a backend HOST:PORT and keeps {field} placeholders verbatim', () => {
    const maps = { 'support-desk-api:8080': '127.0.0.1:4711' };
    assert.equal(
      mapBackendUrl('http://support-desk-api:8080/customers/{customer_id}', maps),
      'http://127.0.0.1:4711/customers/{customer_id}',
    );
    assert.equal(mapBackendUrl('http://other:8080/x', maps), 'http://other:8080/x');
  });

  it('matches a URL without a port by the scheme default port', () => {
    assert.equal(
      mapBackendUrl('http://crm/customers', { 'crm:80': '127.0.0.1:3000' }),
      'http://127.0.0.1:3000/customers',
    );
    assert.equal(
      mapBackendUrl('https://crm/customers', { 'crm:443': '127.0.0.1:3000' }),
      'https://127.0.0.1:3000/customers',
    );
  });

  it('generates distinct 256-bit base64url tokens', () => {
    const a = generateDevToken();
    assert.match(a, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(a, generateDevToken());
  });

  it('serves on loopback with only the dev token (under the gateway’s first token id), a local audit log and the localhost allowlists', () => {
    const local = localGatewayConfig(deployed, {
      token: 'tok',
      auditLogPath: '/tmp/a.jsonl',
      maps: { 'support-desk-api:8080': '127.0.0.1:1' },
    });
    assert.deepEqual(local.gateway, {
      name: 'agents',
      port: 8080,
      host: '127.0.0.1',
      validate_input: true,
      auth: { tokens: [{ id: 'support-bot', sha256: crypto.createHash('sha256').update('tok').digest('hex') }] },
      audit_log: { path: '/tmp/a.jsonl' },
    });
    assert.equal(local.tools[0].backend.url, 'http://127.0.0.1:1/customers/{customer_id}');
    assert.equal(sha256Hex('tok'), crypto.createHash('sha256').update('tok').digest('hex'));
  });

  it('keeps the rate limits and drops the deployed store: one local process counts them exactly', () => {
    const limited = {
      ...deployed,
      gateway: {
        ...deployed.gateway,
        rate_limits: [{ calls: 60, per: 'minute' as const }],
        store: { url: 'redis://limit-store:6379', password: { secret: 'MCP_LIMIT_STORE_PASSWORD' } },
      },
    };
    const local = localGatewayConfig(limited, { auditLogPath: '/tmp/a.jsonl', maps: {} });
    assert.deepEqual(local.gateway.rate_limits, [{ calls: 60, per: 'minute' }]);
    assert.equal(local.gateway.store, undefined);
  });

  it('keeps auth none as declared', () => {
    const open = { ...deployed, gateway: { ...deployed.gateway, auth: 'none' as const } };
    assert.equal(localGatewayConfig(open, { auditLogPath: '/tmp/a.jsonl', maps: {} }).gateway.auth, 'none');
  });
});
