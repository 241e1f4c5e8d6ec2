/**
 * The gateway as an OAuth 2.1 resource server (issue 15, docs/auth.md), against a real authorization server
 * (`oidc-provider` on 127.0.0.1, see test/helpers/oidc-issuer.ts): the 401 challenge and the RFC 9728 metadata,
 * the official SDK client signing in with client_credentials, tools/list and tools/call per scope in both eras,
 * the order of checks, and an issuer that is down, then up.
 */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { GatewayConfig, ToolConfig } from '../../../src/config';
import { readAuditLog, readAuditText, waitForAuditRecords } from '../../helpers/audit-log';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { gatewayConfig, supportDeskTools } from '../../helpers/config';
import { eventually, within } from '../../helpers/eventually';
import { freePort } from '../../helpers/free-port';
import { startOn, type GatewayOnPort } from '../../helpers/gateway-on-port';
import { initializeSession, postMcp, toolsCallRequest } from '../../helpers/mcp';
import { modernRequest, postModern } from '../../helpers/modern';
import { startOidcIssuer, type OidcIssuer } from '../../helpers/oidc-issuer';
import { BOT, makeToken, tokenEntry } from '../../helpers/tokens';
import { sessionDigest } from '../../../src/gateway/audit/session-digest';

/** A static token limited to `tools:read`. */
const READER = makeToken('reader');

/** The support-desk tools: `get_customer` needs `tools:read`, `create_ticket` `tools:write`, `health` nothing. */
function scopedTools(backendUrl: string): ToolConfig[] {
  const needs: Record<string, string[]> = { get_customer: ['tools:read'], create_ticket: ['tools:write'] };
  return supportDeskTools(backendUrl)
    .filter((t) => t.name !== 'create_task')
    .map((t) => (needs[t.name] === undefined ? t : { ...t, required_scopes: needs[t.name] }));
}

/** A gateway on `port` (its resource URL is `http://127.0.0.1:PORT/mcp`) trusting `issuer`, plus BOT and READER. */
async function startOAuthGateway(port: number, issuer: string, backendUrl: string): Promise<GatewayOnPort> {
  const base = gatewayConfig({ name: 'oauth-gw', tokens: [BOT], tools: scopedTools(backendUrl) });
  const config: GatewayConfig = {
    ...base,
    gateway: {
      ...base.gateway,
      resource_url: `http://127.0.0.1:${port}/mcp`,
      auth: { tokens: [tokenEntry(BOT), { ...tokenEntry(READER), scopes: ['tools:read'] }], oauth: { issuer } },
    },
  };
  return startOn(config, port);
}

function toolNames(body: any): string[] {
  return (body.result.tools as { name: string }[]).map((t) => t.name).sort();
}

describe('the gateway as an OAuth 2.1 resource server (real oidc-provider issuer)', function () {
  this.timeout(60_000);
  let backend: TestBackend;
  let idp: OidcIssuer;
  let gw: GatewayOnPort;
  let port: number;
  let resource: string;
  let metadataUrl: string;

  before(async () => {
    backend = await startBackend();
    port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    idp = await startOidcIssuer({ resources: [resource, 'http://127.0.0.1:1/mcp'] });
    gw = await startOAuthGateway(port, idp.url, backend.url);
    metadataUrl = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`;
  });
  after(async () => {
    await gw?.close();
    await idp?.close();
    await backend?.close();
  });

  describe('discovery', () => {
    it('answers a request without a token 401 with the resource_metadata challenge, and serves that metadata without auth', async () => {
      const res = await postMcp(gw.url, toolsCallRequest('health', {}));
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('www-authenticate'), `Bearer resource_metadata="${metadataUrl}"`);
      const expected = {
        resource,
        authorization_servers: [idp.url],
        scopes_supported: ['tools:read', 'tools:write'],
        bearer_methods_supported: ['header'],
      };
      for (const url of [metadataUrl, `http://127.0.0.1:${port}/.well-known/oauth-protected-resource`]) {
        const doc = await fetch(url);
        assert.equal(doc.status, 200, url);
        assert.match(doc.headers.get('content-type') ?? '', /^application\/json/);
        assert.deepEqual(await doc.json(), expected);
      }
      const post = await fetch(metadataUrl, { method: 'POST', body: '{}' });
      assert.equal(post.status, 405);
      const other = await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/other`);
      assert.equal(other.status, 404);
    });

    it('answers a bad token 401 invalid_token with a description, and writes no audit record', async () => {
      const before = readAuditText(gw.auditLogPath);
      const expired = await idp.sign({
        iss: idp.url,
        aud: resource,
        sub: 'mallory',
        scope: 'tools:read tools:write',
        exp: 1,
        iat: 0,
        client_id: 'x',
      });
      for (const token of [expired, 'not-a-jwt', `${expired.slice(0, -4)}AAAA`]) {
        // Arguments that would be refused by validation: the token is refused first.
        const res = await postMcp(gw.url, toolsCallRequest('get_customer', { customer_id: 42 }), { token });
        assert.equal(res.status, 401, token.slice(0, 20));
        const challenge = res.headers.get('www-authenticate') ?? '';
        assert.ok(
          challenge.startsWith(`Bearer resource_metadata="${metadataUrl}", error="invalid_token", error_description="`),
          challenge,
        );
        assert.equal(res.message?.error?.code, -32600);
        const modern = await postModern(
          gw.url,
          modernRequest('tools/call', { name: 'get_customer', arguments: { customer_id: 42 } }),
          token,
        );
        assert.equal(modern.status, 401);
      }
      assert.match(
        (await postMcp(gw.url, toolsCallRequest('health', {}), { token: expired })).headers.get('www-authenticate') ??
          '',
        /has expired/,
      );
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(readAuditText(gw.auditLogPath), before, 'a refused token never reaches the tool call or its audit');
    });
  });

  describe('the official SDK client (1.x ClientCredentialsProvider)', () => {
    it('discovers the issuer from the 401, gets a tools:read token, lists only its tools, calls one, and a refusal names the field', async () => {
      const provider = new ClientCredentialsProvider({
        clientId: idp.clientId,
        clientSecret: idp.clientSecret,
        scope: 'tools:read',
        expectedIssuer: idp.url,
      });
      const client = new Client({ name: 'oauth-agent', version: '2.0.0' }, { capabilities: {} });
      const transport = new StreamableHTTPClientTransport(new URL(gw.url), { authProvider: provider });
      try {
        await within(client.connect(transport), 20_000, 'the SDK client connected');
        assert.ok(provider.tokens()?.access_token, 'the provider holds a token from the issuer');
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((t) => t.name).sort(), ['get_customer', 'health']);
        const ok = await client.callTool({ name: 'get_customer', arguments: { customer_id: 'C-0001' } });
        assert.notEqual(ok.isError, true);
        await assert.rejects(client.callTool({ name: 'get_customer', arguments: { customer_id: 7 } }), (err: Error) => {
          assert.match(err.message, /customer_id/);
          return true;
        });
        // create_ticket needs tools:write: the SDK gets the 403 and cannot obtain the scope with its credentials.
        await assert.rejects(
          within(
            client.callTool({ name: 'create_ticket', arguments: { subject: 's', customer: { name: 'A' } } }),
            20_000,
            'the refused call',
          ),
        );
      } finally {
        await client.close().catch(() => undefined);
      }
      const records = await waitForAuditRecords(gw.auditLogPath, 3, { where: (r) => r.client?.name === 'oauth-agent' });
      const mine = records.filter((r) => r.client?.name === 'oauth-agent');
      assert.ok(mine.length >= 2, JSON.stringify(records));
      for (const r of mine) {
        assert.equal(r.principal, idp.clientId, 'the principal is the token subject');
        assert.equal(r.client_id, idp.clientId);
      }
      assert.ok(
        mine.some(
          (r) => r.tool === 'create_ticket' && r.outcome === 'refused' && r.error?.code === 'INSUFFICIENT_SCOPE',
        ),
      );
    });
  });

  describe('scopes, in both eras', () => {
    let readToken: string;
    before(async () => {
      readToken = await idp.getToken({ scope: 'tools:read', resource });
    });

    it('2025: tools/list hides the tool a token may not call, and a call to it is 403 insufficient_scope naming the scope', async () => {
      const session = await initializeSession(gw.url, '2025-06-18', readToken);
      const list = await postMcp(
        gw.url,
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { token: readToken, sessionId: session },
      );
      assert.deepEqual(toolNames(list.message), ['get_customer', 'health']);
      const res = await postMcp(
        gw.url,
        { ...toolsCallRequest('create_ticket', { subject: 's', customer: { name: 'A' } }), id: 9 },
        { token: readToken, sessionId: session },
      );
      assert.equal(res.status, 403);
      assert.equal(
        res.headers.get('www-authenticate'),
        `Bearer resource_metadata="${metadataUrl}", error="insufficient_scope", error_description="the call needs scope \\"tools:write\\"", scope="tools:write"`,
      );
      assert.equal(res.message?.id, 9);
      assert.match(String(res.message?.error?.message), /tools:write/);
      const record = await eventually(
        () =>
          readAuditLog(gw.auditLogPath).find(
            (r) => r.session === sessionDigest(session) && r.tool === 'create_ticket',
          ) ?? false,
      );
      assert.equal(record.outcome, 'refused');
      assert.equal(record.error?.code, 'INSUFFICIENT_SCOPE');
      // A token with both scopes sees and calls everything on the same gateway.
      const both = await idp.getToken({ scope: 'tools:read tools:write', resource });
      const full = await initializeSession(gw.url, '2025-06-18', both);
      const all = await postMcp(
        gw.url,
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { token: both, sessionId: full },
      );
      assert.deepEqual(toolNames(all.message), ['create_ticket', 'get_customer', 'health']);
    });

    it('2026-07-28: the same list and the same 403', async () => {
      const list = await postModern(gw.url, modernRequest('tools/list'), readToken);
      assert.equal(list.status, 200);
      assert.deepEqual(toolNames(list.message), ['get_customer', 'health']);
      const res = await postModern(
        gw.url,
        modernRequest('tools/call', { name: 'create_ticket', arguments: { subject: 's' } }, 'r-1'),
        readToken,
      );
      assert.equal(res.status, 403);
      assert.match(res.headers.get('www-authenticate') ?? '', /error="insufficient_scope".*scope="tools:write"/);
      assert.equal(res.message?.id, 'r-1');
      const ok = await postModern(
        gw.url,
        modernRequest('tools/call', { name: 'get_customer', arguments: { customer_id: 'C-0002' } }),
        readToken,
      );
      assert.equal(ok.status, 200);
      assert.notEqual(ok.message?.result?.isError, true);
    });

    it('static tokens follow the same rule: without scopes every tool, with scopes only theirs', async () => {
      const all = await postModern(gw.url, modernRequest('tools/list'), BOT.token);
      assert.deepEqual(toolNames(all.message), ['create_ticket', 'get_customer', 'health']);
      const reader = await postModern(gw.url, modernRequest('tools/list'), READER.token);
      assert.deepEqual(toolNames(reader.message), ['get_customer', 'health']);
      const res = await postModern(
        gw.url,
        modernRequest('tools/call', { name: 'create_ticket', arguments: {} }),
        READER.token,
      );
      assert.equal(res.status, 403);
    });

    it('an unknown tool stays "unknown" whatever the scopes, and a token for another resource is refused', async () => {
      const res = await postModern(gw.url, modernRequest('tools/call', { name: 'nope', arguments: {} }), readToken);
      assert.equal(res.status, 200);
      assert.match(String(res.message?.error?.message), /Unknown tool/);
      const foreign = await idp.getToken({ scope: 'tools:read', resource: 'http://127.0.0.1:1/mcp' });
      const refused = await postModern(gw.url, modernRequest('tools/list'), foreign);
      assert.equal(refused.status, 401);
      assert.match(refused.headers.get('www-authenticate') ?? '', /error="invalid_token".*another resource/);
    });
  });

  describe('an issuer that is down, then up', () => {
    it('fails closed with 401 invalid_token and a log line naming the issuer, without details for the caller', async () => {
      const token = await idp.getToken({ scope: 'tools:read', resource });
      await idp.stop();
      // A second gateway started while the issuer is down has no keys: it cannot check any token.
      const fresh = await startOAuthGateway(await freePort(), idp.url, backend.url);
      try {
        const down = await postModern(fresh.url, modernRequest('tools/list'), token);
        // Its resource URL differs, so the token would be refused for its `aud` anyway; the keys are checked first.
        assert.equal(down.status, 401);
        assert.match(
          down.headers.get('www-authenticate') ?? '',
          /error="invalid_token", error_description="the authorization server is unavailable/,
        );
        assert.doesNotMatch(down.text, /ECONNREFUSED|at .*\.js/);
        await eventually(() => fresh.logs.some((l) => l.level === 'warn' && l.issuer === idp.url), {
          what: 'a warning naming the issuer',
        });
      } finally {
        await fresh.close();
      }
      await idp.start();
    });

    it('the gateway started before keeps serving from its key cache while the issuer is down', async () => {
      const token = await idp.getToken({ scope: 'tools:read', resource });
      await idp.stop();
      try {
        const res = await postModern(gw.url, modernRequest('tools/list'), token);
        assert.equal(res.status, 200);
      } finally {
        await idp.start();
      }
    });

    it('a gateway that started with the issuer down accepts tokens once it is back', async () => {
      await idp.stop();
      const laterPort = await freePort();
      const later = await startOAuthGateway(laterPort, idp.url, backend.url);
      try {
        await eventually(() => later.logs.some((l) => l.level === 'warn' && l.issuer === idp.url), {
          what: 'the warm-up failure logged',
        });
        await idp.start();
        // The issuer issues tokens for its resource indicators only; sign one for this gateway with its current key.
        const now = Math.floor(Date.now() / 1000);
        const token = await idp.sign({
          iss: idp.url,
          aud: `http://127.0.0.1:${laterPort}/mcp`,
          sub: 'svc',
          scope: 'tools:read',
          iat: now,
          exp: now + 300,
        });
        const ok = await eventually(
          async () => {
            const res = await postModern(later.url, modernRequest('tools/list'), token);
            return res.status === 200 ? res : false;
          },
          { timeoutMs: 20_000, what: 'a 200 after the issuer came back' },
        );
        assert.deepEqual(toolNames(ok.message), ['get_customer', 'health']);
        assert.ok(
          later.logs.some((l) => l.level === 'info' && l.issuer === idp.url && /answers again/.test(String(l.msg))),
        );
      } finally {
        await later.close();
      }
    });
  });
});
