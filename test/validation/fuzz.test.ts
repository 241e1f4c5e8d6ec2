/**
 * The validation fuzzer (fuzz/validation-fuzzer.ts) with 10,000 inputs: random declared inputs and hostile raw
 * schemas × adversarial JSON through generation, compilation, alias normalization, validation and the walker.
 * It fails on a throw, a verdict the walker disagrees with, a subset/ajv disagreement, or an input over 50 ms
 * (a fuzzer budget on five tries, not a timing assertion: bench/ measures speed). `npm run fuzz` runs 10^6.
 */
import * as assert from 'node:assert/strict';
import { runValidationFuzzer } from '../../fuzz/validation-fuzzer';

describe('validation fuzzer', () => {
  it('finds no throw, disagreement or input over budget in 10,000 inputs', function () {
    // Seconds on a quiet machine; far longer on a loaded one, hence the generous mocha limit.
    this.timeout(600_000);
    const report = runValidationFuzzer({ count: 10_000 });
    assert.ok(report.count >= 10_000);
    assert.ok(report.schemas >= 500, `only ${report.schemas} schemas compiled`);
  });
});
