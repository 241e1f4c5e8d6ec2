/**
 * Attack suite (issue 20): a client that reads the protected-resource metadata learns every scope the gateway may
 * ask for, `metrics:read` included when `/metrics` is behind the gateway's authentication (principals.test.ts
 * shows a token needs it there).
 */
import assert from 'node:assert/strict';
import type { GatewayConfig } from '../../src/config';
import { startBackend, type TestBackend } from '../helpers/backend';
import { gatewayConfig, supportDeskTools } from '../helpers/config';
import { freePort } from '../helpers/free-port';
import { startOidcIssuer, type OidcIssuer } from '../helpers/oidc-issuer';
import { startOn, type GatewayOnPort } from '../helpers/gateway-on-port';

describe('attack: metrics:read in the protected-resource metadata', function () {
  this.timeout(60_000);
  let backend: TestBackend;
  let idp: OidcIssuer;
  const gateways: GatewayOnPort[] = [];

  before(async () => {
    backend = await startBackend();
  });

  after(async () => {
    for (const gw of gateways) await gw.close();
    await idp?.close();
    await backend?.close();
  });

  async function metadataOf(metrics: GatewayConfig['gateway']['metrics']): Promise<{ scopes_supported?: string[] }> {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    idp ??= await startOidcIssuer({ resources: [resource] });
    const base = gatewayConfig({ name: 'scopes-gw', tokens: 'none', tools: supportDeskTools(backend.url) });
    const tools = base.tools.map((t, i) => (i === 0 ? { ...t, required_scopes: ['crm:read'] } : t));
    const config: GatewayConfig = {
      ...base,
      tools,
      gateway: {
        ...base.gateway,
        port,
        resource_url: resource,
        auth: { oauth: { issuer: idp.url, scopes: ['tools:read'] } },
        ...(metrics === undefined ? {} : { metrics }),
      },
    };
    const gw = await startOn(config, port);
    gateways.push(gw);
    const res = await fetch(gw.url.replace(/\/mcp$/, '/.well-known/oauth-protected-resource/mcp'));
    assert.equal(res.status, 200);
    return (await res.json()) as { scopes_supported?: string[] };
  }

  it('lists metrics:read beside the tools scopes when /metrics is behind the gateway authentication', async () => {
    const metadata = await metadataOf(true);
    assert.deepEqual(metadata.scopes_supported, ['tools:read', 'crm:read', 'metrics:read']);
  });

  it('does not list it when metrics are off or served on their own port (no token asked there)', async () => {
    assert.deepEqual((await metadataOf(undefined)).scopes_supported, ['tools:read', 'crm:read']);
    assert.deepEqual((await metadataOf({ port: await freePort() })).scopes_supported, ['tools:read', 'crm:read']);
  });
});
