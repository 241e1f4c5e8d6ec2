import * as assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import * as path from 'node:path';
import { silentLogger } from '../../src/gateway';
import {
  DEFAULT_FLAG_RULE,
  DEFAULT_RETENTION_MS,
  startDashboard,
  type DashboardSettings,
  type RunningDashboard,
} from '../../src/dashboard';
import { makeToken } from '../helpers/tokens';
import { auditRecord, lines, refusal } from './audit-fixtures';

function settings(dir: string, overrides: Partial<DashboardSettings> = {}): DashboardSettings {
  return {
    auditDirs: [dir],
    port: 0,
    host: '127.0.0.1',
    auth: undefined,
    retentionMs: DEFAULT_RETENTION_MS,
    flag: DEFAULT_FLAG_RULE,
    ...overrides,
  };
}

describe('dashboard HTTP API (a real listening server)', () => {
  let dir: string;
  let dashboard: RunningDashboard | undefined;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dash-http-'));
  });
  afterEach(async () => {
    await dashboard?.close();
    dashboard = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses to start on a non-loopback address without a token, with one line', async () => {
    await assert.rejects(startDashboard(settings(dir, { host: '0.0.0.0' }), { logger: silentLogger }), {
      name: 'ConfigError',
      message:
        'dashboard: host 0.0.0.0 is not a loopback address, so a token is required ' +
        '(pass --token-sha256 HEX or set auth.tokens in the config file, or bind to 127.0.0.1)',
    });
  });

  it("serves summary, time series and one agent's refusals on loopback without a token", async () => {
    const now = Date.now();
    writeFileSync(
      path.join(dir, 'audit-0.jsonl'),
      lines([
        ...Array.from({ length: 12 }, (_, i) =>
          refusal(`'priority' must be one of low, normal, high`, {
            tsMs: now - i * 1000,
            principal: 'billing-bot',
            tool: 'create_ticket',
          }),
        ),
        auditRecord({ tsMs: now, principal: 'billing-bot', tool: 'create_ticket' }),
        auditRecord({ tsMs: now - 3 * 3_600_000, principal: 'billing-bot', tool: 'create_ticket' }),
      ]),
    );
    writeFileSync(path.join(dir, 'audit-1.jsonl'), lines([auditRecord({ tsMs: now })]));
    dashboard = await startDashboard(settings(dir), { logger: silentLogger });

    const res = await fetch(`${dashboard.url}api/summary?window=1h`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    const summary = (await res.json()) as any;
    assert.deepEqual(summary.totals, { calls: 14, refusals: 12, errors: 0 });
    const bot = summary.agents[0];
    assert.equal(bot.principal, 'billing-bot');
    assert.equal(bot.flagged, true);
    assert.deepEqual(bot.tools[0].top_messages, [
      { message: `'priority' must be one of low, normal, high`, count: 12 },
    ]);
    assert.equal(summary.ingest.files, 2);
    assert.equal(summary.ingest.malformed, 0);

    const day = (await (await fetch(`${dashboard.url}api/summary?window=24h`)).json()) as any;
    assert.equal(day.totals.calls, 15);

    const series = (await (await fetch(`${dashboard.url}api/timeseries?window=1h`)).json()) as any;
    assert.equal(series.t.length, 60);
    assert.equal(
      series.calls.reduce((a: number, b: number) => a + b, 0),
      14,
    );

    const refused = (await (await fetch(`${dashboard.url}api/agents/billing-bot/refusals?limit=2`)).json()) as any;
    assert.equal(refused.refusals.length, 2);
    assert.deepEqual(Object.keys(refused.refusals[0]), ['ts', 'gateway', 'tool', 'message', 'client']);
    assert.equal(refused.refusals[0].tool, 'create_ticket');
    assert.ok(refused.refusals[0].ts >= refused.refusals[1].ts);
  });

  it('answers a bad window or limit with a clear 400', async () => {
    dashboard = await startDashboard(settings(dir), { logger: silentLogger });
    for (const [url, message] of [
      ['api/summary?window=2h', 'window: must be one of 1h, 24h, 7d (got "2h")'],
      ['api/timeseries?window=__proto__', 'window: must be one of 1h, 24h, 7d (got "__proto__")'],
      ['api/summary?window=', 'window: must be one of 1h, 24h, 7d (got "")'],
      ['api/agents/x/refusals?limit=0', 'limit: must be an integer from 1 to 50 (got "0")'],
      ['api/agents/x/refusals?window=toString', 'window: must be one of 1h, 24h, 7d (got "toString")'],
    ]) {
      const res = await fetch(`${dashboard.url}${url}`);
      assert.equal(res.status, 400, url);
      assert.deepEqual(await res.json(), { error: message });
    }
    const long = await fetch(`${dashboard.url}api/summary?window=${'x'.repeat(10_000)}`);
    assert.equal(long.status, 400);
    assert.ok(((await long.json()) as { error: string }).error.length < 100);
  });

  it('requires a token when one is configured, even on loopback: bearer header or the ?token= cookie exchange', async () => {
    const token = makeToken('ops');
    dashboard = await startDashboard(settings(dir, { auth: { tokens: [{ id: 'ops', sha256: token.sha256 }] } }), {
      logger: silentLogger,
    });
    const api = `${dashboard.url}api/summary`;
    assert.equal((await fetch(api)).status, 401);
    assert.equal((await fetch(api, { headers: { Authorization: 'Bearer wrong' } })).status, 401);
    assert.equal((await fetch(api, { headers: { Authorization: `Bearer ${token.token}` } })).status, 200);
    assert.equal((await fetch(dashboard.url)).status, 401);
    assert.equal((await fetch(`${dashboard.url}?token=wrong`, { redirect: 'manual' })).status, 401);

    const exchange = await fetch(`${dashboard.url}?token=${encodeURIComponent(token.token)}`, { redirect: 'manual' });
    assert.equal(exchange.status, 303);
    assert.equal(exchange.headers.get('location'), '/');
    const cookie = (exchange.headers.get('set-cookie') ?? '').split(';')[0];
    assert.match(exchange.headers.get('set-cookie') ?? '', /HttpOnly; SameSite=Strict/);
    assert.equal((await fetch(api, { headers: { Cookie: cookie } })).status, 200);
    assert.equal((await fetch(dashboard.url, { headers: { Cookie: cookie } })).status, 200);
    const forged = cookie.replace(/=(\d+)\./, (_, n) => `=${Number(n) + 1}.`);
    assert.equal((await fetch(api, { headers: { Cookie: forged } })).status, 401);
    // the health check stays open for the container
    assert.equal((await fetch(`${dashboard.url}healthz`)).status, 200);
  });

  it('serves the page, its script, its styles and uPlot from the package, and nothing else', async () => {
    dashboard = await startDashboard(settings(dir), { logger: silentLogger });
    const page = await fetch(dashboard.url);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.doesNotMatch(html, /<script>|<script [^>]*>[^<]/, 'no inline script');
    assert.doesNotMatch(html, /https?:\/\//, 'no CDN');
    for (const asset of [
      '/assets/dashboard.js',
      '/assets/dashboard.css',
      '/assets/uPlot.iife.min.js',
      '/assets/uPlot.min.css',
    ]) {
      const res = await fetch(new URL(asset, dashboard.url));
      assert.equal(res.status, 200, asset);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    }
    assert.equal((await fetch(new URL('/assets/../package.json', dashboard.url))).status, 404);
    assert.equal((await fetch(new URL('/api/nope', dashboard.url))).status, 404);
    assert.equal((await fetch(dashboard.url, { method: 'POST' })).status, 405);
  });

  it('answers every refusal as JSON with the security headers: a HEAD without body, 405 with Allow, a malformed escape or Host header', async () => {
    const token = makeToken('ops');
    dashboard = await startDashboard(settings(dir, { auth: { tokens: [{ id: 'ops', sha256: token.sha256 }] } }), {
      logger: silentLogger,
    });
    const { port } = dashboard;
    const ask = (request: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.end(request));
        let answer = '';
        socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
      });
    const parse = (answer: string) => {
      const [head, body] = answer.split('\r\n\r\n');
      const [status, ...fields] = head.split('\r\n');
      const headers = new Map(
        fields.map((f) => [f.slice(0, f.indexOf(':')).toLowerCase(), f.slice(f.indexOf(':') + 1).trim()]),
      );
      return { status: Number(status.split(' ')[1]), headers, body };
    };
    const cases: [request: string, status: number, error: string | undefined][] = [
      ['HEAD /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', 200, undefined],
      [
        'DELETE /api/summary HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
        405,
        'Method not allowed: the dashboard only answers GET',
      ],
      [
        'GET /api/summary HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
        401,
        'Unauthorized: send Authorization: Bearer <token>, or open the page once as /?token=<token>',
      ],
      ['GET /nope HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n', 404, 'Not found: /nope'],
      ['GET /healthz HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n', 400, 'Bad request: Invalid URL'],
      ['GET /healthz HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n', 403, undefined],
    ];
    for (const [request, status, error] of cases) {
      const answer = parse(await ask(request));
      const what = request.split('\r\n')[0];
      assert.equal(answer.status, status, what);
      assert.match(answer.headers.get('content-security-policy') ?? '', /^default-src 'none'/, what);
      assert.equal(answer.headers.get('x-frame-options'), 'DENY', what);
      assert.equal(answer.headers.get('content-type'), 'application/json; charset=utf-8', what);
      if (request.startsWith('HEAD')) {
        assert.equal(answer.headers.get('content-length'), String('{"status":"ok"}'.length));
        assert.equal(answer.body, '');
      } else if (error !== undefined) {
        assert.deepEqual(JSON.parse(answer.body), { error }, what);
      }
      if (status === 405) assert.equal(answer.headers.get('allow'), 'GET, HEAD');
    }
    const malformed = await fetch(`${dashboard.url}api/agents/%E0%A4/refusals`, {
      headers: { Authorization: `Bearer ${token.token}` },
    });
    assert.equal(malformed.status, 400);
    assert.deepEqual(await malformed.json(), { error: 'principal: not a valid URL-encoded name' });
    const percent = await fetch(`${dashboard.url}api/agents/a%25b/refusals`, {
      headers: { Authorization: `Bearer ${token.token}` },
    });
    assert.equal(((await percent.json()) as { principal: string }).principal, 'a%b');
  });

  it('serves the refusals of a token id spelt . or .., which no URL path segment can carry', async () => {
    const now = Date.now();
    writeFileSync(
      path.join(dir, 'audit-0.jsonl'),
      lines([
        refusal('dots', { tsMs: now, principal: '..' }),
        refusal('dot', { tsMs: now, principal: '.', auth: 'oauth' }),
      ]),
    );
    dashboard = await startDashboard(settings(dir), { logger: silentLogger });
    // a client turns /api/agents/../refusals (%2e%2e as well) into /api/refusals before it is sent
    const dots = (await (await fetch(`${dashboard.url}api/refusals?principal=..&limit=5`)).json()) as any;
    assert.equal(dots.principal, '..');
    assert.deepEqual(
      dots.refusals.map((r: { message: string }) => r.message),
      ['dots'],
    );
    const dot = (await (await fetch(`${dashboard.url}api/refusals?principal=.&auth=oauth`)).json()) as any;
    assert.deepEqual([dot.principal, dot.auth, dot.refusals[0]?.message], ['.', 'oauth', 'dot']);
    const missing = await fetch(`${dashboard.url}api/refusals`);
    assert.equal(missing.status, 400);
    assert.deepEqual(await missing.json(), { error: 'principal: required (- for the anonymous principal)' });
  });

  it('follows appends while running', async () => {
    dashboard = await startDashboard(settings(dir), { logger: silentLogger, pollIntervalMs: 100 });
    appendFileSync(path.join(dir, 'audit-0.jsonl'), lines([refusal('late', { tsMs: Date.now() })]));
    const deadline = Date.now() + 5000;
    let refusals = 0;
    while (refusals === 0 && Date.now() < deadline) {
      refusals = ((await (await fetch(`${dashboard.url}api/summary`)).json()) as any).totals.refusals;
      if (refusals === 0) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(refusals, 1);
  });
});
