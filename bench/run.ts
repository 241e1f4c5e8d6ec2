/**
 * `npm run bench`: runs every benchmark suite in one process and prints their tables.
 * Each suite prints its own table; run one with `node dist/bench/run.js validation|worst-case|gateway|startup|dashboard|session-token|workers|response|reload|response-attacks|rate-limits`.
 */
import { runValidationBench } from './validation';
import { runGatewayBench } from './gateway';
import { runStartupBench } from './startup';
import { runDashboardBench } from './dashboard';
import { runSessionTokenBench } from './session-token';
import { runWorstCaseBench } from './worst-case';
import { runWorkersBench } from './workers';
import { runResponseBench } from './response';
import { runReloadBench } from './reload';
import { runResponseAttacksBench } from './response-attacks';
import { runRateLimitsBench } from './rate-limits';

const suites: Record<string, () => Promise<void>> = {
  validation: runValidationBench,
  'worst-case': runWorstCaseBench,
  gateway: runGatewayBench,
  startup: runStartupBench,
  dashboard: runDashboardBench,
  'session-token': runSessionTokenBench,
  workers: runWorkersBench,
  response: runResponseBench,
  reload: runReloadBench,
  'response-attacks': runResponseAttacksBench,
  'rate-limits': runRateLimitsBench,
};

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  for (const [name, run] of Object.entries(suites)) {
    if (only.length > 0 && !only.includes(name)) continue;
    console.log(`\n## ${name}\n`);
    await run();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
