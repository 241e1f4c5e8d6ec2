import assert from 'node:assert/strict';
import type { ToolConfig } from '../../../src/contract';
import { buildServiceRequest, placeholderProblemOf, planServiceCall } from '../../../src/gateway/upstream/request-plan';

function plan(url: string, options: { method?: ToolConfig['backend']['method']; forwardAs?: Record<string, string> } = {}) {
  return planServiceCall({
    name: 't',
    description: 'd',
    input_schema: { type: 'object' },
    ...(options.forwardAs !== undefined ? { forward_as: options.forwardAs } : {}),
    backend: { url, method: options.method ?? 'GET' },
  });
}

/** Arguments as the gateway receives them: parsed from JSON text, so `__proto__` is an own key like any other. */
function parsed(json: string): Record<string, unknown> {
  return JSON.parse(json) as Record<string, unknown>;
}

describe('request plan: names are own properties only (SPEC §3)', () => {
  for (const name of ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf']) {
    it(`refuses a URL placeholder {${name}} whose parameter is omitted as missing, not filled with an inherited value`, () => {
      const p = plan(`http://crm/things/{${name}}`);
      const problem = placeholderProblemOf(p, {});
      assert.ok(problem !== undefined, 'an omitted placeholder parameter must be refused');
      assert.equal(problem.message, `Missing required parameter: \`${name}\``);
      assert.deepEqual(problem.violations.map((v) => v.rule), ['required']);
    });

    it(`never writes an inherited ${name} into the URL, the query or the body`, () => {
      const get = buildServiceRequest(plan(`http://crm/things/{${name}}/x`), {});
      assert.equal(get.url, 'http://crm/things//x');
      const post = buildServiceRequest(plan('http://crm/things', { method: 'POST' }), {});
      assert.equal(post.body, '{}');
    });
  }

  it('fills a placeholder {constructor} from an own value', () => {
    const p = plan('http://crm/constructors/{constructor}');
    assert.equal(placeholderProblemOf(p, { constructor: 'c1' }), undefined);
    assert.equal(buildServiceRequest(p, { constructor: 'c1' }).url, 'http://crm/constructors/c1');
  });

  it('a field renamed to __proto__ never becomes the prototype of the forwarded fields', () => {
    // {meta: {id: "abc"}} must not fill the placeholder {id} through the prototype chain.
    const p = plan('http://crm/items/{id}', { forwardAs: { meta: '__proto__' } });
    const problem = placeholderProblemOf(p, { meta: { id: 'abc' } });
    assert.equal(problem?.message, 'Missing required parameter: `id`');
    const req = buildServiceRequest(p, { meta: { id: 'abc' }, id: '7' });
    assert.equal(req.url, 'http://crm/items/7?__proto__=%7B%22id%22%3A%22abc%22%7D');
  });

  it('forwards a caller field named __proto__ as an ordinary query field (GET)', () => {
    const req = buildServiceRequest(plan('http://crm/search'), parsed('{"__proto__":"x","q":"y"}'));
    assert.equal(req.url, 'http://crm/search?__proto__=x&q=y');
  });

  it('forwards a caller field named __proto__ as an ordinary body field, never as the prototype (POST)', () => {
    const req = buildServiceRequest(plan('http://crm/items', { method: 'POST' }), parsed('{"__proto__":{"admin":true},"q":1}'));
    assert.equal(req.body, '{"__proto__":{"admin":true},"q":1}');
  });

  it('forwards __proto__ as an ordinary field through a forward_as rename of another parameter', () => {
    const req = buildServiceRequest(
      plan('http://crm/items', { method: 'POST', forwardAs: { prompt: 'description' } }),
      parsed('{"__proto__":{"admin":true},"prompt":"p"}'),
    );
    assert.deepEqual(Object.keys(JSON.parse(req.body!) as object), ['__proto__', 'description']);
  });
});

describe('request plan: a query parameter fixed in the URL template (SPEC §4)', () => {
  it('never duplicates a fixed query parameter with a caller field of the same name', () => {
    const req = buildServiceRequest(plan('http://api/x?fixed=1'), { fixed: '2', other: 'o' });
    assert.equal(req.url, 'http://api/x?fixed=1&other=o');
  });

  it('compares decoded names: a fixed `a%20b` or `a+b` is the caller field `a b`', () => {
    assert.equal(buildServiceRequest(plan('http://api/x?a%20b=1'), { 'a b': '2' }).url, 'http://api/x?a%20b=1');
    assert.equal(buildServiceRequest(plan('http://api/x?k=v&a+b=1'), { 'a b': '2' }).url, 'http://api/x?k=v&a+b=1');
  });

  it('drops a renamed field that lands on a fixed name, and keeps the others', () => {
    const req = buildServiceRequest(plan('http://api/x?source=agent', { forwardAs: { origin: 'source' } }), { origin: 'me', q: 'y' });
    assert.equal(req.url, 'http://api/x?source=agent&q=y');
  });

  it('leaves a query placeholder to its parameter and does not count it as fixed', () => {
    const req = buildServiceRequest(plan('http://api/x?q={q}&fixed=1'), { q: 'a b', fixed: '3', more: 1 });
    assert.equal(req.url, 'http://api/x?q=a%20b&fixed=1&more=1');
  });

  it('keeps a body field of the same name as a fixed query parameter (they do not meet)', () => {
    const req = buildServiceRequest(plan('http://api/x?fixed=1', { method: 'POST' }), { fixed: 2 });
    assert.equal(req.url, 'http://api/x?fixed=1');
    assert.equal(req.body, '{"fixed":2}');
  });
});
