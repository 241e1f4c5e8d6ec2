/**
 * Attack suite (issue 20): the dashboard keeps a static token and an OAuth subject of the same name apart. A real
 * gateway accepts a static token whose id is `test-agent` and OAuth tokens of the tests' issuer, whose subject is
 * also `test-agent`; the static token's calls are refused, the OAuth ones succeed. The dashboard that reads the
 * gateway's audit file lists two agents, each with its own counts, refusals and time series.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { GatewayConfig } from '../../src/config';
import { DEFAULT_FLAG_RULE, DEFAULT_RETENTION_MS, startDashboard, type RunningDashboard } from '../../src/dashboard';
import { silentLogger } from '../../src/gateway';
import { waitForAuditRecords } from '../helpers/audit-log';
import { lines, refusal } from '../dashboard/audit-fixtures';
import { startBackend, type TestBackend } from '../helpers/backend';
import { gatewayConfig, supportDeskTools } from '../helpers/config';
import { eventually } from '../helpers/eventually';
import { freePort } from '../helpers/free-port';
import { initializeSession, postMcp, toolsCallRequest } from '../helpers/mcp';
import { startOidcIssuer, type OidcIssuer } from '../helpers/oidc-issuer';
import { makeToken, tokenEntry } from '../helpers/tokens';
import { startOn, type GatewayOnPort } from '../helpers/gateway-on-port';

/** The static token named like the issuer's client (the `sub` of its client_credentials tokens). */
const NAMESAKE = makeToken('test-agent');

interface Agent {
  principal: string | null;
  auth: string | null;
  calls: number;
  refusals: number;
}

describe('attack: a static token and an OAuth subject of one name on the dashboard', function () {
  this.timeout(60_000);
  let backend: TestBackend;
  let idp: OidcIssuer;
  let gw: GatewayOnPort;
  let dashboard: RunningDashboard;

  before(async () => {
    backend = await startBackend();
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    idp = await startOidcIssuer({ resources: [resource] });
    const base = gatewayConfig({ name: 'dash-gw', tokens: [NAMESAKE], tools: supportDeskTools(backend.url) });
    const config: GatewayConfig = {
      ...base,
      gateway: {
        ...base.gateway,
        port,
        resource_url: resource,
        auth: { tokens: [tokenEntry(NAMESAKE)], oauth: { issuer: idp.url } },
      },
    };
    gw = await startOn(config, port);
    const oauth = await idp.getToken();
    const oauthSession = await initializeSession(gw.url, '2025-11-25', oauth);
    const staticSession = await initializeSession(gw.url, '2025-11-25', NAMESAKE.token);
    for (let i = 0; i < 3; i++) {
      const ok = await postMcp(gw.url, toolsCallRequest('get_customer', { customer_id: 'C-0001' }), {
        token: oauth,
        sessionId: oauthSession,
      });
      assert.equal(ok.message?.error, undefined);
    }
    for (let i = 0; i < 12; i++) {
      const refused = await postMcp(gw.url, toolsCallRequest('get_customer', { customer_id: 'nope' }), {
        token: NAMESAKE.token,
        sessionId: staticSession,
      });
      assert.equal(refused.message?.error?.code, -32602);
    }
    await waitForAuditRecords(gw.auditLogPath, 15);
    dashboard = await startDashboard(
      {
        auditDirs: [path.dirname(gw.auditLogPath)],
        port: 0,
        host: '127.0.0.1',
        auth: undefined,
        retentionMs: DEFAULT_RETENTION_MS,
        flag: DEFAULT_FLAG_RULE,
      },
      { logger: silentLogger },
    );
  });

  after(async () => {
    await dashboard?.close();
    await gw?.close();
    await idp?.close();
    await backend?.close();
  });

  async function api(pathAndQuery: string): Promise<any> {
    const res = await fetch(new URL(pathAndQuery, dashboard.url));
    assert.equal(res.status, 200, pathAndQuery);
    return res.json();
  }

  it('lists two agents named test-agent, one per kind, each with its own counts and flag', async () => {
    const agents = await eventually(async () => {
      const summary = await api('/api/summary?window=1h');
      const found = (summary.agents as Agent[]).filter((a) => a.principal === 'test-agent');
      if (found.reduce((n, a) => n + a.calls, 0) < 15) throw new Error(`not ingested yet: ${JSON.stringify(found)}`);
      return summary.agents as (Agent & { flagged: boolean })[];
    });
    const byKind = new Map(agents.map((a) => [`${a.auth}:${a.principal}`, a]));
    assert.equal(agents.length, 2, JSON.stringify(agents));
    assert.deepEqual(
      { calls: byKind.get('token:test-agent')?.calls, refusals: byKind.get('token:test-agent')?.refusals },
      { calls: 12, refusals: 12 },
    );
    assert.equal(byKind.get('token:test-agent')?.flagged, true);
    assert.deepEqual(
      { calls: byKind.get('oauth:test-agent')?.calls, refusals: byKind.get('oauth:test-agent')?.refusals },
      { calls: 3, refusals: 0 },
    );
    assert.equal(byKind.get('oauth:test-agent')?.flagged, false);
  });

  it("gives each kind its own recent refusals (the static token's by default, the OAuth subject's with auth=oauth)", async () => {
    const token = await api('/api/agents/test-agent/refusals');
    assert.equal(token.auth, 'token');
    assert.equal(token.refusals.length, 12);
    const explicit = await api('/api/agents/test-agent/refusals?auth=token');
    assert.equal(explicit.refusals.length, 12);
    const oauth = await api('/api/agents/test-agent/refusals?auth=oauth');
    assert.equal(oauth.auth, 'oauth');
    assert.deepEqual(oauth.refusals, []);
  });

  it('gives each kind its own time series', async () => {
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const token = await api('/api/timeseries?window=1h&principal=test-agent');
    assert.equal(token.auth, 'token');
    assert.deepEqual([sum(token.calls), sum(token.refusals)], [12, 12]);
    const oauth = await api('/api/timeseries?window=1h&principal=test-agent&auth=oauth');
    assert.deepEqual([sum(oauth.calls), sum(oauth.refusals)], [3, 0]);
  });

  it('refuses another auth value with its message', async () => {
    const res = await fetch(new URL('/api/agents/test-agent/refusals?auth=admin', dashboard.url));
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), { error: 'auth: must be token or oauth (got "admin")' });
  });
});

describe('attack: a principal named like the dashboard anonymous segment', () => {
  let dir: string;
  let dashboard: RunningDashboard;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'dash-dash-'));
    const now = Date.now();
    writeFileSync(
      path.join(dir, 'audit-0.jsonl'),
      lines([
        refusal('token dash refused', { tsMs: now, principal: '-', auth: 'token' }),
        refusal('anonymous refused', { tsMs: now, principal: null, auth: null }),
        refusal('anonymous refused', { tsMs: now, principal: null, auth: null }),
      ]),
    );
    dashboard = await startDashboard(
      {
        auditDirs: [dir],
        port: 0,
        host: '127.0.0.1',
        auth: undefined,
        retentionMs: DEFAULT_RETENTION_MS,
        flag: DEFAULT_FLAG_RULE,
      },
      { logger: silentLogger },
    );
  });

  after(async () => {
    await dashboard?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the token "-" apart from the anonymous principal: `auth` names the kind', async () => {
    const get = async (p: string) => {
      const res = await fetch(new URL(p, dashboard.url));
      assert.equal(res.status, 200, p);
      return (await res.json()) as { principal: string | null; refusals: { message: string }[] };
    };
    const anonymous = await eventually(async () => {
      const body = await get('/api/agents/-/refusals');
      if (body.refusals.length < 2) throw new Error('not ingested yet');
      return body;
    });
    assert.equal(anonymous.principal, null);
    assert.deepEqual(
      anonymous.refusals.map((r) => r.message),
      ['anonymous refused', 'anonymous refused'],
    );
    const dash = await get('/api/agents/-/refusals?auth=token');
    assert.equal(dash.principal, '-');
    assert.deepEqual(
      dash.refusals.map((r) => r.message),
      ['token dash refused'],
    );
  });
});
