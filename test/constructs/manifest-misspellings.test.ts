import * as assert from 'node:assert/strict';
import { withMisspellingsRead } from '../../constructs/manifest-misspellings';
import type { ManifestProblem } from '../../constructs/manifest-yaml';

describe('withMisspellingsRead', () => {
  it('checks a bounded number of times, however deep misspelt keys are nested', () => {
    // `propertis: { propertis: { … } }` 50 deep: each read uncovers the next
    let value: unknown = {};
    for (let i = 0; i < 50; i++) value = { propertis: value };
    let checks = 0;
    const check = (v: unknown): ManifestProblem[] => {
      checks++;
      const at: string[] = [];
      for (let node = v as Record<string, unknown>; 'properties' in node; node = node.properties as typeof node) {
        at.push('properties');
      }
      return [{ at: [...at, 'propertis'], reason: 'unknown key', atKey: true, near: 'properties' }];
    };
    const problems = withMisspellingsRead(value, check);
    assert.equal(checks, 5);
    assert.deepEqual(
      problems.map((p) => p.at.length),
      [1, 2, 3, 4, 5],
    );
    // said as written
    assert.deepEqual(problems[4].at, ['propertis', 'propertis', 'propertis', 'propertis', 'propertis']);
  });
});
