import assert from 'node:assert/strict';
import { hasScopes, missingScopes, requiredScopes } from '../../../src/gateway/auth/oauth-scopes';

describe('scopes', () => {
  it('a call needs the gateway scopes then the tool scopes, without repeats', () => {
    assert.deepEqual(requiredScopes(['mcp'], ['crm.read', 'mcp']), ['mcp', 'crm.read']);
    assert.deepEqual(requiredScopes(undefined, undefined), []);
  });

  it('names the scopes a caller lacks, in the order required', () => {
    assert.deepEqual(missingScopes(['a', 'b', 'c'], new Set(['b'])), ['a', 'c']);
    assert.deepEqual(missingScopes(['a'], new Set(['a', 'z'])), []);
  });

  it('matches exactly: no prefix, no case folding, no wildcard', () => {
    const granted = new Set(['crm', 'CRM.READ', '*']);
    assert.deepEqual(missingScopes(['crm.read'], granted), ['crm.read']);
    assert.equal(hasScopes(['crm.read'], granted), false);
  });

  it('a tool that needs nothing is open to every caller, even one without scopes', () => {
    assert.equal(hasScopes([], new Set()), true);
  });

  it('prototype names are scopes like any other', () => {
    assert.deepEqual(missingScopes(['__proto__', 'constructor'], new Set(['toString'])), ['__proto__', 'constructor']);
  });
});
