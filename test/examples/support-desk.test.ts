import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Testing, TerraformStack } from 'cdktf';
import { DockerProvider } from '@cdktf/provider-docker/lib/provider';
import { Manifest } from '../../constructs';
import { SupportDeskStack } from '../../examples/support-desk/main';
import { configOf, gatewayContainer, hashOf, Json, resourcesOf, synth } from '../constructs/synth';
import { DOCKER_HANDOFF_KEY } from '../../src/config';
import { startSupportDeskBackend, type RunningSupportDeskBackend } from '../../examples/support-desk/backend';
import { startInProcessGateway, type InProcessGateway } from '../helpers/in-process-gateway';
import { openSession, type McpSession } from '../helpers/mcp';
import { withBackendOrigin } from '../helpers/config';

const EXAMPLE_DIR = path.join(__dirname, '..', '..', 'examples', 'support-desk');
/** The backend's origin in the example's tool URLs (its Docker network alias). */
const API = 'http://support-desk-api:8080';

/** Run `fn` with the example's environment variables unset (their fallbacks apply). */
function withoutEnv<T>(fn: () => T): T {
  const names = ['AGENTS_TOKEN_SHA256', 'LEGACY_TOKEN_SHA256', 'SUPPORT_DESK_API_IMAGE', 'BASE_IMAGE'];
  const saved = names.map((n) => [n, process.env[n]] as const);
  names.forEach((n) => delete process.env[n]);
  try {
    return fn();
  } finally {
    for (const [n, v] of saved) if (v !== undefined) process.env[n] = v;
  }
}

function synthExample(): Json {
  return withoutEnv(() => synth(new SupportDeskStack(Testing.app(), 'support-desk')));
}

function synthManifest(): Json {
  const stack = new TerraformStack(Testing.app(), 'support-desk');
  new DockerProvider(stack, 'docker', {});
  new Manifest(stack, 'support-desk', { path: path.join(EXAMPLE_DIR, 'support-desk.yaml') });
  return synth(stack);
}

/** A resource's Docker `name`; a config hand-over's, the one-shot container it runs. */
function nameOf(body: Json): string {
  return body.name ?? body['//']?.[DOCKER_HANDOFF_KEY]?.container;
}

/** `value` with every reference to a resource of `json` rewritten to name the resource's Docker `name`. */
function byDockerNames(json: Json, value: unknown): Json {
  const names = new Map<string, string>();
  for (const [type, resources] of Object.entries<Json>(json.resource)) {
    for (const [id, body] of Object.entries<Json>(resources)) names.set(`${type}.${id}`, `${type}.${nameOf(body)}`);
  }
  const text = JSON.stringify(value)
    .replace(/\$\{((?:docker_[a-z]+|terraform_data)\.[^.}]+)\./g, (_, ref: string) => `\${${names.get(ref) ?? ref}.`)
    // depends_on names a resource without an interpolation
    .replace(/"((?:docker_[a-z]+|terraform_data)\.[^".]+)"/g, (whole, ref: string) =>
      names.has(ref) ? `"${names.get(ref)}"` : whole,
    );
  return JSON.parse(text);
}

/**
 * The resources keyed by type and then by their Docker `name`, with references to other resources rewritten
 * the same way: two stacks built through different construct trees compare by what they deploy.
 */
function byDockerName(json: Json): Json {
  const out: Json = {};
  for (const [type, resources] of Object.entries<Json>(byDockerNames(json, json.resource))) {
    out[type] = Object.fromEntries(Object.values<Json>(resources).map((body) => [nameOf(body), body]));
  }
  return out;
}

describe('the support-desk example', () => {
  let json: Json;
  before(() => {
    json = synthExample();
  });

  it('synthesizes two gateways with their config containers, the audit dashboard, the backend container, one network, the gateway image build and the backend image build', () => {
    assert.deepEqual(
      resourcesOf(json, 'docker_container')
        .map((c: Json) => c.name.replace(/-config-[0-9a-f]{12}$/, '-config-HASH'))
        .sort(),
      ['support-desk-agents', 'support-desk-audit', 'support-desk-get_customer', 'support-desk-legacy'],
    );
    assert.deepEqual(
      resourcesOf(json, 'terraform_data').map((d: Json) => nameOf(d).replace(/-config-[0-9a-f]{12}$/, '-config-HASH')),
      ['support-desk-agents-config-HASH', 'support-desk-legacy-config-HASH'],
    );
    assert.deepEqual(resourcesOf(json, 'docker_network'), [{ name: 'support-desk-mcp' }]);
    // each image is tagged with the first 12 hex digits of its build context's hash
    assert.deepEqual(
      resourcesOf(json, 'docker_image')
        .map((i: Json) =>
          i.name.replace(new RegExp(`${path.basename(i.build.context).slice(0, 12).toLowerCase()}$`), 'HASH'),
        )
        .sort(),
      ['cdktf-mcp-gateway-support-desk:node-22-bookworm-slim-HASH', 'support-desk-support-desk-api:HASH'],
    );
    assert.equal(json.terraform.required_providers.docker.version, '~> 4.6');
    assert.deepEqual(Object.keys(json.output).sort(), [
      'dashboard_audit_url',
      'gateway_agents_config',
      'gateway_agents_url',
      'gateway_legacy_config',
      'gateway_legacy_url',
    ]);
  });

  it('exposes all seven tools, validated, on agents (port 8080)', () => {
    const config = configOf(json, 'agents');
    assert.deepEqual(
      config.tools.map((t) => t.name),
      ['get_customer', 'search_tickets', 'create_ticket', 'health', 'update_settings', 'create_task', 'get_ticket'],
    );
    assert.equal(config.gateway.validate_input, true);
    assert.equal(config.gateway.validation_errors, 'auto');
    assert.deepEqual(config.gateway.auth, {
      tokens: [{ id: 'support-agents', sha256: hashOf('support-desk-agents-dev-token') }],
    });
    assert.deepEqual(gatewayContainer(json, 'agents').ports, [{ external: 8080, internal: 8080 }]);
  });

  it('exposes three tools, unvalidated, on legacy (port 8081)', () => {
    const config = configOf(json, 'legacy');
    assert.deepEqual(
      config.tools.map((t) => t.name),
      ['get_customer', 'search_tickets', 'create_ticket'],
    );
    assert.equal(config.gateway.validate_input, false);
    assert.deepEqual(config.gateway.auth, {
      tokens: [{ id: 'legacy-bot', sha256: hashOf('support-desk-legacy-dev-token') }],
    });
    assert.deepEqual(gatewayContainer(json, 'legacy').ports, [{ external: 8081, internal: 8080 }]);
  });

  it('declares the table of the shared context: methods, paths and the create_task alias', () => {
    const tools = Object.fromEntries(configOf(json, 'agents').tools.map((t) => [t.name, t]));
    assert.deepEqual(
      Object.values(tools).map((t) => `${t.backend.method} ${t.backend.url}`),
      [
        'GET http://support-desk-api:8080/customers/{customer_id}',
        'GET http://support-desk-api:8080/tickets',
        'POST http://support-desk-api:8080/tickets',
        'GET http://support-desk-api:8080/health',
        'PUT http://support-desk-api:8080/settings/{team}',
        'POST http://support-desk-api:8080/tasks',
        'GET http://support-desk-api:8080/tickets/{id}',
      ],
    );
    assert.deepEqual(tools.create_task.aliases, { description: 'prompt' });
    assert.deepEqual(tools.create_task.forward_as, { prompt: 'description' });
    assert.deepEqual(tools.health.input_schema.properties, {});
    assert.deepEqual(tools.create_ticket.input_schema.required, ['subject', 'body', 'customer']);
  });

  it('declares the constraints of the shared context table', () => {
    const schemas = Object.fromEntries(configOf(json, 'agents').tools.map((t) => [t.name, t.input_schema as Json]));
    assert.equal(schemas.get_customer.properties.customer_id.pattern, '^C-[0-9]{4}$');
    assert.deepEqual(schemas.get_customer.required, ['customer_id']);
    const search = schemas.search_tickets.properties;
    assert.deepEqual(
      [search.query.maxLength, search.status.enum, search.priority.enum, search.limit.minimum, search.limit.maximum],
      [200, ['open', 'pending', 'closed'], [1, 2, 3], 1, 100],
    );
    assert.equal(search.created_after.format, 'date-time');
    assert.equal(schemas.search_tickets.required, undefined); // every filter is optional
    const customer = schemas.create_ticket.properties.customer;
    assert.deepEqual(customer.required, ['name', 'email']);
    assert.equal(customer.properties.email.format, 'email');
    assert.equal(customer.properties.addresses.maxItems, 5);
    assert.deepEqual(customer.properties.addresses.items.required, ['street', 'city', 'zip_code']);
    assert.equal(customer.properties.addresses.items.properties.zip_code.type, 'integer');
    const tags = schemas.create_ticket.properties.tags;
    assert.deepEqual([tags.items.maxLength, tags.uniqueItems, tags.maxItems], [32, true, 10]);
    assert.deepEqual(schemas.update_settings.properties.settings, {
      type: 'object',
      description: 'Setting name to value',
    });
    assert.deepEqual(schemas.create_task.required, ['title', 'prompt']);
    assert.equal(schemas.create_task.properties.due.format, 'date');
  });

  it('declares the output of get_customer and redacts its email', () => {
    const tools = Object.fromEntries(configOf(json, 'agents').tools.map((t) => [t.name, t]));
    const output = tools.get_customer.output_schema as Json;
    assert.deepEqual(output.required, ['customer_id', 'name', 'email', 'plan']);
    assert.equal(output.additionalProperties, false);
    assert.deepEqual(output.properties.addresses.items.required, ['street', 'city', 'zip_code']);
    assert.deepEqual(tools.get_customer.response, { redact: ['email'] });
    assert.equal(configOf(json, 'agents').gateway.validate_output, undefined); // the default: on
  });

  it('generates get_ticket from the OpenAPI document: input from its parameter, output from its 200 schema', () => {
    const ticket = configOf(json, 'agents').tools.find((t) => t.name === 'get_ticket')!;
    assert.equal(ticket.description, 'Read one support ticket');
    assert.deepEqual(ticket.input_schema, {
      type: 'object',
      properties: { id: { type: 'string', pattern: '^T-[0-9]{4}$', description: 'Ticket id, e.g. T-0001' } },
      required: ['id'],
      additionalProperties: false,
    });
    assert.deepEqual((ticket.output_schema as Json).required, ['id', 'subject', 'status', 'priority']);
  });

  it('runs the backend under the network alias support-desk-api, on the port its endpoints use', () => {
    const backend = resourcesOf(json, 'docker_container').find((c: Json) => c.name === 'support-desk-get_customer');
    assert.deepEqual(backend.networks_advanced[0].aliases, ['support-desk-api']);
    assert.deepEqual(backend.env, ['PORT=8080']);
  });

  it('takes the token hashes from the environment when set', () => {
    const sha256 = hashOf('a real token');
    process.env.AGENTS_TOKEN_SHA256 = sha256;
    try {
      const stack = new SupportDeskStack(Testing.app(), 'support-desk');
      assert.deepEqual(stack.supportDesk.agents.config().gateway.auth, { tokens: [{ id: 'support-agents', sha256 }] });
    } finally {
      delete process.env.AGENTS_TOKEN_SHA256;
    }
  });

  it('builds the backend image from examples/support-desk/backend, under a new tag when its content changes', () => {
    const image = resourcesOf(json, 'docker_image').find((i: Json) =>
      i.name.startsWith('support-desk-support-desk-api:'),
    );
    assert.match(image.build.context, /^assets\/.+\/[0-9A-F]{32,}$/);
    assert.equal(
      image.name,
      `support-desk-support-desk-api:${path.basename(image.build.context).slice(0, 12).toLowerCase()}`,
    );
    assert.equal(image.build.dockerfile, 'Dockerfile');
    assert.equal(image.triggers, undefined);
    assert.equal(image.keep_locally, false);
    assert.deepEqual(image.lifecycle, { create_before_destroy: true });
    const container = resourcesOf(json, 'docker_container').find((c: Json) => c.name === 'support-desk-get_customer');
    assert.match(container.image, /^\$\{docker_image\..*\.image_id\}$/);
  });

  it('has a YAML twin that synthesizes the same resources and outputs', () => {
    const manifest = synthManifest();
    assert.deepEqual(byDockerName(manifest), byDockerName(json));
    assert.deepEqual(byDockerNames(manifest, manifest.output), byDockerNames(json, json.output));
  });

  it('writes the image build context into the synthesized output, with its production node_modules and without tests', () => {
    const outdir = withoutEnv(() => Testing.fullSynth(new SupportDeskStack(Testing.app(), 'support-desk')));
    try {
      const stackDir = path.join(outdir, 'stacks', 'support-desk');
      const synthesized = JSON.parse(fs.readFileSync(path.join(stackDir, 'cdk.tf.json'), 'utf8'));
      const image = resourcesOf(synthesized, 'docker_image').find((i: Json) => i.name.startsWith('cdktf-mcp-gateway-'));
      const context = path.join(stackDir, image.build.context);
      const entries = fs.readdirSync(context);
      assert.ok(entries.includes('Dockerfile'), `no Dockerfile in ${entries.join(', ')}`);
      // the production dependencies travel with the context (the image build needs no network); dev tools do not
      assert.ok(entries.includes('node_modules'), `no node_modules in ${entries.join(', ')}`);
      const modules = fs.readdirSync(path.join(context, 'node_modules'));
      for (const dep of ['ajv', 'yaml', 'undici'])
        assert.ok(modules.includes(dep), `no ${dep} in ${modules.join(', ')}`);
      for (const dev of ['cdktf', 'typescript', 'mocha', 'express', 'fastmcp', 'zod']) {
        assert.equal(modules.includes(dev), false, `${dev} in the image context`);
      }
      assert.equal(entries.includes('test'), false);
    } finally {
      fs.rmSync(outdir, { recursive: true, force: true });
    }
  });
});

describe('the support-desk example over the wire: no tool hands an agent a customer email', () => {
  let backend: RunningSupportDeskBackend;
  let gateway: InProcessGateway;
  let session: McpSession;

  before(async () => {
    backend = await startSupportDeskBackend({ port: 0 });
    const config = withBackendOrigin(configOf(synthExample(), 'agents'), API, backend.url);
    gateway = await startInProcessGateway({ ...config, gateway: { ...config.gateway, auth: 'none' } });
    session = await openSession(gateway.url);
  });

  after(async () => {
    await gateway?.close();
    await backend?.close();
  });

  /** The result of a call that must succeed, as the agent gets it (text and structured content). */
  async function call(name: string, args: Record<string, unknown>): Promise<string> {
    const res = await session.callTool(name, args);
    assert.equal(res.message?.result?.isError, undefined, `${name}: ${res.text}`);
    return JSON.stringify(res.message?.result);
  }

  it('get_customer, search_tickets, get_ticket and create_ticket answer with "[redacted]" in place of each email', async () => {
    const results = {
      get_customer: await call('get_customer', { customer_id: 'C-0001' }),
      search_tickets: await call('search_tickets', {}),
      get_ticket: await call('get_ticket', { id: 'T-1001' }),
      create_ticket: await call('create_ticket', {
        subject: 'Printer on fire',
        body: 'Again',
        customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
      }),
    };
    for (const [tool, text] of Object.entries(results)) {
      assert.doesNotMatch(text, /@example\.com/, `${tool} hands the agent an email address: ${text.slice(0, 500)}`);
      assert.match(text, /\[redacted\]/, `${tool}: ${text.slice(0, 500)}`);
    }
  });
});
