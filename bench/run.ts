/**
 * `npm run bench`: runs every benchmark suite in one process and prints their tables.
 * Each suite prints its own table; run one with `node dist/bench/run.js validation|gateway|workers`.
 */
import { runValidationBench } from './validation';
import { runGatewayBench } from './gateway';
import { runWorkersBench } from './workers';

const suites: Record<string, () => Promise<void>> = {
  validation: runValidationBench,
  gateway: runGatewayBench,
  workers: runWorkersBench,
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
