import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadGatewayConfig, parseGatewayConfig } from '../../src/config';

const HASH = 'a'.repeat(64);

function configWith(tool: Record<string, unknown>): Record<string, unknown> {
  return {
    version: 1,
    gateway: { name: 'agents', auth: { tokens: [{ id: 'bot', sha256: HASH }] } },
    tools: [
      {
        name: 'first',
        description: 'd',
        input_schema: { type: 'object', properties: {}, additionalProperties: false },
        backend: { url: 'http://crm/first', method: 'GET' },
      },
      { name: 't', description: 'd', backend: { url: 'http://crm/x', method: 'GET' }, ...tool },
    ],
  };
}

function schemaOf(...names: string[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])),
    additionalProperties: false,
  };
}

/** A document as `JSON.parse` gives it: `__proto__` is then an own key, as in a config file. */
function fromJson(text: string): unknown {
  return JSON.parse(text);
}

function refusal(doc: unknown): string {
  try {
    parseGatewayConfig(doc);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    assert.doesNotMatch(err.message, /\n/);
    return err.message;
  }
  assert.fail('the config was accepted');
}

describe('parseGatewayConfig: reserved names (docs/input-and-validation.md)', () => {
  for (const name of ['__proto__', 'constructor', 'prototype']) {
    it(`refuses ${name} as an alias name`, () => {
      const doc = fromJson(
        JSON.stringify(configWith({ input_schema: schemaOf('prompt'), aliases: {} })).replace(
          '"aliases":{}',
          `"aliases":{"${name}":"prompt"}`,
        ),
      );
      assert.equal(
        refusal(doc),
        `tools[1].aliases.${name}: ${JSON.stringify(name)} is reserved (JavaScript objects inherit or use it: __proto__, constructor, prototype): choose another alias`,
      );
    });

    it(`refuses ${name} as an alias target`, () => {
      const doc = configWith({ input_schema: schemaOf('prompt'), aliases: { description: name } });
      assert.equal(
        refusal(doc),
        `tools[1].aliases.description: ${JSON.stringify(name)} is reserved (JavaScript objects inherit or use it: __proto__, constructor, prototype): an alias must stand for another parameter`,
      );
    });

    it(`refuses ${name} as a forward_as parameter`, () => {
      const doc = fromJson(
        JSON.stringify(configWith({ input_schema: schemaOf('p'), forward_as: {} })).replace(
          '"forward_as":{}',
          `"forward_as":{"${name}":"field"}`,
        ),
      );
      assert.equal(
        refusal(doc),
        `tools[1].forward_as.${name}: ${JSON.stringify(name)} is reserved (JavaScript objects inherit or use it: __proto__, constructor, prototype): rename the parameter`,
      );
    });

    it(`refuses ${name} as a forward_as target`, () => {
      const doc = configWith({ input_schema: schemaOf('meta'), forward_as: { meta: name } });
      assert.equal(
        refusal(doc),
        `tools[1].forward_as.meta: ${JSON.stringify(name)} is reserved (JavaScript objects inherit or use it: __proto__, constructor, prototype): forward the parameter under another name`,
      );
    });
  }

  it('refuses a YAML config that renames a parameter to __proto__', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-gw-reserved-'));
    try {
      const file = join(dir, 'gateway.yaml');
      writeFileSync(
        file,
        [
          'version: 1',
          'gateway: {name: agents, auth: none}',
          'tools:',
          '  - name: t',
          '    description: d',
          '    input_schema: {type: object, properties: {meta: {type: object}}}',
          '    forward_as: {meta: __proto__}',
          '    backend: {url: "http://crm/items/{id}", method: GET}',
          '',
        ].join('\n'),
      );
      assert.throws(() => loadGatewayConfig(file), /tools\[0\]\.forward_as\.meta: "__proto__" is reserved/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('still accepts ordinary names that merely look like Object.prototype members elsewhere', () => {
    const doc = configWith({
      input_schema: schemaOf('toString', 'q'),
      aliases: { valueOf: 'q' },
      forward_as: { toString: 'to_string' },
    });
    assert.doesNotThrow(() => parseGatewayConfig(doc));
  });
});

describe('parseGatewayConfig: query parameters fixed in the URL (docs/gateway.md)', () => {
  it('refuses a GET parameter sent under a query name the URL fixes', () => {
    const doc = configWith({
      input_schema: schemaOf('q', 'fixed'),
      backend: { url: 'http://api/x?fixed=1', method: 'GET' },
    });
    assert.equal(
      refusal(doc),
      'tools[1].input_schema.properties.fixed: is sent as query parameter "fixed", which backend.url already fixes ' +
        '(?fixed=…): rename the parameter, forward it under another name with forward_as, or remove fixed from the URL',
    );
  });

  it('refuses a parameter renamed by forward_as onto a fixed query name, naming the rename', () => {
    const doc = configWith({
      input_schema: schemaOf('origin'),
      forward_as: { origin: 'source' },
      backend: { url: 'http://api/x?source=agent', method: 'DELETE' },
    });
    assert.match(
      refusal(doc),
      /^tools\[1\]\.forward_as\.origin: forwards parameter "origin" as query parameter "source", which backend\.url already fixes/,
    );
  });

  it('accepts the same name in the body of a POST, and a query placeholder filled by its own parameter', () => {
    assert.doesNotThrow(() =>
      parseGatewayConfig(
        configWith({ input_schema: schemaOf('fixed'), backend: { url: 'http://api/x?fixed=1', method: 'POST' } }),
      ),
    );
    assert.doesNotThrow(() =>
      parseGatewayConfig(
        configWith({ input_schema: schemaOf('q'), backend: { url: 'http://api/x?q={q}', method: 'GET' } }),
      ),
    );
  });
});
