import * as assert from 'node:assert/strict';
import { parseRedactPath, redactPathProblem } from '../../src/response';
import { generateOutputSchema } from '../../src/schema';

const OUTPUT = generateOutputSchema({
  email: { type: 'string' },
  age: { type: 'integer' },
  orders: { type: 'array', items: { type: 'object', properties: { card_number: { type: 'string' } } } },
  metadata: { type: 'object' },
  'x-key': { type: 'object', properties: { value: { type: 'string' } } },
});

describe('response/redact-path', () => {
  it('parses names, [] for every element, * for every key and ["key"] for other keys', () => {
    assert.deepEqual(parseRedactPath('orders[].card_number'), [
      { kind: 'key', key: 'orders' },
      { kind: 'element' },
      { kind: 'key', key: 'card_number' },
    ]);
    assert.deepEqual(parseRedactPath('metadata.*'), [{ kind: 'key', key: 'metadata' }, { kind: 'anyKey' }]);
    assert.deepEqual(parseRedactPath('["x-key"].value'), [
      { kind: 'key', key: 'x-key' },
      { kind: 'key', key: 'value' },
    ]);
  });

  it('reads a leading [] as every element of a top-level array', () => {
    assert.deepEqual(parseRedactPath('[].a'), [{ kind: 'element' }, { kind: 'key', key: 'a' }]);
  });

  it('says why a string is not a path', () => {
    assert.equal(parseRedactPath(''), 'is empty; name a field, e.g. email or orders[].card_number');
    assert.equal(parseRedactPath('a.'), 'ends with "."; name a field after it');
    assert.equal(
      parseRedactPath('a[0]'),
      'is not a path at character 2: use field names joined by ".", [] for every array element, * for every key of a map and ["key"] for other keys',
    );
    assert.equal(parseRedactPath('a.[]'), 'has "." before "[" at character 2; write a[] or a["key"]');
    assert.equal(parseRedactPath('["x'), 'has an unterminated ["…"] key at character 1');
  });

  it('accepts paths to declared strings, and any path into an open map', () => {
    for (const path of ['email', 'orders[].card_number', 'metadata.*', 'metadata.a.b', '["x-key"].value']) {
      assert.equal(redactPathProblem(parseRedactPath(path) as never, OUTPUT), undefined, path);
    }
  });

  it('refuses a path naming no declared field, a non-string field, or the wrong kind of step', () => {
    const problem = (path: string) => redactPathProblem(parseRedactPath(path) as never, OUTPUT);
    assert.equal(problem('phone'), 'names no declared field ("phone" is not in the output)');
    assert.equal(problem('orders[].cvv'), 'names no declared field ("cvv" is not in the output)');
    assert.equal(problem('age'), 'names a field of type integer, and only strings are redacted');
    assert.equal(problem('orders'), 'names a field of type array, and only strings are redacted');
    assert.equal(problem('email[]'), 'uses [] where the output declares string, not an array');
    assert.equal(problem('email.x'), 'names a field inside string, but only an object has fields');
    assert.equal(
      problem('*'),
      'uses * on an object with declared fields; name the field instead (* is for the keys of an open map)',
    );
  });
});
