/**
 * `npm run fuzz [count] [seed]`: runs the validation fuzzer (default 1,000,000 inputs) and prints the count, the
 * slowest input's time and the throughput, then the response fuzzer (as many hostile answers). Exits non-zero with
 * the failing input on the first failure.
 */
import { runResponseFuzzer } from './response-fuzzer';
import { runValidationFuzzer } from './validation-fuzzer';

const count = Number(process.argv[2] ?? 1_000_000);
const seed = process.argv[3] === undefined ? Date.now() % 2 ** 31 : Number(process.argv[3]);
console.log(`validation fuzzer: ${count.toLocaleString('en-US')} inputs, seed ${seed}`);
const report = runValidationFuzzer({
  count,
  seed,
  progressEvery: Math.max(1, Math.floor(count / 20)),
  onProgress: (done, slowestMs) =>
    console.log(`  ${done.toLocaleString('en-US')} inputs, slowest so far ${slowestMs.toFixed(2)} ms`),
});
const seconds = report.elapsedMs / 1000;
console.log(`inputs: ${report.count.toLocaleString('en-US')} (${report.schemas.toLocaleString('en-US')} schemas)`);
console.log(
  `slowest input: ${report.slowestMs.toFixed(2)} ms by the clock, most CPU for one input ${report.slowestCpuMs.toFixed(2)} ms (budget 50 ms)`,
);
console.log(`  it was: ${report.slowest}`);
console.log(`slowest compile: ${report.slowestCompileMs.toFixed(2)} ms`);
console.log(
  `throughput: ${Math.round(report.count / seconds).toLocaleString('en-US')} inputs/s (${seconds.toFixed(1)} s)`,
);

console.log(`response fuzzer: ${count.toLocaleString('en-US')} hostile answers, seed ${seed}`);
const responses = runResponseFuzzer({ count, seed });
console.log(
  `answers: ${responses.count.toLocaleString('en-US')} (${responses.shaped.toLocaleString('en-US')} shaped, ` +
    `${responses.refused.toLocaleString('en-US')} refused), no leak, ${(responses.elapsedMs / 1000).toFixed(1)} s`,
);
