import * as assert from 'node:assert/strict';
import type { GatewayConfig, ToolConfig } from '../../src/config';
import { describeConfigChanges } from '../../src/dev/config-changes';

const tool = (name: string, maxLength = 20): ToolConfig => ({
  name,
  description: `The ${name} tool`,
  input_schema: { type: 'object', properties: { word: { type: 'string', maxLength } } },
  backend: { url: `http://api:8080/${name}`, method: 'GET' },
});

const config: GatewayConfig = {
  version: 1,
  gateway: {
    name: 'agents',
    host: '127.0.0.1',
    validate_input: true,
    validation_errors: 'protocol',
    auth: { tokens: [{ id: 'dev', sha256: 'a'.repeat(64) }] },
    audit_log: { path: '/tmp/audit-agents.jsonl' },
  },
  tools: [tool('a'), tool('b'), tool('c')],
};

const withGateway = (gateway: Partial<GatewayConfig['gateway']>): GatewayConfig => ({
  ...config,
  gateway: { ...config.gateway, ...gateway },
});

describe('config changes dev prints on reload', () => {
  it('finds nothing in deep-equal configs', () => {
    assert.deepEqual(describeConfigChanges(config, structuredClone(config)), []);
  });

  it('shows both values of a boolean or number setting, an absent one as (default)', () => {
    assert.deepEqual(describeConfigChanges(config, withGateway({ validate_input: false })), [
      'validate_input true → false',
    ]);
    assert.deepEqual(describeConfigChanges(config, withGateway({ max_body_bytes: 4096 })), [
      'max_body_bytes (default) → 4096',
    ]);
    const { validate_input: _dropped, ...withoutValidateInput } = config.gateway;
    assert.deepEqual(describeConfigChanges(config, { ...config, gateway: withoutValidateInput }), [
      'validate_input true → (default)',
    ]);
  });

  it('names a changed free string or object setting without its values, which may hold URLs or hashes', () => {
    const changes = describeConfigChanges(
      config,
      withGateway({
        auth: { tokens: [{ id: 'dev', sha256: 'b'.repeat(64) }] },
        resource_url: 'https://mcp.example.com/mcp',
      }),
    );
    assert.deepEqual(changes, ['auth changed', 'resource_url changed']);
    assert.doesNotMatch(changes.join('; '), /example\.com|bbbb/);
  });

  it("shows a setting's fixed values (validation_errors), and none that is not one of them", () => {
    assert.deepEqual(describeConfigChanges(config, withGateway({ validation_errors: 'tool_result' })), [
      'validation_errors protocol → tool_result',
    ]);
    assert.deepEqual(
      describeConfigChanges(withGateway({ validation_errors: 'protocol' }), withGateway({ validation_errors: 'auto' })),
      ['validation_errors protocol → auto'],
    );
    // a string outside the setting's values is never shown, whatever the key (a config checked elsewhere)
    const odd = {
      ...config,
      gateway: { ...config.gateway, validation_errors: 'https://x.example' },
    } as unknown as GatewayConfig;
    assert.deepEqual(describeConfigChanges(config, odd), ['validation_errors changed']);
    const name = { ...config, gateway: { ...config.gateway, name: 'auto' } };
    assert.deepEqual(describeConfigChanges(config, name), ['name changed'], "another setting's value is not its own");
  });

  it('names a setting that changes between a boolean and an object without either value', () => {
    assert.deepEqual(describeConfigChanges(withGateway({ metrics: true }), withGateway({ metrics: { port: 9464 } })), [
      'metrics changed',
    ]);
  });

  it('lists tools added, removed and changed by name, settings first', () => {
    const after: GatewayConfig = {
      ...withGateway({ validate_input: false }),
      tools: [tool('a', 3), tool('c'), tool('d'), tool('e')],
    };
    assert.deepEqual(describeConfigChanges(config, after), [
      'validate_input true → false',
      'tools added: d, e',
      'tools removed: b',
      'tools changed: a',
    ]);
  });

  it('says tools reordered when the tools both configs hold are in another order', () => {
    assert.deepEqual(describeConfigChanges(config, { ...config, tools: [tool('c'), tool('a'), tool('b')] }), [
      'tools reordered',
    ]);
    assert.deepEqual(describeConfigChanges(config, { ...config, tools: [tool('a'), tool('c')] }), ['tools removed: b']);
  });
});
