/**
 * A message about a service's response names only keys its output declares: a key the service chose (an
 * undeclared field, a key of an open map) is written `*`, since it can carry data (an email as a map key, a card
 * number as a field name). The message reaches the agent, the audit log and the dashboard.
 */
import * as assert from 'node:assert/strict';
import { compileResponseControls, type ResponseControlsConfig } from '../../src/response';
import { generateOutputSchema } from '../../src/schema';

function refusal(config: ResponseControlsConfig, body: unknown): string {
  const compiled = compileResponseControls(config, true);
  assert.ok('shaper' in compiled && compiled.shaper !== undefined);
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const outcome = compiled.shaper.shape(text, 'application/json', 1 << 20);
  assert.equal(outcome.ok, false, JSON.stringify(outcome));
  return (outcome as { message: string }).message;
}

const EMAIL = 'ada.lovelace@example.com';
const CARD = '4111111111111111';

describe('security: response messages never echo a key the output does not declare', () => {
  it('writes an open map key `*` (an email used as a key)', () => {
    const output = {
      type: 'object',
      properties: {
        contacts: { type: 'object', additionalProperties: { type: 'object', properties: { n: { type: 'integer' } } } },
      },
    };
    const message = refusal({ output_schema: output }, { contacts: { [EMAIL]: 'not an object' } });
    assert.equal(message, 'Service returned an invalid response: Invalid type for `contacts.*`: expected object');
    assert.ok(!message.includes(EMAIL));
    // inside the map's values, declared names are named again
    assert.equal(
      refusal({ output_schema: output }, { contacts: { [EMAIL]: { n: 'x' } } }),
      'Service returned an invalid response: Invalid type for `contacts.*.n`: expected integer',
    );
  });

  it('writes an undeclared field `*`: Unknown field at `*` (a card number as a field name)', () => {
    const output = generateOutputSchema({ id: { type: 'string', required: true } });
    const message = refusal({ output_schema: output }, { id: 'c1', [CARD]: 1 });
    assert.equal(message, 'Service returned an invalid response: Unknown field at `*`');
    const nested = generateOutputSchema({
      orders: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } },
    });
    assert.equal(
      refusal({ output_schema: nested }, { orders: [{ id: 'o1' }, { id: 'o2', [EMAIL]: true }] }),
      'Service returned an invalid response: Unknown field at `orders[1].*`',
    );
  });

  it('names declared keys that are not identifiers, through $ref and allOf, and never a hostile key', () => {
    const output = {
      type: 'object',
      $defs: {
        node: { type: 'object', properties: { 'child node': { $ref: '#/$defs/node' }, v: { type: 'integer' } } },
      },
      allOf: [{ properties: { root: { $ref: '#/$defs/node' } } }],
    };
    assert.equal(
      refusal({ output_schema: output }, { root: { 'child node': { v: 'x' } } }),
      'Service returned an invalid response: Invalid type for `root["child node"].v`: expected integer',
    );
    for (const key of ['a`b', 'x"]["y', '__proto__', 'constructor', `${'k'.repeat(100)}`, '\u2028', 'é"\\']) {
      const message = refusal(
        { output_schema: { type: 'object', additionalProperties: { type: 'integer' } } },
        JSON.parse(`{${JSON.stringify(key)}:"s"}`),
      );
      assert.equal(message, 'Service returned an invalid response: Invalid type for `*`: expected integer', key);
    }
  });

  it('writes keys `*` in a number JSON cannot carry, outside any declared output', () => {
    const message = refusal({ response: { redact_patterns: { card: 'x^' } } }, `{"${CARD}":{"${EMAIL}":[1,1e400]}}`);
    assert.equal(message, 'Service returned an invalid response: Invalid value for `*.*[1]`: expected a finite number');
  });
});
