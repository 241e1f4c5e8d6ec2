import * as assert from 'node:assert/strict';
import { toolDescription } from '../../src/schema';

describe('toolDescription', () => {
  it('ends with the call shape when every nested field is required', () => {
    const text = toolDescription('Apply edits', {
      steps: {
        type: 'array',
        required: true,
        items: {
          type: 'object',
          properties: {
            file: { type: 'string', required: true },
            line: { type: 'integer', required: true },
            text: { type: 'string', required: true },
          },
        },
      },
    });
    assert.equal(text, 'Apply edits\nsteps: array of {file: string, line: integer, text: string}, all required');
  });

  it('marks optional fields with ? when required and optional fields are mixed', () => {
    const text = toolDescription('Create a ticket', {
      subject: { type: 'string', required: true },
      customer: {
        type: 'object',
        required: true,
        properties: {
          name: { type: 'string', required: true },
          email: { type: 'string', required: true },
          addresses: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                street: { type: 'string', required: true },
                zip_code: { type: 'integer', required: true },
              },
            },
          },
        },
      },
    });
    assert.equal(
      text,
      'Create a ticket\ncustomer: {name: string, email: string, addresses?: array of {street: string, zip_code: integer}}, required unless marked ?',
    );
  });

  it('joins several parameters with "; "', () => {
    const text = toolDescription('d', {
      a: { type: 'object', properties: { x: { type: 'boolean', required: true } } },
      b: {
        type: 'array',
        items: {
          type: 'array',
          items: { type: 'object', properties: { y: { type: 'number', required: true }, m: { type: 'object' } } },
        },
      },
    });
    assert.equal(
      text,
      'd\na: {x: boolean}, all required; b: array of array of {y: number, m?: object}, required unless marked ?',
    );
  });

  it('leaves the description alone without nested required fields', () => {
    assert.equal(
      toolDescription('Look up a customer', { customer_id: { type: 'string', required: true } }),
      'Look up a customer',
    );
    assert.equal(
      toolDescription('Update', {
        settings: { type: 'object' },
        opts: { type: 'object', properties: { a: { type: 'string' } } },
      }),
      'Update',
    );
    assert.equal(toolDescription('Health', undefined), 'Health');
  });

  it('is only the call shape for an empty description', () => {
    assert.equal(
      toolDescription('', { o: { type: 'object', properties: { k: { type: 'string', required: true } } } }),
      'o: {k: string}, all required',
    );
  });
});
