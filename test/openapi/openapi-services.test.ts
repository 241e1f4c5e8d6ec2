import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { Gateway, OpenApiServices, Secret, Service } from '../../constructs';
import { configOf, newStack, synth, thrown, warningsOf } from '../constructs/synth';
import { documentFile, OK, openapi30, TICKETS } from './fixtures';

const PREFIX = "OpenApiServices 'api': ";

function services(document: unknown, props: Record<string, unknown> = {}): OpenApiServices {
  return new OpenApiServices(newStack(), 'api', { document: documentFile(document), ...props });
}

function error(document: unknown, props: Record<string, unknown> = {}, format: 'yaml' | 'json' = 'yaml'): string {
  const file = documentFile(document, format);
  return thrown(() => new OpenApiServices(newStack(), 'api', { document: file, ...props })).message;
}

describe('OpenApiServices', () => {
  it('makes one service per operation: name, description with the call shape, endpoint from the first server', () => {
    const api = services(TICKETS);
    assert.equal(api.services.length, 1);
    const tool = api.services[0].toolConfig();
    assert.equal(tool.name, 'createTicket');
    assert.equal(
      tool.description,
      'Open a ticket\nOpens a support ticket for a customer.\n' +
        'contact: {email: string, phone?: string}, required unless marked ?; ' +
        'lines: array of {sku: string, qty: integer}, all required',
    );
    assert.deepEqual(tool.backend, {
      url: 'http://api.test:8080/v1/customers/{customerId}/tickets',
      method: 'POST',
      timeout_ms: 10000,
      query_params: ['notify', 'tags'],
    });
  });

  it('maps path and query parameters and a JSON body to closed top-level parameters (readOnly left out, example dropped)', () => {
    const schema = services(TICKETS).services[0].inputSchema;
    assert.deepEqual(schema, {
      type: 'object',
      properties: {
        customerId: { type: 'string', pattern: '^C-[0-9]{4}$' },
        notify: { type: 'boolean' },
        tags: { type: 'array', items: { type: 'string', maxLength: 16 } },
        title: { type: 'string', minLength: 3 },
        priority: { type: 'integer', minimum: 1, maximum: 5 },
        contact: {
          type: 'object',
          properties: { email: { type: 'string', format: 'email' }, phone: { type: 'string' } },
          required: ['email'],
          additionalProperties: false,
        },
        lines: {
          type: 'array',
          items: {
            type: 'object',
            properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } },
            required: ['sku', 'qty'],
            additionalProperties: false,
          },
        },
      },
      required: ['customerId', 'title', 'contact'],
      additionalProperties: false,
    });
  });

  it('synthesizes the same tool config as the hand-written Service with the same input (and its 2xx schema as output)', () => {
    const stack = newStack();
    const api = new OpenApiServices(stack, 'api', {
      document: documentFile(TICKETS, 'json'),
      baseUrl: 'http://crm:8080',
      overrides: { createTicket: { name: 'create_ticket', timeoutMs: 5000, description: 'Open a ticket' } },
    });
    new Gateway(stack, 'gw', { services: [...api.services], auth: 'none' });
    const [tool] = configOf(synth(stack), 'gw').tools;
    // the 201 response's Ticket schema, open as the document leaves it
    const output = tool.output_schema as Record<string, unknown>;
    assert.equal(output.type, 'object');
    assert.deepEqual(output.required, ['id', 'title']);
    assert.equal(output.additionalProperties, undefined);
    const byHand = new Service(newStack(), 'create_ticket', {
      outputSchema: output,
      description: 'Open a ticket',
      endpoint: {
        url: 'http://crm:8080/customers/{customerId}/tickets',
        method: 'POST',
        queryParams: ['notify', 'tags'],
      },
      timeoutMs: 5000,
      input: {
        customerId: { type: 'string', required: true, pattern: '^C-[0-9]{4}$' },
        notify: { type: 'boolean' },
        tags: { type: 'array', items: { type: 'string', maxLength: 16 } },
        title: { type: 'string', required: true, minLength: 3 },
        priority: { type: 'integer', minimum: 1, maximum: 5 },
        contact: {
          type: 'object',
          required: true,
          properties: { email: { type: 'string', required: true, format: 'email' }, phone: { type: 'string' } },
        },
        lines: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              sku: { type: 'string', required: true },
              qty: { type: 'integer', required: true, minimum: 1 },
            },
          },
        },
      },
    });
    assert.equal(JSON.stringify(tool), JSON.stringify(byHand.toolConfig()));
  });

  it('names an operation without operationId from its method and path, and accepts either name in operations', () => {
    const comic = { name: 'comicId', in: 'path', required: true, schema: { type: 'integer' } };
    const doc = openapi30({
      '/{comicId}/info.0.json': { get: { parameters: [comic], responses: OK } },
      '/other': { get: { responses: OK } },
    });
    assert.deepEqual(
      services(doc, { operations: ['GET /{comicId}/info.0.json'] }).services.map((s) => s.name),
      ['get_comicId_info_0_json'],
    );
    assert.deepEqual(
      services(doc, { operations: ['get_other'], baseUrl: 'http://x:1/' }).services.map(
        (s) => s.toolConfig().backend.url,
      ),
      ['http://x:1/other'],
    );
  });

  it('sends a JSON body that is not an object of properties as the parameter body', () => {
    const doc = openapi30({
      '/batch': {
        put: {
          operationId: 'putBatch',
          requestBody: {
            content: { 'application/vnd.api+json': { schema: { type: 'array', items: { type: 'integer' } } } },
          },
          responses: OK,
        },
      },
    });
    const tool = services(doc).services[0].toolConfig();
    assert.deepEqual(tool.input_schema, {
      type: 'object',
      properties: { body: { type: 'array', items: { type: 'integer' } } },
      additionalProperties: false,
    });
    assert.equal(tool.backend.body_param, 'body');
  });

  it('skips an operation with header or cookie parameters with a warning, unless headers send that header', () => {
    const doc = openapi30({
      '/a': {
        get: {
          operationId: 'withHeader',
          parameters: [{ name: 'X-Api-Key', in: 'header', required: true, schema: { type: 'string' } }],
          responses: OK,
        },
      },
      '/b': { get: { operationId: 'plain', responses: OK } },
    });
    const api = services(doc);
    assert.deepEqual(
      api.services.map((s) => s.name),
      ['plain'],
    );
    assert.deepEqual(warningsOf(api), [
      `${PREFIX}operation withHeader (GET /a) is skipped: header parameter \`X-Api-Key\` is not supported (only path and query parameters and a JSON body are)`,
    ]);
    const keyed = services(doc, { headers: { 'x-api-key': Secret.env('API_KEY') } });
    assert.deepEqual(
      keyed.services.map((s) => s.name),
      ['withHeader', 'plain'],
    );
    assert.deepEqual(warningsOf(keyed), []);
  });

  it('refuses a listed operation that cannot be served', () => {
    const doc = openapi30({
      '/a': {
        get: {
          operationId: 'withCookie',
          parameters: [{ name: 'session', in: 'cookie', schema: { type: 'string' } }],
          responses: OK,
        },
      },
    });
    assert.equal(
      error(doc, { operations: ['withCookie'] }),
      `${PREFIX}operation withCookie (GET /a) is listed in 'operations' but cannot be served: cookie parameter \`session\` is not supported (only path and query parameters and a JSON body are)`,
    );
  });

  describe('synthesis errors', () => {
    it('refuses Swagger 2.0 with a message saying to convert it', () => {
      const file = documentFile({ swagger: '2.0', info: { title: 't', version: '1' }, paths: {} });
      assert.equal(
        thrown(() => new OpenApiServices(newStack(), 'api', { document: file })).message,
        `${PREFIX}${file} is a Swagger 2.0 document; only OpenAPI 3.0 and 3.1 are supported: convert it first ` +
          `(e.g. \`npx swagger2openapi ${file} -o openapi.yaml\`, or the Swagger Editor's "Convert to OpenAPI 3")`,
      );
    });

    it('refuses a document without an openapi version, or with one YAML read as a number, saying what to write', () => {
      const missing = documentFile({ info: { title: 't', version: '1' }, paths: {} });
      assert.equal(
        thrown(() => new OpenApiServices(newStack(), 'api', { document: missing })).message,
        `${PREFIX}${missing}: no \`openapi\` version field; expected an OpenAPI 3.0.x or 3.1.x document, which ` +
          'starts with a line such as `openapi: 3.0.3`',
      );
      const number = documentFile({ openapi: 3.1, info: { title: 't', version: '1' }, paths: {} });
      assert.equal(
        thrown(() => new OpenApiServices(newStack(), 'api', { document: number })).message,
        `${PREFIX}${number}: openapi is the number 3.1 (YAML reads an unquoted 3.1 as a number); expected an ` +
          'OpenAPI 3.0.x or 3.1.x version as text, e.g. `openapi: "3.1.0"`',
      );
    });

    it('refuses a document that is not YAML at the line and column where reading it stopped', () => {
      const file = documentFile({});
      fs.writeFileSync(file, 'openapi: 3.0.3\ninfo: { title: x\npaths: {}\n');
      assert.equal(
        thrown(() => new OpenApiServices(newStack(), 'api', { document: file })).message,
        `${PREFIX}${file}:2:7: neither JSON nor YAML: this \`{\` is not closed: end the map with \`}\``,
      );
    });

    it('refuses a document whose aliases expand without bound (a "billion laughs"), before expanding them', () => {
      const file = documentFile({});
      const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
      for (let i = 1; i < 9; i++)
        levels.push(
          `l${i}: &l${i} [${Array(10)
            .fill(i === 1 ? '*a' : `*l${i - 1}`)
            .join(', ')}]`,
        );
      fs.writeFileSync(file, `openapi: 3.0.3\n${levels.join('\n')}\n`);
      assert.match(
        thrown(() => new OpenApiServices(newStack(), 'api', { document: file })).message,
        /is neither JSON nor YAML: Excessive alias count/,
      );
    });

    it('refuses a $ref to another file or a URL, naming its pointer, without fetching it', () => {
      const doc = openapi30({
        '/a': {
          get: {
            operationId: 'a',
            responses: {
              '200': {
                description: 'ok',
                content: { 'application/json': { schema: { $ref: 'http://127.0.0.1:1/schemas.json#/Pet' } } },
              },
            },
          },
        },
      });
      const file = documentFile(doc);
      assert.equal(
        thrown(() => new OpenApiServices(newStack(), 'api', { document: file })).message,
        `${PREFIX}${file}: #/paths/~1a/get/responses/200/content/application~1json/schema/$ref: ` +
          '$ref "http://127.0.0.1:1/schemas.json#/Pet" points outside the document; only local $refs (#/components/…) ' +
          'are supported and nothing is fetched at synthesis: bundle the document into one file (e.g. `npx @redocly/cli bundle`)',
      );
      const other = openapi30({
        '/a': {
          get: { operationId: 'a', parameters: [{ $ref: 'common.yaml#/components/parameters/id' }], responses: OK },
        },
      });
      assert.match(
        error(other),
        /: #\/paths\/~1a\/get\/parameters\/0\/\$ref: \$ref "common\.yaml#\/components\/parameters\/id" points outside the document/,
      );
    });

    it('refuses two operations whose names are the same after sanitizing', () => {
      const doc = openapi30({ '/a.b': { get: { responses: OK } }, '/a-b': { get: { responses: OK } } });
      assert.equal(
        error(doc),
        `${PREFIX}operations GET /a.b and GET /a-b both become the tool 'get_a_b': set overrides['GET /a-b'].name to another name`,
      );
    });

    it('refuses a body property that collides with a query parameter, naming both', () => {
      const doc = openapi30({
        '/search': {
          post: {
            operationId: 'search',
            parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }],
            requestBody: {
              content: {
                'application/json': {
                  schema: { type: 'object', properties: { q: { type: 'string' }, limit: { type: 'integer' } } },
                },
              },
            },
            responses: OK,
          },
        },
      });
      assert.equal(
        error(doc),
        `${PREFIX}operation search (POST /search): #/paths/~1search/post/requestBody/content/application~1json/schema/properties: ` +
          'body property `limit` collides with query parameter `limit`: both would be the tool parameter `limit`; rename one in the document ' +
          "(or, to expose the document's other operations without it, list them in 'operations')",
      );
    });

    it('refuses such an operation only when it is exposed: operations that leave it out are served', () => {
      const collides = {
        post: {
          operationId: 'search',
          parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }],
          requestBody: {
            content: { 'application/json': { schema: { type: 'object', properties: { limit: { type: 'integer' } } } } },
          },
          responses: OK,
        },
      };
      const getTicket = {
        get: {
          operationId: 'getTicket',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: OK,
        },
      };
      const doc = openapi30({ '/search': collides, '/tickets/{id}': getTicket });
      const api = services(doc, { operations: ['getTicket'] });
      assert.deepEqual(
        api.services.map((s) => s.name),
        ['getTicket'],
      );
      assert.deepEqual(api.skippedOperations, []);
      assert.equal(
        error(doc, { operations: ['getTicket', 'search'] }),
        `${PREFIX}operation search (POST /search): #/paths/~1search/post/requestBody/content/application~1json/schema/properties: ` +
          'body property `limit` collides with query parameter `limit`: both would be the tool parameter `limit`; rename one in the document',
      );
    });

    it('refuses a pattern the linear-time engine cannot run, naming the operation and the pointer', () => {
      const doc = openapi30(
        {
          '/users': {
            post: {
              operationId: 'createUser',
              requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/User' } } } },
              responses: OK,
            },
          },
        },
        {
          schemas: {
            User: { type: 'object', properties: { password: { type: 'string', pattern: '^(?=.*[0-9]).{8,}$' } } },
          },
        },
      );
      assert.match(
        error(doc),
        new RegExp(
          `^${PREFIX}operation createUser \\(POST /users\\): #/components/schemas/User/properties/password/pattern: ` +
            'pattern "\\^\\(\\?=\\.\\*\\[0-9\\]\\)\\.\\{8,\\}\\$" .*lookahead',
        ),
      );
    });

    it('refuses a tool name that breaks the tool-name rule, saying to override it', () => {
      const doc = openapi30({ '/a': { get: { operationId: 'find pet', responses: OK } } });
      assert.equal(
        error(doc),
        `${PREFIX}operation find pet (GET /a): the tool name 'find pet' breaks the tool-name rule ` +
          "(1-64 letters, digits, '_', '.' or '-' (^[A-Za-z0-9_.-]{1,64}$)); set overrides['find pet'].name to a valid tool name",
      );
      assert.equal(services(doc, { overrides: { 'find pet': { name: 'find_pet' } } }).services[0].name, 'find_pet');
    });

    it('refuses a relative server URL without baseUrl, an unknown operation and an unknown override', () => {
      const doc = {
        ...(openapi30({ '/a': { get: { operationId: 'a', responses: OK } } }) as object),
        servers: [{ url: '/v1' }],
      };
      assert.equal(
        error(doc),
        `${PREFIX}the document's first server '/v1' is not an absolute http:// or https:// URL: set 'baseUrl' to where the API is served (e.g. 'http://crm:8080')`,
      );
      assert.equal(
        error(doc, { baseUrl: 'http://a:1', operations: ['b'] }),
        `${PREFIX}'operations' lists 'b', which is no operation of the document (operations: 'a')`,
      );
      assert.equal(
        error(doc, { baseUrl: 'http://a:1', overrides: { b: { name: 'x' } } }),
        `${PREFIX}overrides['b'] names no exposed operation: use an operationId (or "METHOD /path") listed in the document`,
      );
    });

    it('refuses a document the parser finds invalid, with its findings', () => {
      const doc = { openapi: '3.0.3', info: { title: 't' }, paths: {} };
      assert.match(
        error(doc, {}, 'json'),
        /^OpenApiServices 'api': .*doc-\d+\.json is not a valid OpenAPI 3\.0 document: .*version/,
      );
    });
  });
});
