/**
 * The support-desk example: six HTTP services of one backend (`support-desk-api`) and one more generated from its
 * OpenAPI document (`openapi/support-desk-api.yaml`), exposed as MCP tools through two gateways: `agents` (every
 * tool, validated) and `legacy` (three tools, unvalidated, for an old bot). `get_customer` also shows response
 * controls: a declared output the gateway checks, and the customer's email redacted before any agent sees it.
 *
 *   cdktf synth                       # offline: writes cdktf.out/stacks/support-desk/cdk.tf.json
 *   cdktf deploy                      # needs Docker and Terraform's docker provider
 *
 * BASE_IMAGE names the Node image the gateways and the backend build on (default node:22-bookworm-slim from
 * Docker Hub; any image of Node 22.18 or later your Docker host has). Neither build needs a network.
 *   npx cdktf-mcp-gateway dev .       # serves the gateways locally, without Docker
 *
 * `support-desk.yaml` declares the same stack as a manifest.
 */
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { DockerProvider } from '@cdktf/provider-docker/lib/provider';
// Users write: import { Gateway, Service } from 'cdktf-mcp-gateway';
import { AuditDashboard, DEFAULT_BASE_IMAGE, Gateway, OpenApiServices, Service } from '../../index';

/** The one backend every service calls; in Docker, the container of `get_customer` answers under this name. */
const API = 'http://support-desk-api:8080';

/**
 * Token hashes (the gateway config holds hashes only, never tokens). Make a token and its hash with
 *   TOKEN=$(openssl rand -base64 32); printf %s "$TOKEN" | sha256sum
 * and pass the hash in AGENTS_TOKEN_SHA256 / LEGACY_TOKEN_SHA256. The fallbacks are the hashes of the
 * well-known development tokens `support-desk-agents-dev-token`, `support-desk-legacy-dev-token` and (the audit
 * dashboard) `support-desk-ops-dev-token`:
 * fine on a laptop, never in a deployment anyone else can reach. (`npm start`, which runs `dev`, serves tokens of its
 * own instead: use the one it prints.)
 */
const DEV_AGENTS_TOKEN_SHA256 = 'a5fef74197cae1572c39fd58adc2462814edafe5bc62cf43831891ed6d46e378';
const DEV_LEGACY_TOKEN_SHA256 = 'f16ca4571acd2e5184b92b908fe6fb307a49d89f401c9b3288948686234c650b';
const DEV_OPS_TOKEN_SHA256 = '71f08236211ec30f6a6cf23c25f8ec7da5dc3213b3c6480e2e3033d8a64e7bfd';

/** The support-desk services and gateways (the app adds the Docker provider). */
export class SupportDesk extends Construct {
  /** The gateway for current agents: all seven tools, input validated. */
  public readonly agents: Gateway;
  /** The gateway for the legacy bot: three tools, forwarded unchecked. */
  public readonly legacy: Gateway;
  /** The audit dashboard over both gateways' audit logs. */
  public readonly audit: AuditDashboard;

  public constructor(scope: Construct, id: string) {
    super(scope, id);
    // read when the stack is built (not at import), so the environment of each synthesis applies
    const agentsTokenSha256 = process.env.AGENTS_TOKEN_SHA256 ?? DEV_AGENTS_TOKEN_SHA256;
    const legacyTokenSha256 = process.env.LEGACY_TOKEN_SHA256 ?? DEV_LEGACY_TOKEN_SHA256;
    const apiImage = process.env.SUPPORT_DESK_API_IMAGE;
    const baseImage = process.env.BASE_IMAGE || DEFAULT_BASE_IMAGE;
    // the backend's Dockerfile defaults to the same image
    const baseImageArgs = process.env.BASE_IMAGE ? { BASE_IMAGE: baseImage } : undefined;

    const getCustomer = new Service(this, 'get_customer', {
      description: 'Look up a customer by CRM id (name, email, plan, open tickets).',
      endpoint: { url: `${API}/customers/{customer_id}`, method: 'GET' },
      input: {
        customer_id: { type: 'string', required: true, pattern: '^C-[0-9]{4}$', description: 'CRM id, e.g. C-0042' },
      },
      // what the backend answers, declared: the gateway checks every answer against it (validate_output) and
      // clients see it as the tool's outputSchema
      output: {
        customer_id: { type: 'string', required: true },
        name: { type: 'string', required: true },
        email: { type: 'string', format: 'email', required: true },
        plan: { type: 'string', enum: ['free', 'team', 'enterprise'], required: true },
        addresses: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              street: { type: 'string', required: true },
              city: { type: 'string', required: true },
              zip_code: { type: 'integer', required: true },
            },
          },
        },
      },
      // agents need the customer, not their email address: it reaches them as "[redacted]"
      response: { redact: ['email'] },
      timeoutMs: 5000,
      // deploy the backend too, built from ./backend (SUPPORT_DESK_API_IMAGE names a prebuilt image instead): it
      // joins the stack's network under the alias support-desk-api and listens on PORT, which must match
      // container.port and the endpoint URLs
      container: {
        ...(apiImage !== undefined
          ? { image: apiImage }
          : { build: { context: path.join(__dirname, 'backend'), args: baseImageArgs } }),
        port: 8080,
        env: { PORT: '8080' },
        // the deploy waits until the image's own HEALTHCHECK (GET /health) passes
        healthcheck: 'image',
      },
    });

    const searchTickets = new Service(this, 'search_tickets', {
      description: 'Search support tickets; every filter is optional.',
      endpoint: { url: `${API}/tickets`, method: 'GET' },
      input: {
        query: { type: 'string', maxLength: 200, description: 'Full-text search in subject and body' },
        status: { type: 'string', enum: ['open', 'pending', 'closed'] },
        priority: { type: 'integer', enum: [1, 2, 3], description: '1 = urgent, 3 = low' },
        limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Page size', default: 20 },
        created_after: { type: 'string', format: 'date-time', description: 'RFC 3339 timestamp' },
      },
      // each ticket names its customer: agents see the name, never the email address
      response: { redact: ['tickets[].customer.email'] },
    });

    const createTicket = new Service(this, 'create_ticket', {
      description: 'Open a support ticket for a customer.',
      endpoint: { url: `${API}/tickets`, method: 'POST' },
      input: {
        subject: { type: 'string', required: true, maxLength: 200 },
        body: { type: 'string', required: true },
        priority: { type: 'integer', enum: [1, 2, 3], description: '1 = urgent, 3 = low' },
        customer: {
          type: 'object',
          required: true,
          properties: {
            name: { type: 'string', required: true },
            email: { type: 'string', format: 'email', required: true },
            addresses: {
              type: 'array',
              maxItems: 5,
              items: {
                type: 'object',
                properties: {
                  street: { type: 'string', required: true },
                  city: { type: 'string', required: true },
                  zip_code: { type: 'integer', required: true },
                },
              },
            },
          },
        },
        tags: { type: 'array', items: { type: 'string', maxLength: 32 }, uniqueItems: true, maxItems: 10 },
      },
      // the created ticket comes back with its customer: the email address stays out of the agent's context
      response: { redact: ['customer.email'] },
    });

    const health = new Service(this, 'health', {
      description: 'Check that the support-desk backend is up.',
      endpoint: { url: `${API}/health`, method: 'GET' },
    });

    const updateSettings = new Service(this, 'update_settings', {
      description: "Replace a team's settings (an open map of setting name to value).",
      endpoint: { url: `${API}/settings/{team}`, method: 'PUT' },
      input: {
        team: { type: 'string', required: true },
        settings: { type: 'object', required: true, description: 'Setting name to value' },
      },
    });

    const createTask = new Service(this, 'create_task', {
      description: 'Create a follow-up task for the support team.',
      endpoint: { url: `${API}/tasks`, method: 'POST' },
      input: {
        // `${…}` and `%{…}` reach the agents literally: synthesis escapes them for Terraform, and every reader of
        // the uploaded config (the container, `dev`) undoes the escape
        title: {
          type: 'string',
          required: true,
          description: 'Task title; the backend fills ${customer} and ${ticket}; write a literal % as %%',
          pattern: '^(?:[^%]|%{2})*$',
        },
        // older agents send `description`; the backend calls the field `description` too
        prompt: { type: 'string', required: true, aliases: ['description'], forwardAs: 'description' },
        due: { type: 'string', format: 'date' },
      },
    });

    // the backend's team keeps an OpenAPI document of some routes: its operation becomes a tool, its schemas the
    // tool's input and output (served by the same backend: the document's server URL)
    const api = new OpenApiServices(this, 'support-desk-api', {
      document: path.join(__dirname, 'openapi', 'support-desk-api.yaml'),
      operations: ['getTicket'],
      overrides: { getTicket: { name: 'get_ticket', response: { redact: ['customer.email'] } } },
    });

    this.agents = new Gateway(this, 'agents', {
      services: [getCustomer, searchTickets, createTicket, health, updateSettings, createTask, ...api.services],
      validateInput: true,
      validationErrors: 'auto',
      auth: { tokens: [{ id: 'support-agents', sha256: agentsTokenSha256 }] },
      auditLog: true,
      port: 8080,
      baseImage,
    });

    this.legacy = new Gateway(this, 'legacy', {
      services: [getCustomer, searchTickets, createTicket],
      validateInput: false,
      auth: { tokens: [{ id: 'legacy-bot', sha256: legacyTokenSha256 }] },
      port: 8081,
      baseImage,
    });

    // which agents fail systematically, on which tool, with which message (see docs/dashboard.md); `dev` serves it too
    this.audit = new AuditDashboard(this, 'audit', {
      gateways: [this.agents, this.legacy],
      auth: { tokens: [{ id: 'support-ops', sha256: process.env.OPS_TOKEN_SHA256 ?? DEV_OPS_TOKEN_SHA256 }] },
      port: 8090,
      baseImage,
    });
  }
}

/** The deployable stack: the Docker provider plus the support desk. */
export class SupportDeskStack extends TerraformStack {
  /** The services and gateways. */
  public readonly supportDesk: SupportDesk;

  public constructor(scope: Construct, id: string) {
    super(scope, id);
    new DockerProvider(this, 'docker', {});
    this.supportDesk = new SupportDesk(this, 'support-desk');
  }
}

if (require.main === module) {
  const app = new App();
  new SupportDeskStack(app, 'support-desk');
  app.synth();
}
