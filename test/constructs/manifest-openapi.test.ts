/**
 * The manifest's `openapi:` map, the twin of `OpenApiServices`: documents relative to the manifest, gateways
 * naming the generated tools, the same synthesized output as the TypeScript form, errors at file:line:col.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TerraformVariable } from 'cdktf';
import { Gateway, Manifest, OpenApiServices, Secret, Service } from '../../constructs';
import { stringify } from 'yaml';
import { configOf, hashOf, newStack, synth, thrown } from './synth';
import { openapi30, TICKETS } from '../openapi/fixtures';

const SHA = hashOf('crm-token');

const HEALTH = openapi30({
  '/health': { get: { operationId: 'health', summary: 'Is the CRM up', responses: { '200': { description: 'ok' } } } },
});

describe('manifest openapi entries', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifest-openapi-'));
    fs.mkdirSync(path.join(dir, 'apis'));
    // the documents sit beside the manifest: `document` is relative to it, not to the working directory
    fs.writeFileSync(path.join(dir, 'apis', 'tickets.yaml'), stringify(TICKETS));
    fs.writeFileSync(path.join(dir, 'apis', 'health.json'), JSON.stringify(HEALTH));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  function manifest(text: string, name = 'crm.yaml'): string {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  }

  const YAML = `services:
  lookup:
    description: Look up a customer
    endpoint: { url: "http://crm:8080/customers/{id}", method: GET }
    input: { id: { type: string, required: true } }
openapi:
  crm:
    document: apis/tickets.yaml
    base_url: http://crm:8080
    operations: [createTicket]
    headers: { Authorization: { secret: CRM_TOKEN }, X-Team: support }
    overrides:
      createTicket:
        name: create_ticket
        timeout_ms: 5000
        required_scopes: [tickets:write]
        response: { fields: declared, redact: [title] }
    container: { image: "acme/crm:1.4", port: 8080 }
  status:
    document: apis/health.json
gateways:
  support:
    services: [lookup, create_ticket, health]
    auth: { tokens: [{ id: bot, sha256: "${SHA}" }] }
`;

  it('needs no `services` map when the tools come from openapi entries alone', () => {
    const openapiOnly = YAML.slice(YAML.indexOf('openapi:')).replace(
      '[lookup, create_ticket, health]',
      '[create_ticket, health]',
    );
    const built = new Manifest(newStack(), 'manifest', { path: manifest(openapiOnly, 'only.yaml') });
    assert.deepEqual([...built.gateways.keys()], ['support']);
    const empty = thrown(() => new Manifest(newStack(), 'manifest', { path: manifest('gateways: {}\n', 'none.yaml') }));
    assert.equal(
      empty.message,
      `${path.join(dir, 'none.yaml')}:1:1: expected a map with \`gateways\` and the tools they serve, under \`services\` or \`openapi\``,
    );
  });

  /** The same stack in TypeScript. */
  function typescript(): ReturnType<typeof newStack> {
    const stack = newStack('crm');
    const lookup = new Service(stack, 'lookup', {
      description: 'Look up a customer',
      endpoint: { url: 'http://crm:8080/customers/{id}', method: 'GET' },
      input: { id: { type: 'string', required: true } },
    });
    const crm = new OpenApiServices(stack, 'crm', {
      document: path.join(dir, 'apis', 'tickets.yaml'),
      baseUrl: 'http://crm:8080',
      operations: ['createTicket'],
      headers: { Authorization: Secret.env('CRM_TOKEN'), 'X-Team': 'support' },
      overrides: {
        createTicket: {
          name: 'create_ticket',
          timeoutMs: 5000,
          requiredScopes: ['tickets:write'],
          response: { fields: 'declared', redact: ['title'] },
        },
      },
      container: { image: 'acme/crm:1.4', port: 8080 },
    });
    const status = new OpenApiServices(stack, 'status', { document: path.join(dir, 'apis', 'health.json') });
    const token = new TerraformVariable(stack, 'secret-CRM_TOKEN', {
      type: 'string',
      sensitive: true,
      description: 'Secret CRM_TOKEN for the MCP gateways',
    });
    token.overrideLogicalId('CRM_TOKEN');
    new Gateway(stack, 'support', {
      services: [lookup, ...crm.services, ...status.services],
      auth: { tokens: [{ id: 'bot', sha256: SHA }] },
      secrets: { CRM_TOKEN: token.stringValue },
    });
    return stack;
  }

  it('synthesize the same output as OpenApiServices in TypeScript: addresses, variables, configs', () => {
    const stack = newStack('crm');
    const m = new Manifest(stack, 'manifest', { path: manifest(YAML) });
    const json = synth(stack);
    assert.deepEqual(json, synth(typescript()));
    assert.deepEqual([...m.openapi.keys()], ['crm', 'status']);
    assert.deepEqual([...m.services.keys()], ['lookup', 'create_ticket', 'health']);
    const config = configOf(json, 'support');
    assert.deepEqual(
      config.tools.map((t) => [t.name, t.backend.method, t.backend.url]),
      [
        ['lookup', 'GET', 'http://crm:8080/customers/{id}'],
        ['create_ticket', 'POST', 'http://crm:8080/customers/{customerId}/tickets'],
        ['health', 'GET', 'http://api.test:8080/v1/health'],
      ],
    );
    const createTicket = config.tools[1];
    assert.equal(createTicket.backend.timeout_ms, 5000);
    assert.deepEqual(createTicket.response, { fields: 'declared', redact: ['title'] });
    assert.deepEqual(createTicket.output_schema?.required, ['id', 'title']);
  });

  it('refuse a gateway naming a tool no entry generates, at the list item', () => {
    const text = YAML.replace('[lookup, create_ticket, health]', '[lookup, get_ticket]');
    assert.equal(
      thrown(() => new Manifest(newStack(), 'manifest', { path: manifest(text, 'unknown.yaml') })).message,
      `${path.join(dir, 'unknown.yaml')}:23:24: gateways.support.services[1]: unknown service \`get_ticket\` ` +
        '(declared services and generated tools: lookup, create_ticket, health)',
    );
  });

  it('refuse a generated tool named like a declared service, at the entry', () => {
    const text = YAML.replace('name: create_ticket', 'name: lookup');
    assert.equal(
      thrown(() => new Manifest(newStack(), 'manifest', { path: manifest(text, 'clash.yaml') })).message,
      `${path.join(dir, 'clash.yaml')}:7:3: openapi.crm: the operation's tool \`lookup\` is also declared as ` +
        'services.lookup: a gateway lists tools by name, so each needs its own; rename one (overrides.<operation>.name)',
    );
  });

  it("say the document's own problems at the entry, and check the keys against the schema", () => {
    const missing = YAML.replace('apis/health.json', 'apis/nope.json');
    assert.match(
      thrown(() => new Manifest(newStack(), 'manifest', { path: manifest(missing, 'missing.yaml') })).message,
      new RegExp(
        `^${escape(path.join(dir, 'missing.yaml'))}:19:3: openapi.status: OpenApiServices 'status': .*nope\\.json`,
      ),
    );
    const unknownOperation = YAML.replace('[createTicket]', '[createTickets]');
    assert.match(
      thrown(() => new Manifest(newStack(), 'manifest', { path: manifest(unknownOperation, 'op.yaml') })).message,
      /op\.yaml:10:17: openapi\.crm: OpenApiServices 'crm': .*createTickets/,
    );
    const badKey = YAML.replace('base_url:', 'baseUrl:');
    assert.equal(
      thrown(() => new Manifest(newStack(), 'manifest', { path: manifest(badKey, 'key.yaml') })).message,
      `${path.join(dir, 'key.yaml')}:9:5: openapi.crm.baseUrl: unknown key \`baseUrl\`, did you mean \`base_url\`? (expected one of: document, ` +
        'base_url, operations, headers, overrides, container)',
    );
    const badOverride = YAML.replace('timeout_ms: 5000', 'timeout_ms: soon');
    assert.equal(
      thrown(() => new Manifest(newStack(), 'manifest', { path: manifest(badOverride, 'override.yaml') })).message,
      `${path.join(dir, 'override.yaml')}:15:21: openapi.crm.overrides.createTicket.timeout_ms: expected an integer between 1 and 600000 (milliseconds)`,
    );
    const badSecret = YAML.replace('secret: CRM_TOKEN', 'secret: crm token');
    assert.match(
      thrown(() => new Manifest(newStack(), 'manifest', { path: manifest(badSecret, 'secret.yaml') })).message,
      /secret\.yaml:11:41: openapi\.crm\.headers\.Authorization\.secret: /,
    );
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
