import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ToolConfig } from '../../../src/contract';
import { buildServiceRequest, planServiceCall, serviceTarget } from '../../../src/gateway/upstream/request-plan';

function plan(url: string, method: ToolConfig['backend']['method'] = 'GET') {
  return planServiceCall({ name: 't', description: 'd', input_schema: { type: 'object' }, backend: { url, method } });
}

/** What undici was given before the gateway cut the origin off itself: the WHATWG parse of the filled URL. */
function parsedTarget(url: string): { origin: string; path: string } {
  const parsed = new URL(url);
  return { origin: parsed.origin, path: parsed.pathname + parsed.search };
}

function target(url: string, args: Record<string, unknown>, method: ToolConfig['backend']['method'] = 'GET') {
  const p = plan(url, method);
  const req = buildServiceRequest(p, args);
  return { req, target: serviceTarget(p, req.url) };
}

describe('service request target', () => {
  it('cuts the fixed origin off the filled URL', () => {
    const { target: t } = target('http://crm:8080/customers/{customer_id}', { customer_id: 'C/1 2', limit: 5 });
    assert.deepEqual(t, { origin: 'http://crm:8080', path: '/customers/C%2F1%202?limit=5' });
  });

  it('resolves a placeholder value of ".." or "." as the URL parser does', () => {
    assert.deepEqual(target('http://crm/a/{id}/b', { id: '..' }).target, { origin: 'http://crm', path: '/b' });
    assert.deepEqual(target('http://crm/a/{id}/b', { id: '.' }).target, { origin: 'http://crm', path: '/a/b' });
  });

  it('escapes a quote in the query as %27, as the URL parser does for http(s)', () => {
    assert.deepEqual(target('http://crm/search', { q: "O'Brien" }).target, { origin: 'http://crm', path: '/search?q=O%27Brien' });
  });

  it('leaves templates the URL parser would rewrite to the parser', () => {
    assert.equal(plan('http://CRM:80/a/{id}').fixedOrigin, undefined);
    assert.equal(plan('http://crm/a b/{id}').fixedOrigin, undefined);
    assert.equal(plan('http://crm/a%2e/{id}').fixedOrigin, undefined);
    assert.equal(plan('http://{host}/a').fixedOrigin, undefined);
    assert.equal(plan('http://crm').fixedOrigin, undefined);
    assert.deepEqual(target('http://CRM:80/a b/{id}', { id: 'x' }).target, { origin: 'http://crm', path: '/a%20b/x' });
    assert.deepEqual(target('http://{host}/a', { host: 'other' }).target, { origin: 'http://other', path: '/a' });
  });

  it('gives the target parsing the filled URL gives, for any arguments', () => {
    const templates = [
      'http://crm:8080/customers/{customer_id}',
      'http://127.0.0.1:9000/v1/{a}/items/{b}?source=agent',
      'https://api.example.com/{a}{b}/x',
      'http://[::1]:8080/{a}',
    ];
    const value = fc.oneof(
      fc.string(),
      fc.constantFrom('.', '..', '%2e', "'", '#', '?', '/', ' ', '\\'),
      fc.integer(),
      fc.boolean(),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
    );
    for (const template of templates) assert.notEqual(plan(template).fixedOrigin, undefined, template);
    fc.assert(fc.property(
      fc.constantFrom(...templates),
      fc.record({ customer_id: value, a: value, b: value }, { requiredKeys: [] }),
      fc.dictionary(fc.string({ minLength: 1 }), value, { maxKeys: 3 }),
      (template, placeholders, rest) => {
        const { req, target: t } = target(template, { ...rest, ...placeholders });
        assert.deepEqual(t, parsedTarget(req.url));
      },
    ), { numRuns: 2000 });
  });
});
