/**
 * `npm run screenshot`: makes docs/images/dashboard.png, the picture the README and docs/dashboard.md show. It
 * serves the dashboard over a made-up hour of audit logs (two healthy agents, one failing systematically on
 * `create_ticket`), opens it in Debian's headless `chromium` (or CHROMIUM_PATH), clicks the failing agent and saves
 * the page. No test writes this file: run this script and commit the picture when the page changes.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { silentLogger } from '../src/gateway';
import { DEFAULT_FLAG_RULE, DEFAULT_RETENTION_MS, startDashboard } from '../src/dashboard';
import { makeToken } from '../test/helpers/tokens';
import { auditRecord, lines, refusal } from '../test/dashboard/audit-fixtures';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUT = path.resolve(__dirname, '../docs/images/dashboard.png');
const MINUTE = 60_000;
const FAILING_MESSAGE = 'Invalid value for `priority`: expected one of "low", "normal", "high"';

declare const document: any, window: any;

/** A quiet hour of two healthy agents, older traffic, and billing-bot refused 14 times on one field. */
function scene(now: number): string {
  const records = [];
  for (let i = 0; i < 120; i++) {
    records.push(
      auditRecord({
        tsMs: now - (i % 58) * MINUTE - 5000,
        principal: 'support-bot',
        tool: ['get_customer', 'list_orders', 'create_ticket'][i % 3],
      }),
    );
  }
  const triage = { principal: 'triage-bot', tool: 'list_orders', client: { name: 'triage', version: '0.9.1' } };
  for (let i = 0; i < 30; i++) {
    records.push(
      i % 6 === 0
        ? auditRecord({
            tsMs: now - i * 2 * MINUTE,
            ...triage,
            outcome: 'error',
            error: { code: 'SERVICE_HTTP_STATUS', message: 'Service error: HTTP 503' },
          })
        : auditRecord({ tsMs: now - i * 2 * MINUTE, ...triage }),
    );
  }
  const billing = { principal: 'billing-bot', client: { name: 'billing-agent', version: '2.3.0' } };
  for (let i = 0; i < 14; i++)
    records.push(refusal(FAILING_MESSAGE, { tsMs: now - (14 - i) * 20_000, tool: 'create_ticket', ...billing }));
  for (let i = 0; i < 4; i++) {
    records.push(
      refusal('Missing required parameter: `customer_id`', {
        tsMs: now - i * 40_000,
        tool: 'get_customer',
        ...billing,
      }),
    );
  }
  records.push(auditRecord({ tsMs: now, tool: 'get_customer', ...billing }));
  records.sort((a, b) => a.ts.localeCompare(b.ts));
  return lines(records);
}

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM))
    throw new Error(`needs chromium at ${CHROMIUM} (apt-get install chromium), or set CHROMIUM_PATH`);
  const dir = mkdtempSync(path.join(tmpdir(), 'dashboard-screenshot-'));
  const token = makeToken('ops');
  writeFileSync(path.join(dir, 'audit-support-0.jsonl'), scene(Date.now()));
  const dashboard = await startDashboard(
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
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${dashboard.url}?token=${encodeURIComponent(token.token)}`, { waitUntil: 'networkidle0' });
    await page.waitForSelector('#agents-body tr[data-agent="billing-bot"][data-flagged="true"]', { timeout: 10_000 });
    await page.click('#agents-body tr[data-agent="billing-bot"] .agent-button');
    await page.waitForSelector('#refusals-body tr', { timeout: 10_000 });
    await page.mouse.move(1, 1);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.evaluate(() => document.fonts?.ready);
    await new Promise((r) => setTimeout(r, 300));
    mkdirSync(path.dirname(OUT), { recursive: true });
    await page.screenshot({ path: OUT as `${string}.png`, fullPage: true });
    console.log(`wrote ${OUT}`);
  } finally {
    await browser.close();
    await dashboard.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(`screenshot: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
