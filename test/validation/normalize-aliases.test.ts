import * as assert from 'node:assert/strict';
import { normalizeAliases } from '../../src/validation';

const aliases = { description: 'prompt' };

describe('normalizeAliases', () => {
  it('renames an alias to its parameter when only the alias is sent', () => {
    assert.deepEqual(normalizeAliases({ title: 't', description: 'p' }, aliases), {
      ok: true,
      args: { title: 't', prompt: 'p' },
    });
  });
  it('keeps the arguments when only the parameter name is sent', () => {
    const args = { title: 't', prompt: 'p' };
    const result = normalizeAliases(args, aliases);
    assert.deepEqual(result, { ok: true, args: { title: 't', prompt: 'p' } });
  });
  it('refuses the parameter and its alias sent together, naming the parameter first', () => {
    for (const args of [
      { prompt: 'a', description: 'b' },
      { description: 'b', prompt: 'a' },
    ]) {
      assert.deepEqual(normalizeAliases(args, aliases), {
        ok: false,
        message: 'Conflicting parameters: `prompt` and `description`',
        violations: [
          { path: 'prompt', rule: 'aliases', message: 'Conflicting parameters: `prompt` and `description`' },
        ],
      });
    }
  });
  it('refuses two aliases of one parameter sent together, in input order', () => {
    const result = normalizeAliases({ text: 'a', description: 'b' }, { description: 'prompt', text: 'prompt' });
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.message, 'Conflicting parameters: `text` and `description`');
  });
  it('never mutates its input', () => {
    const args = Object.freeze({ description: 'p', other: 1 });
    const result = normalizeAliases(args, aliases);
    assert.deepEqual(args, { description: 'p', other: 1 });
    assert.deepEqual(result, { ok: true, args: { prompt: 'p', other: 1 } });
  });
  it('keeps the key order of the call, the alias replaced in place', () => {
    const result = normalizeAliases({ a: 1, description: 'p', z: 2 }, aliases);
    assert.deepEqual(result.ok && Object.keys(result.args), ['a', 'prompt', 'z']);
  });
  it('ignores inherited names: a call key "toString" is not an alias', () => {
    assert.deepEqual(normalizeAliases({ toString: 1 }, {}), { ok: true, args: { toString: 1 } });
    assert.deepEqual(normalizeAliases({ toString: 1 }, aliases), { ok: true, args: { toString: 1 } });
  });
  it('returns the same object when there is nothing to rename', () => {
    const args = { a: 1 };
    const result = normalizeAliases(args, aliases);
    assert.equal(result.ok && result.args, args);
  });
  it('never reads an inherited alias map entry: constructor, __proto__ and valueOf sent by the caller stay as sent', () => {
    const args = JSON.parse('{"constructor": 1, "__proto__": {"x": 2}, "valueOf": 3, "description": "hi"}') as Record<
      string,
      unknown
    >;
    const result = normalizeAliases(args, { description: 'prompt' });
    assert.ok(result.ok);
    assert.deepEqual(Object.keys(result.args), ['constructor', '__proto__', 'valueOf', 'prompt']);
    assert.equal(Object.getPrototypeOf(result.args), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(result.args, '__proto__')?.value, { x: 2 });
  });
});
