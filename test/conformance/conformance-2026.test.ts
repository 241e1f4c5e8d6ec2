/**
 * The official MCP conformance suite 0.2.0-alpha (`conformance-2026`) at `--spec-version 2026-07-28` against
 * the built gateway (`serve`, a real process on 127.0.0.1) in front of a real backend, for the scenarios of
 * issue 12. Every check must be SUCCESS except the not-applicable ones listed with their reason in
 * `scenarios-2026.ts`.
 * Runs in `npm test` beside the 0.1.16 run (`conformance.test.ts`), on the same Node 22 binary, installed from npm
 * by `scripts/install-conformance-node.js`, so a plain clone runs it. Alone:
 *   npm run build && node scripts/install-conformance-node.js && npx mocha test/conformance/conformance-2026.test.ts
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CLI_PATH, killAllGatewayProcesses, startGatewayProcess } from '../helpers/gateway-process';
import {
  conformance2026GatewayConfig,
  startConformance2026Backend,
  type Conformance2026Backend,
} from './conformance-2026-gateway';
import { findSuite2026, runSuite2026, type Run2026 } from './conformance-2026-suite';
import { type ConformanceCheck, findSuiteNode } from './conformance-suite';
import { SCENARIOS_2026 } from './scenarios-2026';

function describeCheck(c: ConformanceCheck): string {
  const details = c.details === undefined ? '' : ` details: ${JSON.stringify(c.details).slice(0, 2000)}`;
  return `${c.id} [${c.status}] ${c.description}${c.errorMessage ? ` — ${c.errorMessage}` : ''}${details}`;
}

describe('MCP conformance suite 0.2.0-alpha at 2026-07-28 (official, server scenarios)', function () {
  this.timeout(5 * 60_000);
  let tools: Conformance2026Backend | undefined;
  let outputDir: string | undefined;
  let run: Run2026;
  let suiteVersion = '';

  before(async function () {
    if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run \`npm run build\` first`);
    const node = await findSuiteNode();
    const { cli, version } = findSuite2026();
    suiteVersion = version;
    tools = await startConformance2026Backend();
    const gw = await startGatewayProcess({ config: conformance2026GatewayConfig(tools.backend.url) });
    tools.attach(gw);
    outputDir = mkdtempSync(path.join(tmpdir(), 'mcp-conformance-2026-'));
    run = await runSuite2026({ node, cli, url: gw.url, scenarios: Object.keys(SCENARIOS_2026), outputDir });
  });

  after(async () => {
    await killAllGatewayProcesses();
    await tools?.backend.close();
    if (outputDir) rmSync(outputDir, { recursive: true, force: true });
  });

  it('runs the pinned suite version', () => {
    assert.equal(suiteVersion, '0.2.0-alpha.12');
  });

  for (const [scenario, expected] of Object.entries(SCENARIOS_2026)) {
    it(`passes ${scenario}: ${expected.covers}`, () => {
      const checks = run.results.get(scenario);
      assert.ok(checks, `no results for ${scenario}; suite output:\n${run.output}`);
      const all = checks.map(describeCheck).join('\n');
      const notApplicable = expected.notApplicable ?? {};
      const wrong = checks.filter((c) => {
        const na = notApplicable[c.id];
        return na ? c.status !== na.status : c.status !== 'SUCCESS';
      });
      assert.deepEqual(
        wrong.map(describeCheck),
        [],
        `${scenario}: checks that are neither SUCCESS nor an expected not-applicable status`,
      );
      const succeeded = checks
        .filter((c) => c.status === 'SUCCESS')
        .map((c) => c.id)
        .sort();
      assert.deepEqual(succeeded, [...expected.successChecks].sort(), `${scenario}: checks\n${all}`);
      for (const id of Object.keys(notApplicable)) {
        assert.ok(
          checks.some((c) => c.id === id),
          `${scenario}: the not-applicable check ${id} did not run; checks\n${all}`,
        );
      }
    });
  }

  it('reloaded on every trigger and reached the backend for the calls the scenarios make', () => {
    // server-stateless calls test_trigger_tool_change three times (ack, filter and tools list_changed probes).
    assert.ok(tools!.triggers >= 3, `triggers: ${tools!.triggers}`);
    const paths = tools!.backend.received.map((r) => r.url);
    assert.ok(paths.includes('/simple-text'), 'http-header-validation called the first tool');
  });
});
