import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TerraformVariable } from 'cdktf';
import { AuditDashboard, Gateway, LimitStore, Manifest, Secret, Service } from '../../constructs';
import { hashOf, newStack, synth } from './synth';

const SHA = hashOf('shop-token');

/** One stack, in YAML: a service with a secret header and a backend container, a gateway, a dashboard. */
const YAML = `services:
  get_invoice:
    description: Look up an invoice
    endpoint:
      url: "http://billing:8080/invoices/{invoice_id}"
      method: GET
      headers: { Authorization: { secret: BILLING_API_KEY } }
    input:
      invoice_id: { type: string, required: true, pattern: "^INV-[0-9]+$" }
    timeout_ms: 5000
    container: { image: "acme/billing:2.0", port: 8080, env: { PORT: 8080 } }
gateways:
  shop:
    services: [get_invoice]
    validation_errors: auto
    auth: { tokens: [{ id: shop-bot, sha256: "${SHA}" }] }
    port: 8081
dashboards:
  ops:
    gateways: [shop]
    auth: { tokens: [{ id: ops, sha256: "${SHA}" }] }
`;

/** The same stack in TypeScript, as the docs write it. */
function typescript(): ReturnType<typeof newStack> {
  const stack = newStack('shop');
  const getInvoice = new Service(stack, 'get_invoice', {
    description: 'Look up an invoice',
    endpoint: {
      url: 'http://billing:8080/invoices/{invoice_id}',
      method: 'GET',
      headers: { Authorization: Secret.env('BILLING_API_KEY') },
    },
    input: { invoice_id: { type: 'string', required: true, pattern: '^INV-[0-9]+$' } },
    timeoutMs: 5000,
    container: { image: 'acme/billing:2.0', port: 8080, env: { PORT: '8080' } },
  });
  const apiKey = new TerraformVariable(stack, 'BILLING_API_KEY', {
    type: 'string',
    sensitive: true,
    description: 'Secret BILLING_API_KEY for the MCP gateways',
  });
  const shop = new Gateway(stack, 'shop', {
    services: [getInvoice],
    validationErrors: 'auto',
    auth: { tokens: [{ id: 'shop-bot', sha256: SHA }] },
    port: 8081,
    secrets: { BILLING_API_KEY: apiKey.stringValue },
  });
  new AuditDashboard(stack, 'ops', { gateways: [shop], auth: { tokens: [{ id: 'ops', sha256: SHA }] } });
  return stack;
}

/** A gateway with rate limits counted in a limit store the stack deploys, in YAML. */
const STORE_YAML = `services:
  get_invoice:
    endpoint: { url: "http://billing:8080/invoices/{invoice_id}", method: GET }
    input:
      invoice_id: { type: string, required: true }
gateways:
  shop:
    services: [get_invoice]
    auth: { tokens: [{ id: shop-bot, sha256: "${SHA}" }] }
    rate_limits: [{ calls: 60, per: minute }, { tool: get_invoice, calls: 10, per: second }]
    store: { limit_store: limits }
limit_stores:
  limits:
    image: "valkey/valkey:8-alpine"
    password: { variable: STORE_PASSWORD }
    host_port: 6380
`;

/** The same in TypeScript, as the docs write it. */
function typescriptWithStore(): ReturnType<typeof newStack> {
  const stack = newStack('shop');
  const getInvoice = new Service(stack, 'get_invoice', {
    endpoint: { url: 'http://billing:8080/invoices/{invoice_id}', method: 'GET' },
    input: { invoice_id: { type: 'string', required: true } },
  });
  const password = new TerraformVariable(stack, 'STORE_PASSWORD', {
    type: 'string',
    sensitive: true,
    description: 'Password of the limit store (Redis or Valkey) of the MCP gateways',
  });
  const store = new LimitStore(stack, 'limits', {
    name: 'limits',
    image: 'valkey/valkey:8-alpine',
    password: password.stringValue,
    hostPort: 6380,
  });
  new Gateway(stack, 'shop', {
    services: [getInvoice],
    auth: { tokens: [{ id: 'shop-bot', sha256: SHA }] },
    rateLimits: [
      { calls: 60, per: 'minute' },
      { tool: 'get_invoice', calls: 10, per: 'second' },
    ],
    store,
  });
  return stack;
}

describe('a declaration in TypeScript or in a manifest', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifest-equivalence-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('synthesizes the same output: resource addresses, variable names, configs, everything', () => {
    const file = path.join(dir, 'shop.yaml');
    fs.writeFileSync(file, YAML);
    const stack = newStack('shop');
    new Manifest(stack, 'manifest', { path: file });
    assert.deepEqual(synth(stack), synth(typescript()));
  });

  it('synthesizes the same output with a limit store the stack deploys', () => {
    const file = path.join(dir, 'store.yaml');
    fs.writeFileSync(file, STORE_YAML);
    const stack = newStack('shop');
    const manifest = new Manifest(stack, 'manifest', { path: file });
    assert.ok(manifest.limitStores.get('limits') instanceof LimitStore);
    const synthesized = synth(stack);
    assert.deepEqual(synthesized, synth(typescriptWithStore()));
    assert.ok(JSON.stringify(synthesized).includes('valkey/valkey:8-alpine'));
  });
});
