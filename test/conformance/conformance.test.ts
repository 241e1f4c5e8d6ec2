/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`) against the built gateway
 * (`serve --config …`, a real process on 127.0.0.1) in front of a real HTTP backend. Every server scenario the
 * suite has is run once; the applicable ones must pass, the others must be refused cleanly and are listed with
 * their reason in `scenarios.ts` (and docs/conformance.md). Fully offline: the suite and its Node 22 come from
 * dev dependencies.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startBackend, type TestBackend } from '../helpers/backend';
import { CLI_PATH, killAllGatewayProcesses, startGatewayProcess } from '../helpers/gateway-process';
import { conformanceGatewayConfig } from './conformance-gateway';
import {
  type ConformanceCheck,
  type ConformanceResults,
  findSuiteCli,
  findSuiteNode,
  runSuite,
  type SuiteRun,
  suiteVersion,
} from './conformance-suite';
import { APPLICABLE_SCENARIOS, NOT_APPLICABLE_SCENARIOS } from './scenarios';

function describeCheck(c: ConformanceCheck): string {
  const details = c.details === undefined ? '' : ` details: ${JSON.stringify(c.details)}`;
  return `${c.id} [${c.status}] ${c.description}${c.errorMessage ? ` — ${c.errorMessage}` : ''}${details}`;
}

function checksOf(results: ConformanceResults, scenario: string): readonly ConformanceCheck[] {
  const checks = results.get(scenario);
  assert.ok(checks, `the suite produced no results for scenario ${scenario}`);
  return checks;
}

describe('MCP conformance suite (official, server scenarios)', function () {
  this.timeout(60_000);
  let backend: TestBackend | undefined;
  let outputDir: string | undefined;
  let run: SuiteRun;

  before(async function () {
    // Fail (never skip) with a message that says what is missing.
    if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run \`npm run build\` first`);
    const node = await findSuiteNode();
    const cli = findSuiteCli();
    backend = await startBackend();
    const gw = await startGatewayProcess({ config: conformanceGatewayConfig(backend.url) });
    outputDir = mkdtempSync(path.join(tmpdir(), 'mcp-conformance-'));
    run = await runSuite({ node, cli, url: gw.url, outputDir });
  });

  after(async () => {
    await killAllGatewayProcesses();
    await backend?.close();
    if (outputDir) rmSync(outputDir, { recursive: true, force: true });
  });

  it('classifies every server scenario of the installed suite as applicable or not applicable', () => {
    const known = new Set([...Object.keys(APPLICABLE_SCENARIOS), ...Object.keys(NOT_APPLICABLE_SCENARIOS)]);
    const ran = [...run.results.keys()].sort();
    const unclassified = ran.filter((s) => !known.has(s));
    const missing = [...known].filter((s) => !run.results.has(s)).sort();
    assert.deepEqual(
      { unclassified, missing },
      { unclassified: [], missing: [] },
      `@modelcontextprotocol/conformance ${suiteVersion()} ran ${ran.join(', ')}; classify new scenarios in ` +
        `test/conformance/scenarios.ts and docs/conformance.md.\nSuite output:\n${run.output}`,
    );
  });

  for (const [scenario, expected] of Object.entries(APPLICABLE_SCENARIOS)) {
    it(`passes ${scenario}: ${expected.covers}`, () => {
      const checks = checksOf(run.results, scenario);
      const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
      assert.deepEqual(bad.map(describeCheck), [], `${scenario} reported failures or warnings`);
      const succeeded = checks.filter((c) => c.status === 'SUCCESS').map((c) => c.id);
      assert.deepEqual(
        succeeded,
        expected.successChecks,
        `${scenario}: checks\n${checks.map(describeCheck).join('\n')}`,
      );
      for (const id of expected.infoChecks ?? []) {
        assert.ok(
          checks.some((c) => c.id === id && c.status === 'INFO'),
          `${scenario}: expected INFO check ${id}; checks\n${checks.map(describeCheck).join('\n')}`,
        );
      }
    });
  }

  it('refuses what the not-applicable scenarios ask for with the JSON-RPC error the MCP specification prescribes', () => {
    // -32601 for a method the gateway does not offer, -32602 `Unknown tool` for a tool only the reference server has:
    // each not-applicable scenario fails on that clean refusal, never on a crash, a hang or an HTTP error.
    const wrong: string[] = [];
    for (const [scenario, { refusal }] of Object.entries(NOT_APPLICABLE_SCENARIOS)) {
      const checks = checksOf(run.results, scenario);
      const failures = checks.filter((c) => c.status === 'FAILURE');
      const ok = failures.length === 1 && refusal.test(failures[0].errorMessage ?? '');
      if (!ok) wrong.push(`${scenario} (expected ${refusal}): ${checks.map(describeCheck).join(' | ')}`);
    }
    assert.deepEqual(
      wrong,
      [],
      'a not-applicable scenario did not end on the expected refusal (if the gateway now ' +
        'offers the feature, move the scenario to APPLICABLE_SCENARIOS)',
    );
  });

  it('calls the backend only for the tools the applicable scenarios call', () => {
    // test_simple_text, test_error_handling and test_reconnection each reach the backend once; refused calls never do.
    const paths = backend!.received.map((r) => `${r.method} ${r.url}`).sort();
    assert.deepEqual(paths, ['GET /reconnection', 'GET /simple-text', 'GET /status/500']);
  });
});
