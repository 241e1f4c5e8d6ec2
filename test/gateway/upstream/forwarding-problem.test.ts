import assert from 'node:assert/strict';
import { forwardingProblemOf, planServiceCall } from '../../../src/gateway/upstream/request-plan';

function plan(url: string) {
  return planServiceCall({
    name: 't',
    description: 'd',
    input_schema: { type: 'object' },
    backend: { url, method: 'POST' },
  });
}

describe('forwardingProblemOf: what a request cannot carry, whatever validate_input says', () => {
  it('refuses numbers that are not finite (1e400 parses as Infinity), naming each path', () => {
    const args = JSON.parse('{"x":1e400,"list":[1,-1e400],"nested":{"deep":{"v":1e999}},"ok":1e308}') as Record<
      string,
      unknown
    >;
    const problem = forwardingProblemOf(plan('http://api/x'), args);
    assert.deepEqual(
      problem?.violations.map((v) => v.path),
      ['x', 'list[1]', 'nested.deep.v'],
    );
    assert.equal(problem?.violations[0].message, 'Invalid value for `x`: expected a finite number');
    assert.equal(problem?.message.split('; ').length, 3);
  });

  it('puts placeholder problems first and caps the list at 20', () => {
    const args = { many: Array.from({ length: 50 }, () => Infinity) };
    const problem = forwardingProblemOf(plan('http://api/x/{id}'), args);
    assert.equal(problem?.violations.length, 20);
    assert.equal(problem?.violations[0].message, 'Missing required parameter: `id`');
    assert.match(problem!.message, /\(\+15 more\)$/);
  });

  it('accepts finite numbers and is total on a payload nested 100,000 deep (no recursion)', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = i % 2 === 0 ? [deep] : { k: deep };
    assert.equal(forwardingProblemOf(plan('http://api/x'), { deep, n: -0, big: Number.MAX_VALUE }), undefined);
  });

  it('reads own keys only', () => {
    const args = JSON.parse('{"__proto__":{"x":1e400}}') as Record<string, unknown>;
    assert.deepEqual(
      forwardingProblemOf(plan('http://api/x'), args)?.violations.map((v) => v.path),
      ['__proto__.x'],
    );
  });
});
