import * as assert from 'node:assert/strict';
import { parsePath, parseRefusal } from '../../examples/support-desk/agent/refusal-message';
import { repairArguments } from '../../examples/support-desk/agent/repair-arguments';

const schema = {
  type: 'object',
  properties: {
    subject: { type: 'string', maxLength: 10 },
    body: { type: 'string' },
    priority: { type: 'integer', enum: [1, 2, 3] },
    limit: { type: 'integer', minimum: 1, maximum: 100 },
    customer: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        email: { type: 'string', format: 'email' },
        addresses: {
          type: 'array',
          items: { type: 'object', properties: { zip_code: { type: 'integer' } }, required: ['zip_code'] },
        },
      },
      required: ['name', 'email'],
    },
  },
  required: ['subject', 'body', 'customer'],
  additionalProperties: false,
};

describe('scripted agent: reading refusals', () => {
  it('splits a joined message into its violations and drops the (+N more) tail', () => {
    const text =
      'Missing required parameter: `body`; Invalid type for `customer.addresses[0].zip_code`: expected integer; ' +
      'Unknown parameter: `urgency`; Invalid value for `status`: expected one of "open", "closed" (+2 more)';
    assert.deepEqual(parseRefusal(text), [
      { kind: 'missing', path: 'body' },
      { kind: 'type', path: 'customer.addresses[0].zip_code', expected: 'integer' },
      { kind: 'unknown', path: 'urgency' },
      { kind: 'value', path: 'status', expected: 'one of "open", "closed"' },
    ]);
  });

  it('reads the JSON-RPC error form and conflicting parameters', () => {
    assert.deepEqual(parseRefusal('MCP error -32602: Conflicting parameters: `prompt` and `description`'), [
      { kind: 'conflict', parameter: 'prompt', alias: 'description' },
    ]);
  });

  it('finds nothing in a message that is not a validation refusal', () => {
    assert.deepEqual(parseRefusal('backend returned HTTP 500'), []);
  });

  it('splits refusal paths into keys and indices', () => {
    assert.deepEqual(parsePath('customer.addresses[2].zip_code'), ['customer', 'addresses', 2, 'zip_code']);
    assert.deepEqual(parsePath('["odd key"].x[0]'), ['odd key', 'x', 0]);
    assert.deepEqual(parsePath(''), []);
  });
});

describe('scripted agent: repairing arguments', () => {
  it('adds a missing field, converts a wrong type and drops an unknown one', () => {
    const args = {
      subject: 'Hi',
      customer: { name: 'Ada', email: 'a@b.c', addresses: [{ zip_code: '10115' }] },
      urgency: 'high',
    };
    const { args: fixed, notes } = repairArguments(
      args,
      parseRefusal(
        'Missing required parameter: `body`; Invalid type for `customer.addresses[0].zip_code`: expected integer; Unknown parameter: `urgency`',
      ),
      schema,
    );
    assert.deepEqual(fixed, {
      subject: 'Hi',
      customer: { name: 'Ada', email: 'a@b.c', addresses: [{ zip_code: 10115 }] },
      body: 'body (filled in by the agent)',
    });
    assert.deepEqual(notes, [
      'added `body` = "body (filled in by the agent)"',
      'converted `customer.addresses[0].zip_code` from "10115" to 10115 (integer)',
      'dropped `urgency`',
    ]);
    assert.deepEqual(args.customer.addresses[0], { zip_code: '10115' }, 'the input is not mutated');
  });

  it('derives a missing nested object from its schema', () => {
    const { args } = repairArguments(
      { subject: 's', body: 'b' },
      parseRefusal('Missing required parameter: `customer`'),
      schema,
    );
    assert.deepEqual(args.customer, { name: 'name (filled in by the agent)', email: 'email@example.com' });
  });

  it('brings enum, range and length violations into range', () => {
    const { args } = repairArguments(
      { priority: 7, limit: 500, subject: 'a much too long subject' },
      parseRefusal(
        'Invalid value for `priority`: expected one of 1, 2, 3; Invalid value for `limit`: expected <= 100; ' +
          'Invalid value for `subject`: expected at most 10 characters',
      ),
      schema,
    );
    assert.deepEqual(args, { priority: 1, limit: 100, subject: 'a much too' });
  });

  it('reports a pattern it cannot satisfy instead of guessing', () => {
    const { args, notes } = repairArguments(
      { code: 'x' },
      parseRefusal('Invalid value for `code`: expected to match pattern ^[A-Z]{3}$'),
      schema,
    );
    assert.deepEqual(args, { code: 'x' });
    assert.deepEqual(notes, ['could not repair `code` (expected to match pattern ^[A-Z]{3}$)']);
  });
});
