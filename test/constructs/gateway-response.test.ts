import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Testing } from 'cdktf';
import { Gateway, Manifest, Service } from '../../constructs';
import { startGateway } from '../../src/gateway';
import { startBackend, type TestBackend } from '../helpers/backend';
import { modernRequest, postModern } from '../helpers/modern';
import { tempDir } from '../helpers/temp-dir';
import { BOT } from '../helpers/tokens';
import { configOf, hashOf, newStack, synth, thrown } from './synth';

const EMAIL = '[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,255}';
const AUTH = { tokens: [{ id: 'bot', sha256: hashOf('gateway-response-token') }] };

function desk(response: unknown, own: Record<string, string> | undefined = { card: '\\b[0-9]{16}\\b' }) {
  const stack = newStack('desk');
  const customer = new Service(stack, 'get_customer', {
    endpoint: { url: 'http://crm:8080/customers/{id}', method: 'GET' },
    input: { id: { type: 'string', required: true } },
    ...(own === undefined ? {} : { response: { redactPatterns: own } }),
  });
  const tickets = new Service(stack, 'search_tickets', {
    endpoint: { url: 'http://crm:8080/tickets', method: 'GET' },
  });
  const gateway = new Gateway(stack, 'support', {
    services: [customer, tickets],
    auth: AUTH,
    response: response as never,
  });
  return { stack, gateway };
}

describe('Gateway response (patterns for every tool)', () => {
  it("adds the gateway's patterns to every tool, beside a tool's own", () => {
    const config = configOf(synth(desk({ redactPatterns: { email: EMAIL } }).stack), 'support');
    assert.deepEqual(
      config.tools.map((t) => [t.name, t.response]),
      [
        ['get_customer', { redact_patterns: { email: EMAIL, card: '\\b[0-9]{16}\\b' } }],
        ['search_tickets', { redact_patterns: { email: EMAIL } }],
      ],
    );
  });

  it('changes no tool without it', () => {
    const config = configOf(synth(desk(undefined).stack), 'support');
    assert.equal(config.tools[1].response, undefined);
    assert.deepEqual(configOf(synth(desk({ redactPatterns: {} }).stack), 'support').tools[1].response, undefined);
  });

  it('refuses a pattern the gateway could not run, naming it', () => {
    assert.match(
      thrown(() => desk({ redactPatterns: { email: '(' } })).message,
      /^Gateway 'support': response\.redactPatterns\.email \('\('\) /,
    );
  });

  it('refuses a setting that belongs to each service, saying where it goes', () => {
    assert.equal(
      thrown(() => desk({ redact: ['email'] })).message,
      "Gateway 'support': response.redact is not a gateway response setting: a gateway sets redactPatterns for " +
        "every tool; set redact on each service's response",
    );
    assert.equal(
      thrown(() => desk(['x'])).message,
      `Gateway 'support': response (["x"]) must be an object { redactPatterns? }`,
    );
  });

  it('refuses a service pattern of the same name with another expression at synthesis; the same one is fine', () => {
    const clash = desk({ redactPatterns: { card: '[0-9]{13,16}' } });
    assert.match(
      thrown(() => Testing.synth(clash.stack, true)).message,
      /Gateway 'support': response\.redactPatterns\.card is also a pattern of service 'get_customer' with another expression: rename one, or give both the same/,
    );
    const same = configOf(synth(desk({ redactPatterns: { card: '\\b[0-9]{16}\\b' } }).stack), 'support');
    assert.deepEqual(same.tools[0].response, { redact_patterns: { card: '\\b[0-9]{16}\\b' } });
  });

  it('is response.redact_patterns of a manifest gateway, with the same config', () => {
    const dir = tempDir('gateway-response-');
    const file = path.join(dir, 'desk.yaml');
    fs.writeFileSync(
      file,
      [
        'services:',
        '  search_tickets:',
        '    endpoint: { url: "http://crm:8080/tickets", method: GET }',
        'gateways:',
        '  support:',
        '    services: [search_tickets]',
        `    auth: { tokens: [{ id: bot, sha256: "${AUTH.tokens[0].sha256}" }] }`,
        '    response:',
        `      redact_patterns: { email: "${EMAIL.replace(/\\/g, '\\\\')}" }`,
        '',
      ].join('\n'),
    );
    const stack = newStack('desk');
    new Manifest(stack, 'm', { path: file });
    assert.deepEqual(configOf(synth(stack), 'support').tools[0].response, { redact_patterns: { email: EMAIL } });
  });

  describe('at a running gateway', () => {
    let backend: TestBackend;
    before(async () => {
      backend = await startBackend({
        respond: () => ({ body: '{"ticket":"T-1","customer":{"name":"Ada","email":"ada@example.com"}}' }),
      });
    });
    after(() => backend.close());

    it('redacts a match in a tool that has no response controls of its own', async () => {
      const { gateway } = desk({ redactPatterns: { email: EMAIL } }, undefined);
      const config = gateway.config();
      const running = await startGateway({
        config: {
          ...config,
          gateway: {
            ...config.gateway,
            auth: { tokens: [{ id: 'bot', sha256: hashOf(BOT.token) }] },
            audit_log: false,
          },
          tools: config.tools.map((t) => ({ ...t, backend: { ...t.backend, url: `${backend.url}/tickets` } })),
        },
        port: 0,
        host: '127.0.0.1',
        logger: () => undefined,
      });
      try {
        const res = await postModern(
          running.url,
          modernRequest('tools/call', { name: 'search_tickets', arguments: {} }),
          BOT.token,
        );
        const result = (res.message as any).result;
        assert.deepEqual(result.structuredContent, { ticket: 'T-1', customer: { name: 'Ada', email: '[redacted]' } });
        assert.ok(!JSON.stringify(result).includes('ada@example.com'), JSON.stringify(result));
      } finally {
        await running.close();
      }
    });
  });
});
