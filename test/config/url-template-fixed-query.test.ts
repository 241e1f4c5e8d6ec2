import assert from 'node:assert/strict';
import { fixedQueryClash, fixedQueryNames } from '../../src/config';

describe('fixedQueryNames / fixedQueryClash', () => {
  it('lists the decoded literal query names of a template, not placeholder names, not the fragment', () => {
    assert.deepEqual(fixedQueryNames('http://api/x'), []);
    assert.deepEqual(fixedQueryNames('http://api/x?a=1&b&a=2&c={c}&{d}=1&e+f=1&g%20h=2#i=1'), [
      'a',
      'b',
      'c',
      'e f',
      'g h',
    ]);
  });

  it('takes 1 MiB of query in linear time (no regular expression over it)', () => {
    assert.deepEqual(fixedQueryNames(`http://api/x?${'a=1&'.repeat(262_144)}`), ['a']);
    const distinct = Array.from({ length: 100_000 }, (_, i) => `n${i}=1`).join('&');
    assert.equal(fixedQueryNames(`http://api/x?${distinct}`).length, 100_000);
  });

  it('finds a GET/DELETE parameter, renamed or not, under a fixed name; never for a body method', () => {
    const schema = { type: 'object', properties: { q: {}, fixed: {} } };
    assert.deepEqual(fixedQueryClash('http://api/x?fixed=1', 'GET', schema), { param: 'fixed', field: 'fixed' });
    assert.deepEqual(fixedQueryClash('http://api/x?src=1', 'DELETE', schema, { q: 'src' }), {
      param: 'q',
      field: 'src',
    });
    assert.equal(fixedQueryClash('http://api/x?fixed=1', 'PUT', schema), undefined);
    assert.equal(fixedQueryClash('http://api/x?fixed=1', 'GET', schema, { fixed: 'other' }), undefined);
    assert.equal(fixedQueryClash('http://api/x?fixed={fixed}', 'GET', schema), undefined);
  });

  it('reads only own entries of forward_as and properties', () => {
    const schema = { type: 'object', properties: JSON.parse('{"__proto__":{}}') as Record<string, unknown> };
    assert.equal(fixedQueryClash('http://api/x?constructor=1', 'GET', schema), undefined);
    assert.deepEqual(fixedQueryClash('http://api/x?__proto__=1', 'GET', schema), {
      param: '__proto__',
      field: '__proto__',
    });
  });
});
