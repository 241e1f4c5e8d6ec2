import assert from 'node:assert/strict';
import { compileToolSchema } from '../../src/validation';
import { MAX_SHARED_PATTERNS, sharedLinearPattern, sharedPatternProblem } from '../../src/regex/shared-patterns';

describe('shared patterns and the validator built on first use', () => {
  it('compiles one pattern source once and hands every user the same compiled pattern', () => {
    const a = sharedLinearPattern('^S-[0-9]{3}$');
    assert.equal(sharedLinearPattern('^S-[0-9]{3}$'), a);
    assert.equal(a.test('S-123'), true);
    assert.equal(a.test('S-12'), false);
  });

  it('reports a refused pattern with the engine message and keeps nothing for it', () => {
    assert.equal(
      sharedPatternProblem('(a)\\1'),
      sharedPatternProblem('(a)\\1'),
      'the same message each time (nothing cached in its place)',
    );
    assert.match(sharedPatternProblem('(a)\\1')!, /backreference/);
    assert.match(sharedPatternProblem('[')!, /^is not a valid ECMAScript/);
    assert.throws(() => sharedLinearPattern('['));
  });

  it('stays bounded whatever the number of distinct sources', () => {
    const first = sharedLinearPattern('^first-0$');
    for (let i = 0; i <= MAX_SHARED_PATTERNS; i++) sharedLinearPattern(`^p${i}-[a-z]+$`);
    assert.notEqual(sharedLinearPattern('^first-0$'), first, 'the oldest was dropped and compiled again');
  });

  it('still refuses at load a schema whose pattern cannot run, although functions are built on first use', () => {
    const compiled = compileToolSchema({
      type: 'object',
      properties: { id: { type: 'string', pattern: '(a)\\1' } },
      additionalProperties: false,
    });
    assert.equal(compiled.ok, false);
    assert.match(
      (compiled as { error: string }).error,
      /^input schema: pattern "\(a\)\\\\1" at #\/properties\/id\/pattern /,
    );
  });

  it('gives the same verdicts from the first call on, for tools sharing one pattern', () => {
    const schema = (limit: number) => ({
      type: 'object',
      properties: { id: { type: 'string', pattern: '^C-[0-9]{4}$' }, n: { type: 'integer', maximum: limit } },
      required: ['id'],
      additionalProperties: false,
    });
    const [a, b] = [compileToolSchema(schema(10)), compileToolSchema(schema(20))];
    assert.ok(a.ok && b.ok);
    assert.deepEqual(a.validator.validate({ id: 'C-0001', n: 15 }).valid, false);
    assert.deepEqual(b.validator.validate({ id: 'C-0001', n: 15 }).valid, true);
    assert.deepEqual(b.validator.validate({ id: 'X-0001' }).valid, false);
    assert.deepEqual(a.validator.validate({ id: 'C-0001' }), { valid: true });
  });
});
