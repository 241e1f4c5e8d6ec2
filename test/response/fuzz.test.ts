/**
 * The response fuzzer (fuzz/response-fuzzer.ts) with 10,000 hostile answers: no pattern match in any part of a
 * result, no undeclared key through `fields: 'declared'`, no key the service chose in a refusal, no throw.
 * `npm run fuzz` runs 10^6.
 */
import * as assert from 'node:assert/strict';
import { runResponseFuzzer } from '../../fuzz/response-fuzzer';

describe('response fuzzer', () => {
  it('finds no leak in 10,000 hostile answers', function () {
    this.timeout(600_000);
    const report = runResponseFuzzer({ count: 10_000 });
    assert.equal(report.count, 10_000);
    // both kinds of outcome are exercised, not only refusals
    assert.ok(report.shaped > 1_000 && report.refused > 1_000, JSON.stringify(report));
  });
});
