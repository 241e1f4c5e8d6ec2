/** OpenAPI documents for the tests, written to a temp dir as JSON or YAML files. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { tempDir } from '../helpers/temp-dir';

const dir = tempDir('openapi-test-');
let n = 0;

/** Writes `document` to a fresh file (`.yaml` or `.json`) and returns its path. */
export function documentFile(document: unknown, format: 'yaml' | 'json' = 'yaml'): string {
  const file = path.join(dir, `doc-${++n}.${format}`);
  fs.writeFileSync(file, format === 'yaml' ? stringify(document) : JSON.stringify(document, null, 2));
  return file;
}

/** A minimal OpenAPI 3.0 document with these paths (and components). */
export function openapi30(paths: Record<string, unknown>, components: Record<string, unknown> = {}): unknown {
  return {
    openapi: '3.0.3',
    info: { title: 'test', version: '1.0.0' },
    servers: [{ url: 'http://api.test:8080/v1' }],
    paths,
    ...(Object.keys(components).length > 0 ? { components } : {}),
  };
}

/** An operation answering 200 with no body. */
export const OK = { '200': { description: 'ok' } };

/**
 * The tickets API of the wire test: a path parameter, query parameters (an array among them) on a POST, and a JSON
 * body with nested required fields; a 201 response with a declared object.
 */
export const TICKETS = openapi30(
  {
    '/customers/{customerId}/tickets': {
      post: {
        operationId: 'createTicket',
        summary: 'Open a ticket',
        description: 'Opens a support ticket for a customer.',
        parameters: [
          { name: 'customerId', in: 'path', required: true, schema: { type: 'string', pattern: '^C-[0-9]{4}$' } },
          { name: 'notify', in: 'query', schema: { type: 'boolean' } },
          { name: 'tags', in: 'query', schema: { type: 'array', items: { type: 'string', maxLength: 16 } } },
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/NewTicket' } } },
        },
        responses: {
          '201': {
            description: 'created',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Ticket' } } },
          },
        },
      },
    },
  },
  {
    schemas: {
      NewTicket: {
        type: 'object',
        required: ['title', 'contact'],
        properties: {
          title: { type: 'string', minLength: 3, example: 'Printer on fire' },
          priority: { type: 'integer', minimum: 1, maximum: 5 },
          contact: {
            type: 'object',
            required: ['email'],
            properties: { email: { type: 'string', format: 'email' }, phone: { type: 'string' } },
          },
          lines: {
            type: 'array',
            items: {
              type: 'object',
              required: ['sku', 'qty'],
              properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } },
            },
          },
          id: { type: 'string', readOnly: true },
        },
      },
      Ticket: {
        type: 'object',
        required: ['id', 'title'],
        properties: {
          id: { type: 'string' },
          title: { type: 'string' },
          priority: { type: 'integer', nullable: true },
          secret: { type: 'string', writeOnly: true },
        },
      },
    },
  },
);
