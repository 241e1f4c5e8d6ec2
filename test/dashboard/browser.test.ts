/**
 * The dashboard page in a real browser: Debian's `chromium`, headless, driven by puppeteer-core. The page loads
 * with no console error; a scripted failing agent appears flagged with its tool and message; switching the window
 * changes the numbers; a new refusal appears within 5 s; clicking the agent lists its refusals; a caller-chosen
 * message full of markup stays text. It writes no file of the repository: docs/images/dashboard.png is made by
 * `npm run screenshot` (scripts/screenshot-dashboard.ts).
 *
 * Without chromium the test is pending, saying so, unless CI is set (then chromium is required).
 */
import * as assert from 'node:assert/strict';
import { existsSync, appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { silentLogger } from '../../src/gateway';
import { DEFAULT_FLAG_RULE, DEFAULT_RETENTION_MS, startDashboard, type RunningDashboard } from '../../src/dashboard';
import { makeToken } from '../helpers/tokens';
import { auditRecord, lines, refusal } from './audit-fixtures';

// Functions passed to page.evaluate run in the page; this project compiles without the DOM library.

declare const document: any, window: any;
interface HTMLElement {
  dataset: Record<string, string>;
  classList: { contains(c: string): boolean };
  querySelector(s: string): { textContent: string } | null;
}

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ci = process.env.CI;
const required = ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
const MINUTE = 60_000;
// messages exactly as the gateway writes them, so the page shows what operators will see
const FAILING_MESSAGE = 'Invalid value for `priority`: expected one of "low", "normal", "high"';
const HOSTILE_MESSAGE = 'Unknown tool: <img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>';

/** Polls `probe` every 100 ms until it returns a value, for at most `timeoutMs`. */
async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('dashboard page (headless chromium)', function () {
  if (!existsSync(CHROMIUM) && !required) {
    it('NOT RUN: needs chromium (apt-get install chromium), or set CHROMIUM_PATH; required under CI=true');
    return;
  }
  this.timeout(90_000);

  const token = makeToken('ops');
  let dir = '';
  let dashboard: RunningDashboard;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];
  const file = (): string => path.join(dir, 'audit-support-0.jsonl');

  before(async () => {
    assert.ok(
      existsSync(CHROMIUM),
      `chromium is required under CI=${ci}: apt-get install -y chromium (or set CHROMIUM_PATH)`,
    );
    dir = mkdtempSync(path.join(tmpdir(), 'dash-browser-'));
    const now = Date.now();
    // A quiet hour for two healthy agents, and older traffic (2-20 h ago) that only the 24 h window shows.
    const history = [];
    for (let i = 0; i < 120; i++) {
      history.push(
        auditRecord({
          tsMs: now - (i % 58) * MINUTE - 5000,
          principal: 'support-bot',
          tool: ['get_customer', 'list_orders', 'create_ticket'][i % 3],
        }),
      );
    }
    for (let i = 0; i < 30; i++) {
      history.push(
        i % 6 === 0
          ? auditRecord({
              tsMs: now - i * 2 * MINUTE,
              principal: 'triage-bot',
              tool: 'list_orders',
              outcome: 'error',
              error: { code: 'SERVICE_HTTP_STATUS', message: 'Service error: HTTP 503' },
              client: { name: 'triage', version: '0.9.1' },
            })
          : auditRecord({
              tsMs: now - i * 2 * MINUTE,
              principal: 'triage-bot',
              tool: 'list_orders',
              client: { name: 'triage', version: '0.9.1' },
            }),
      );
    }
    for (let i = 0; i < 200; i++)
      history.push(auditRecord({ tsMs: now - 2 * 3_600_000 - i * 5 * MINUTE, principal: 'support-bot' }));
    history.sort((a, b) => a.ts.localeCompare(b.ts));
    writeFileSync(file(), lines(history));
    dashboard = await startDashboard(
      {
        auditDirs: [dir],
        port: 0,
        host: '127.0.0.1',
        auth: { tokens: [{ id: 'ops', sha256: token.sha256 }] },
        retentionMs: DEFAULT_RETENTION_MS,
        flag: DEFAULT_FLAG_RULE,
      },
      { logger: silentLogger, pollIntervalMs: 250 },
    );
    const puppeteer = await import('puppeteer-core');
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    page = await browser.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(String(e)));
    page.on('requestfailed', (r) => consoleErrors.push(`request failed: ${r.url()}`));
    await page.setViewport({ width: 1280, height: 900 });
  });

  after(async () => {
    await browser?.close();
    await dashboard?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const text = (selector: string): Promise<string | undefined> =>
    page.$eval(selector, (e) => e.textContent ?? '').catch(() => undefined);
  const rowCell = (agent: string, tool: string, col: string): Promise<string | undefined> =>
    page.evaluate(
      (a, t, c) => {
        const row = ([...document.querySelectorAll('#agents-body tr')] as HTMLElement[]).find(
          (r) => (r as HTMLElement).dataset.agent === a && (r as HTMLElement).dataset.tool === t,
        );
        return row?.querySelector(`[data-col="${c}"]`)?.textContent ?? undefined;
      },
      agent,
      tool,
      col,
    );

  it('opens with ?token= (traded for a cookie) and loads with no console error', async () => {
    await page.goto(`${dashboard.url}?token=${encodeURIComponent(token.token)}`, { waitUntil: 'networkidle0' });
    assert.equal(page.url(), dashboard.url);
    await waitFor('the table', 10_000, async () =>
      (await rowCell('support-bot', 'get_customer', 'calls')) ? true : undefined,
    );
    assert.equal(await text('#total-calls'), '150');
    assert.deepEqual(consoleErrors, []);
  });

  it('shows a scripted failing agent flagged, with its tool and its message', async () => {
    const now = Date.now();
    appendFileSync(
      file(),
      lines([
        ...Array.from({ length: 14 }, (_, i) =>
          refusal(FAILING_MESSAGE, {
            tsMs: now - (14 - i) * 20_000,
            principal: 'billing-bot',
            tool: 'create_ticket',
            client: { name: 'billing-agent', version: '2.3.0' },
          }),
        ),
        ...Array.from({ length: 4 }, (_, i) =>
          refusal('Missing required parameter: `customer_id`', {
            tsMs: now - i * 40_000,
            principal: 'billing-bot',
            tool: 'get_customer',
            client: { name: 'billing-agent', version: '2.3.0' },
          }),
        ),
        auditRecord({
          tsMs: now,
          principal: 'billing-bot',
          tool: 'get_customer',
          client: { name: 'billing-agent', version: '2.3.0' },
        }),
      ]),
    );
    await waitFor('billing-bot flagged', 10_000, async () =>
      page.evaluate(() => {
        const row = document.querySelector(
          '#agents-body tr[data-agent="billing-bot"][data-tool="create_ticket"]',
        ) as HTMLElement | null;
        return row?.dataset.flagged === 'true' && row.classList.contains('flagged') ? true : undefined;
      }),
    );
    assert.equal(await rowCell('billing-bot', 'create_ticket', 'refusals'), '14');
    assert.match(
      (await rowCell('billing-bot', 'create_ticket', 'messages')) ?? '',
      /14.*Invalid value for `priority`: expected one of "low", "normal", "high"/,
    );
    assert.match((await text('#flagged-items')) ?? '', /billing-bot: 18 of 19 calls refused/);
    assert.equal(await text('#total-flagged'), '1');
  });

  it('changes the numbers when the window is switched', async () => {
    const hour = await text('#total-calls');
    await page.click('button[aria-label="Last 24 hours"]');
    await waitFor('the 24 h totals', 10_000, async () =>
      (await text('#total-calls')) === String(Number(hour) + 200) ? true : undefined,
    );
    assert.equal(await page.$eval('button[aria-label="Last 24 hours"]', (b) => b.getAttribute('aria-pressed')), 'true');
    await page.click('button[aria-label="Last hour"]');
    await waitFor('the 1 h totals', 10_000, async () => ((await text('#total-calls')) === hour ? true : undefined));
  });

  it('shows a new refusal within 5 s', async () => {
    const before = Number(await rowCell('billing-bot', 'create_ticket', 'refusals'));
    appendFileSync(
      file(),
      lines([
        refusal(FAILING_MESSAGE, {
          tsMs: Date.now(),
          principal: 'billing-bot',
          tool: 'create_ticket',
          client: { name: 'billing-agent', version: '2.3.0' },
        }),
      ]),
    );
    await waitFor('the new refusal', 5_000, async () =>
      Number(await rowCell('billing-bot', 'create_ticket', 'refusals')) === before + 1 ? true : undefined,
    );
  });

  it('lists the recent refusals of an agent when it is clicked', async () => {
    await page.click('#agents-body tr[data-agent="billing-bot"] .agent-button');
    await waitFor('the refusals panel', 10_000, async () =>
      (await page.$$('#refusals-body tr')).length > 0 ? true : undefined,
    );
    assert.equal(await text('#refusals-title'), 'Recent refusals of billing-bot');
    const first = await page.$eval('#refusals-body tr', (r) =>
      [...r.querySelectorAll('td')].map((td: { textContent: string }) => td.textContent),
    );
    assert.equal(first[1], 'support');
    assert.equal(first[2], 'create_ticket');
    assert.equal(first[3], FAILING_MESSAGE);
    assert.deepEqual(consoleErrors, []);
  });

  it('keeps a caller-chosen message full of markup as text', async () => {
    appendFileSync(
      path.join(dir, 'audit-support-1.jsonl'),
      lines([refusal(HOSTILE_MESSAGE, { tsMs: Date.now(), principal: 'triage-bot', tool: '<b>bold</b>' })]),
    );
    const rendered = await waitFor('the hostile row', 10_000, () => rowCell('triage-bot', '<b>bold</b>', 'messages'));
    assert.match(rendered ?? '', /<img src=x onerror=/);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.equal(await page.$$eval('#agents-body img, #agents-body script, #agents-body b', (e) => e.length), 0);
  });

  it('fits a phone screen without sideways scrolling', async () => {
    await page.setViewport({ width: 390, height: 844, isMobile: true });
    await new Promise((r) => setTimeout(r, 500));
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone`);
    assert.deepEqual(consoleErrors, []);
  });
});
