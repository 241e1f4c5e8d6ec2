/**
 * Attack suite (issue 20): principals are their kind and their name. A real OAuth token minted by the tests'
 * issuer (`sub` = `test-agent`, its client id) and a static token whose id is `test-agent` are two principals:
 * sessions, stream caps and revocations are keyed by both; the audit says which (`auth`); metrics keep them
 * apart. Also: an over-long `sub` is a 401, not a 500; streams opened with an OAuth token close at its `exp`;
 * `/metrics` needs `metrics:read` from a token that carries scopes.
 */
import assert from 'node:assert/strict';
import type { GatewayConfig } from '../../src/config';
import { readAuditLog, waitForAuditRecords } from '../helpers/audit-log';
import { startBackend, type TestBackend } from '../helpers/backend';
import { gatewayConfig, supportDeskTools } from '../helpers/config';
import { within } from '../helpers/eventually';
import { freePort } from '../helpers/free-port';
import { openStream } from '../helpers/http';
import { startOn, type GatewayOnPort } from '../helpers/gateway-on-port';
import { initializeRequest, initializeSession, postMcp, toolsCallRequest } from '../helpers/mcp';
import { openListen } from '../helpers/modern';
import { startOidcIssuer, type OidcIssuer } from '../helpers/oidc-issuer';
import { makeToken, tokenEntry } from '../helpers/tokens';

/** The static token named like the issuer's client (the `sub` of its client_credentials tokens). */
const NAMESAKE = makeToken('test-agent');
/** A static token with scopes but without `metrics:read`. */
const SCOPED = makeToken('scoped-bot');
/** A static token with `metrics:read`. */
const SCRAPER = makeToken('scraper');

describe('attack: colliding principals, long subjects, expiring streams, /metrics scopes', function () {
  this.timeout(60_000);
  let backend: TestBackend;
  let idp: OidcIssuer;
  let gw: GatewayOnPort;
  let metricsUrl: string;

  before(async () => {
    backend = await startBackend();
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    idp = await startOidcIssuer({ resources: [resource] });
    const base = gatewayConfig({ name: 'collide-gw', tokens: [NAMESAKE], tools: supportDeskTools(backend.url) });
    const config: GatewayConfig = {
      ...base,
      gateway: {
        ...base.gateway,
        port,
        resource_url: resource,
        metrics: true,
        max_streams_per_principal: 1,
        auth: {
          tokens: [
            tokenEntry(NAMESAKE),
            { ...tokenEntry(SCOPED), scopes: ['tools:read'] },
            { ...tokenEntry(SCRAPER), scopes: ['metrics:read'] },
          ],
          oauth: { issuer: idp.url },
        },
      },
    };
    gw = await startOn(config, port);
    metricsUrl = gw.url.replace(/\/mcp$/, '/metrics');
  });

  after(async () => {
    await gw?.close();
    await idp?.close();
    await backend?.close();
  });

  describe('an OAuth subject named like a static token id is another principal', () => {
    it('a session opened with the OAuth token is unknown (404) with the static token, and the other way round', async () => {
      const oauth = await idp.getToken();
      const oauthSession = await initializeSession(gw.url, '2025-11-25', oauth);
      const staticSession = await initializeSession(gw.url, '2025-11-25', NAMESAKE.token);
      const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
      assert.equal((await postMcp(gw.url, list, { token: oauth, sessionId: oauthSession })).status, 200);
      assert.equal((await postMcp(gw.url, list, { token: NAMESAKE.token, sessionId: staticSession })).status, 200);
      assert.equal((await postMcp(gw.url, list, { token: NAMESAKE.token, sessionId: oauthSession })).status, 404);
      assert.equal((await postMcp(gw.url, list, { token: oauth, sessionId: staticSession })).status, 404);
    });

    it('the OAuth subject holding its stream cap does not make the static token get 429 (and vice versa)', async () => {
      const oauth = await idp.getToken();
      const held = await openListen(gw.url, oauth, 'held-by-oauth');
      try {
        assert.equal(held.status, 200);
        const second = await openListen(gw.url, oauth, 'over-the-cap');
        assert.equal(second.status, 429, 'the OAuth subject is over its own cap of 1');
        second.destroy();
        const mine = await openListen(gw.url, NAMESAKE.token, 'static-own');
        assert.equal(mine.status, 200, 'the static token has its own cap');
        mine.destroy();
      } finally {
        held.destroy();
      }
    });

    it("a revocation by the OAuth subject does not touch the static token's sessions", async () => {
      const oauth = await idp.getToken();
      const staticSession = await initializeSession(gw.url, '2025-11-25', NAMESAKE.token);
      const del = await postMcp(gw.url, '', { token: oauth, sessionId: staticSession, method: 'DELETE' });
      assert.equal(del.status, 404, 'not its session');
      const list = { jsonrpc: '2.0', id: 3, method: 'tools/list' };
      assert.equal((await postMcp(gw.url, list, { token: NAMESAKE.token, sessionId: staticSession })).status, 200);
    });

    it('the audit says principal test-agent with auth oauth or token; metrics never merge them', async () => {
      const oauth = await idp.getToken();
      for (const token of [oauth, NAMESAKE.token]) {
        const session = await initializeSession(gw.url, '2025-11-25', token);
        const res = await postMcp(gw.url, toolsCallRequest('health', {}), { token, sessionId: session });
        assert.equal(res.status, 200);
      }
      const records = await waitForAuditRecords(gw.auditLogPath, 2, {
        where: (r) => r.tool === 'health' && r.principal === 'test-agent',
      });
      assert.deepEqual([...new Set(records.map((r) => r.auth))].sort(), ['oauth', 'token']);
      const scrape = await fetch(metricsUrl, { headers: { authorization: `Bearer ${NAMESAKE.token}` } });
      const text = await scrape.text();
      const health = text
        .split('\n')
        .filter((l) => l.startsWith('mcp_gateway_tool_calls_total{') && l.includes('tool="health"'));
      assert.ok(
        health.some((l) => l.includes('principal="test-agent"')),
        'the static token by its id',
      );
      assert.ok(
        health.some((l) => l.includes('principal="_other"')),
        'the OAuth subject never by name',
      );
      const own = health.filter((l) => l.includes('principal="test-agent"')).map((l) => Number(l.split(' ').pop()));
      const staticCalls = readAuditLog(gw.auditLogPath).filter(
        (r) => r.tool === 'health' && r.principal === 'test-agent' && r.auth === 'token',
      ).length;
      assert.equal(
        own.reduce((a, b) => a + b, 0),
        staticCalls,
        "only the static token's calls are counted as test-agent",
      );
    });
  });

  describe('a principal name longer than 256 characters', () => {
    it('is refused at authentication with 401 invalid_token, never a 500 (a real signed token, sub of 1,600)', async () => {
      const now = Math.floor(Date.now() / 1000);
      const long = await idp.sign({
        iss: idp.url,
        aud: gw.url,
        sub: 's'.repeat(1600),
        client_id: 'test-agent',
        scope: 'tools:read',
        iat: now,
        exp: now + 300,
      });
      const res = await postMcp(gw.url, initializeRequest(), { token: long });
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
      assert.match(res.headers.get('www-authenticate') ?? '', /error_description="the token's subject is too long"/);
      const ok = await idp.sign({ iss: idp.url, aud: gw.url, sub: '\u0001'.repeat(256), iat: now, exp: now + 300 });
      const init = await postMcp(
        gw.url,
        initializeRequest('2025-11-25', { name: '\u0001'.repeat(128), version: '\u0002'.repeat(128) }),
        { token: ok },
      );
      assert.equal(init.status, 200, 'the longest accepted subject, with the worst client info, opens a session');
    });
  });

  describe('a stream opened with an OAuth token', () => {
    it("subscriptions/listen and the 2025 GET stream are closed at the token's exp", async () => {
      const now = Math.floor(Date.now() / 1000);
      // Two subjects: the gateway caps streams at 1 per principal.
      const shortLived = (sub: string) =>
        idp.sign({ iss: idp.url, aud: gw.url, sub, scope: 'tools:read tools:write', iat: now, exp: now + 2 });
      const [forListen, forGet] = await Promise.all([shortLived('short-a'), shortLived('short-b')]);
      const session = await initializeSession(gw.url, '2025-11-25', forGet);
      const listen = await openListen(gw.url, forListen, 'expiring');
      const get = await openStream(gw.url, {
        accept: 'text/event-stream',
        authorization: `Bearer ${forGet}`,
        'mcp-session-id': session,
      });
      try {
        assert.equal(listen.status, 200);
        assert.equal(get.status, 200);
        const closedBy = (now + 2) * 1000 + 1500 - Date.now();
        await within(listen.ended, Math.max(closedBy, 500), 'the listen stream ends at exp');
        await within(get.ended, 1000, 'the GET stream ends at exp too');
      } finally {
        listen.destroy();
        get.destroy();
      }
    });
  });

  describe('/metrics and scopes', () => {
    const scrape = (token: string) => fetch(metricsUrl, { headers: { authorization: `Bearer ${token}` } });

    it('an OAuth token without metrics:read gets 403 insufficient_scope naming it', async () => {
      const res = await scrape(await idp.getToken());
      assert.equal(res.status, 403);
      assert.match(res.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
      assert.match(res.headers.get('www-authenticate') ?? '', /scope="metrics:read"/);
    });

    it('a static token with scopes but not metrics:read gets 403; with it, 200', async () => {
      assert.equal((await scrape(SCOPED.token)).status, 403);
      assert.equal((await scrape(SCRAPER.token)).status, 200);
    });

    it('an OAuth token with metrics:read, and a static token without scopes, read it', async () => {
      const now = Math.floor(Date.now() / 1000);
      const reader = await idp.sign({
        iss: idp.url,
        aud: gw.url,
        sub: 'prom',
        scope: 'metrics:read',
        iat: now,
        exp: now + 60,
      });
      assert.equal((await scrape(reader)).status, 200);
      assert.equal((await scrape(NAMESAKE.token)).status, 200);
    });
  });

  it('logs and audit records carry a short digest of the session id, never the id', async () => {
    const session = await initializeSession(gw.url, '2025-11-25', NAMESAKE.token);
    await postMcp(gw.url, toolsCallRequest('health', {}), { token: NAMESAKE.token, sessionId: session });
    await postMcp(gw.url, '', { token: NAMESAKE.token, sessionId: session, method: 'DELETE' });
    await waitForAuditRecords(gw.auditLogPath, 1, { where: (r) => r.tool === 'health' });
    const everything = JSON.stringify(gw.logs) + JSON.stringify(readAuditLog(gw.auditLogPath));
    assert.ok(!everything.includes(session), 'the full id is nowhere');
    assert.ok(!everything.includes(session.split('.')[1]), 'nor its mac');
    const opened = gw.logs.filter((l) => l.msg === 'session opened');
    assert.ok(opened.every((l) => typeof l.session === 'string' && /^[0-9a-f]{16}$/.test(l.session)));
  });
});
