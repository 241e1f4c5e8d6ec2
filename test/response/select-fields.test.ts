import * as assert from 'node:assert/strict';
import { fieldSelector } from '../../src/response';
import { generateOutputSchema } from '../../src/schema';

const OUTPUT = generateOutputSchema({
  id: { type: 'string' },
  email: { type: 'string' },
  orders: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } },
});

describe('response controls: field selection', () => {
  it('reads only own keys: an enumerable key on Object.prototype is neither kept nor counted', () => {
    Object.defineProperty(Object.prototype, 'email', {
      value: 'leak',
      enumerable: true,
      configurable: true,
      writable: true,
    });
    try {
      const selected = fieldSelector(OUTPUT).select({ id: 'c1', secret: 's', orders: [{ id: 'o1', card: 'x' }] });
      assert.deepEqual(Object.keys(selected.value as object), ['id', 'orders']);
      assert.ok(!Object.prototype.hasOwnProperty.call(selected.value, 'email'), 'an inherited key was copied');
      assert.equal(selected.dropped, 2);
    } finally {
      delete (Object.prototype as Record<string, unknown>).email;
    }
  });

  it('keeps the order of the kept keys, and a `__proto__` key the body holds is an own key, dropped when undeclared', () => {
    const body = JSON.parse('{"orders":[],"__proto__":{"id":"p"},"id":"c1","email":"e"}') as unknown;
    const selected = fieldSelector(OUTPUT).select(body);
    assert.equal(JSON.stringify(selected.value), '{"orders":[],"id":"c1","email":"e"}');
    assert.equal(selected.dropped, 1);
    // A raw output schema may declare the key (the input language reserves the name).
    const declared = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"object","properties":{"id":{"type":"string"}}}}}',
    ) as Record<string, unknown>;
    const kept = fieldSelector(declared).select(JSON.parse('{"x":1,"__proto__":{"id":"p","y":2}}') as unknown);
    assert.equal(JSON.stringify(kept.value), '{"__proto__":{"id":"p"}}');
    assert.equal(Object.getPrototypeOf(kept.value), Object.prototype);
  });

  it('returns a conforming response as it is, and shares every part that lost nothing', () => {
    const order = { id: 'o1' };
    const body = { id: 'c1', orders: [order], note: 'x' };
    const selected = fieldSelector(OUTPUT).select(body).value as typeof body;
    assert.notEqual(selected, body);
    assert.equal(selected.orders, body.orders);
    const conforming = { id: 'c1', orders: [order] };
    assert.equal(fieldSelector(OUTPUT).select(conforming).value, conforming);
  });
});
