import assert from 'node:assert/strict';
import { normalizeTokenSha256, TOOL_NAME_RE } from '../../src/config';

const HEX = 'ab'.repeat(32);

describe('normalizeTokenSha256', () => {
  it('accepts 64 hex characters in any case and lowercases them', () => {
    assert.deepEqual(normalizeTokenSha256(HEX.toUpperCase()), { sha256: HEX });
  });

  it("says so when sha256sum's whole output line was pasted", () => {
    assert.deepEqual(normalizeTokenSha256(`${HEX}  -`), {
      problem: "holds sha256sum's whole output line: keep only the 64 hex characters before the two spaces",
    });
  });

  it('says so when the value is empty, as an unset environment variable makes it', () => {
    assert.deepEqual(normalizeTokenSha256(''), {
      problem: 'is empty (an unset environment variable?): set it to the SHA-256 of the token, 64 hex characters',
    });
  });

  it('says so when 64 characters are not hexadecimal (a token rather than its hash)', () => {
    const result = normalizeTokenSha256('z'.repeat(64));
    assert.deepEqual(result, {
      problem: 'is 64 characters long but not hexadecimal: it must be the SHA-256 of the token, not the token',
    });
  });

  it('names the length of another value and never quotes it', () => {
    const result = normalizeTokenSha256('my-secret-token');
    assert.ok('problem' in result);
    assert.match(result.problem, /this value has 15 characters/);
    assert.doesNotMatch(result.problem, /my-secret-token/);
  });
});

describe('TOOL_NAME_RE', () => {
  it('takes 1-64 letters, digits, _ . - and nothing else', () => {
    assert.ok(TOOL_NAME_RE.test('a'.repeat(64)));
    for (const bad of ['', 'a'.repeat(65), 'a b', 'ä', 'a/b']) assert.ok(!TOOL_NAME_RE.test(bad), bad);
  });
});
