import assert from 'node:assert/strict';
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { ConfigError, loadGatewayConfig, parseGatewayConfig } from '../../src/config';
import { GATEWAY_CONFIG_SCHEMA } from '../../src/config';
import { MAX_CONFIG_BYTES } from '../../src/config/load-config';
import { tool } from '../helpers/config';
import { tempDir } from '../helpers/temp-dir';

const HASH = 'a'.repeat(64);

function doc(
  overrides: { gateway?: Record<string, unknown>; tools?: unknown[]; version?: unknown } = {},
): Record<string, unknown> {
  return {
    version: overrides.version ?? 1,
    gateway: { name: 'agents', auth: { tokens: [{ id: 'bot', sha256: HASH }] }, ...overrides.gateway },
    tools: overrides.tools ?? [validTool('get_customer')],
  };
}

/** The shared tool builder's tool, with `backend` fields overridden by any value (the parser's input is untyped). */
function validTool(name: string, backend: Record<string, unknown> = {}): Record<string, unknown> {
  const valid = tool(name, 'http://crm:8080/customers/{customer_id}', { description: 'd' });
  return { ...valid, backend: { ...valid.backend, ...backend } };
}

function refusal(d: unknown, source?: string): string {
  try {
    parseGatewayConfig(d, source);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    assert.doesNotMatch(err.message, /\n/);
    return err.message;
  }
  assert.fail('the config was accepted');
}

describe('parseGatewayConfig', () => {
  it('uses a config schema that is valid JSON Schema (start-up skips this check)', () => {
    const ajv = new Ajv({ strict: true });
    ajv.addKeyword({ keyword: 'x-message', schemaType: 'string' });
    assert.equal(ajv.validateSchema(GATEWAY_CONFIG_SCHEMA), true, ajv.errorsText(ajv.errors));
  });

  it('accepts a valid document and returns it unchanged', () => {
    const d = doc({ gateway: { port: 8081, validation_errors: 'auto', audit_log: { path: '/tmp/a.jsonl' } } });
    assert.equal(parseGatewayConfig(d), d);
  });

  it('accepts auth "none"', () => {
    assert.doesNotThrow(() => parseGatewayConfig(doc({ gateway: { auth: 'none' } })));
  });

  it('names the field and appends the source', () => {
    assert.equal(
      refusal(doc({ gateway: { port: 70000 } }), 'gateway.json'),
      'gateway.port: must be an integer 1-65535 (in gateway.json)',
    );
  });

  it('refuses an unsupported version', () => {
    assert.equal(refusal(doc({ version: 2 })), 'version: unsupported config version (this gateway reads version 1)');
  });

  it('refuses a missing required field with its path', () => {
    const d = doc();
    delete (d.gateway as Record<string, unknown>).auth;
    assert.equal(refusal(d), 'gateway.auth: is required');
  });

  it('accepts a session_key_store path and refuses an empty one', () => {
    const d = doc({ gateway: { session_key_store: '/var/lib/cdktf-mcp-gateway/session-key' } });
    assert.equal(parseGatewayConfig(d), d);
    assert.equal(
      refusal(doc({ gateway: { session_key_store: '' } })),
      'gateway.session_key_store: must be a non-empty string (a file path)',
    );
  });

  it('refuses an unknown field with its path', () => {
    assert.equal(refusal(doc({ gateway: { prot: 8080 } })), 'gateway.prot: unknown field');
  });

  it('refuses a non-http backend URL naming the tool index', () => {
    const tools = [validTool('a'), validTool('b'), validTool('c'), validTool('d', { url: 'ftp://crm/x' })];
    assert.equal(refusal(doc({ tools })), 'tools[3].backend.url: must be an http(s) URL');
  });

  it('refuses a backend URL without a host', () => {
    assert.equal(
      refusal(doc({ tools: [validTool('a', { url: 'http://' })] })),
      'tools[0].backend.url: must be an http(s) URL',
    );
  });

  // A caller-chosen authority is a server-side request forgery (169.254.169.254, 127.0.0.1:2375, …).
  for (const url of [
    'http://{host}/customers',
    'http://{host}:8080/customers',
    'http://crm:{port}/x',
    'http://{user}@crm/x',
  ]) {
    it(`refuses a placeholder before the path (${url}), naming the field`, () => {
      assert.equal(
        refusal(doc({ tools: [validTool('a'), validTool('b', { url })] })),
        'tools[1].backend.url: placeholders may stand only in the path and query, not in the scheme, host or port',
      );
    });
  }

  it('refuses a placeholder in the scheme or a lenient authority as not an http(s) URL (the schema pattern comes first)', () => {
    for (const url of ['{scheme}://crm/x', 'http:/{host}/x']) {
      assert.equal(
        refusal(doc({ tools: [validTool('b', { url })] })),
        'tools[0].backend.url: must be an http(s) URL',
        url,
      );
    }
  });

  it('accepts placeholders in the path and the query', () => {
    const url = 'http://crm:8080/customers/{customer_id}/{a}.{b}?view={view}';
    assert.doesNotThrow(() => parseGatewayConfig(doc({ tools: [validTool('a', { url })] })));
  });

  it('refuses an unknown backend method', () => {
    assert.equal(
      refusal(doc({ tools: [validTool('a', { method: 'HEAD' })] })),
      'tools[0].backend.method: must be one of GET, POST, PUT, PATCH, DELETE',
    );
  });

  it('refuses an invalid tool name', () => {
    assert.equal(
      refusal(doc({ tools: [validTool('get customer')] })),
      'tools[0].name: must match ^[A-Za-z0-9_.-]{1,64}$',
    );
  });

  it('refuses duplicate tool names', () => {
    assert.equal(
      refusal(doc({ tools: [validTool('a'), validTool('b'), validTool('a')] })),
      'tools[2].name: duplicate tool name "a" (also tools[0])',
    );
  });

  it('refuses a token hash that is not 64 lowercase hex characters', () => {
    const d = doc({ gateway: { auth: { tokens: [{ id: 'bot', sha256: 'A'.repeat(64) }] } } });
    assert.equal(
      refusal(d),
      'gateway.auth.tokens[0].sha256: must be 64 lowercase hex characters (the SHA-256 of the token)',
    );
  });

  it('refuses an auth string other than "none"', () => {
    assert.equal(refusal(doc({ gateway: { auth: 'off' } })), 'gateway.auth: must be "none" or { tokens?, oauth? }');
  });

  it('refuses duplicate token ids', () => {
    const d = doc({
      gateway: {
        auth: {
          tokens: [
            { id: 'bot', sha256: HASH },
            { id: 'bot', sha256: 'b'.repeat(64) },
          ],
        },
      },
    });
    assert.equal(refusal(d), 'gateway.auth.tokens[1].id: duplicate token id "bot" (also tokens[0])');
  });

  it('refuses a token id longer than 256 characters (a principal name is at most 256)', () => {
    const d = doc({ gateway: { auth: { tokens: [{ id: 'p'.repeat(257), sha256: HASH }] } } });
    assert.equal(refusal(d), 'gateway.auth.tokens[0].id: must be a non-empty string of at most 256 characters');
  });

  it('refuses a header timeout longer than the request timeout, naming both', () => {
    assert.equal(
      refusal(doc({ gateway: { header_timeout_ms: 40_000 } })),
      'gateway.header_timeout_ms: 40000 is longer than request_timeout_ms (30000); the headers are part of the request, so set it to at most 30000',
    );
    assert.equal(
      refusal(doc({ gateway: { write_timeout_ms: 0 } })),
      'gateway.write_timeout_ms: must be a positive integer (milliseconds)',
    );
  });

  it('refuses an invalid validation_errors channel', () => {
    assert.equal(
      refusal(doc({ gateway: { validation_errors: 'json' } })),
      'gateway.validation_errors: must be one of "protocol", "tool_result", "auto"',
    );
  });

  it('refuses an audit_log that is neither a boolean nor { path }', () => {
    assert.equal(
      refusal(doc({ gateway: { audit_log: 'yes' } })),
      "gateway.audit_log: must be true, false, 'store' or { path }",
    );
  });

  it('refuses a zero timeout', () => {
    assert.equal(
      refusal(doc({ tools: [validTool('a', { timeout_ms: 0 })] })),
      'tools[0].backend.timeout_ms: must be an integer 1-600000 (milliseconds)',
    );
  });

  it('refuses a document that is not an object', () => {
    assert.equal(refusal([]), 'config: must be an object with version, gateway and tools');
  });

  it('does not refuse a tool whose schema cannot compile (the tool is unavailable instead)', () => {
    const tool = { ...validTool('a'), input_schema: { type: 'object', properties: { x: { type: 'strin' } } } };
    assert.doesNotThrow(() => parseGatewayConfig(doc({ tools: [tool] })));
  });
});

describe('loadGatewayConfig', () => {
  const dir = tempDir('gw-config-');

  it('reads JSON', () => {
    const file = join(dir, 'gateway.json');
    writeFileSync(file, JSON.stringify(doc()));
    assert.deepEqual(loadGatewayConfig(file), doc());
  });

  it('reads YAML', () => {
    const file = join(dir, 'gateway.yaml');
    writeFileSync(file, ['version: 1', 'gateway: { name: agents, auth: none, port: 8081 }', 'tools: []'].join('\n'));
    assert.deepEqual(loadGatewayConfig(file), {
      version: 1,
      gateway: { name: 'agents', auth: 'none', port: 8081 },
      tools: [],
    });
  });

  it('names the file of a field error', () => {
    const file = join(dir, 'bad-port.json');
    writeFileSync(file, JSON.stringify(doc({ gateway: { port: 'x' } })));
    assert.throws(() => loadGatewayConfig(file), {
      name: 'ConfigError',
      message: `gateway.port: must be an integer 1-65535 (in ${file})`,
    });
  });

  it('reports a YAML syntax error with its line and column on one line', () => {
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, 'version: 1\ngateway: { name: agents\n');
    assert.throws(
      () => loadGatewayConfig(file),
      (err: Error) => {
        assert.equal(
          err.message,
          `invalid YAML in ${file} at line 2, column 10: this \`{\` is not closed: end the map with \`}\``,
        );
        assert.doesNotMatch(err.message, /\n/);
        return true;
      },
    );
  });

  it('reports a YAML alias it cannot read as a ConfigError naming the file', () => {
    const file = join(dir, 'aliases.yaml');
    const texts = ['tools: *missing', `tools: []\nx: &a0 [1]\ny: [${Array(200).fill('*a0').join(', ')}]`];
    for (const [text, why] of [
      [texts[0], 'Unresolved alias (the anchor must be set before the alias): missing'],
      [texts[1], 'Excessive alias count indicates a resource exhaustion attack'],
    ]) {
      writeFileSync(file, `version: 1\ngateway: { name: agents, auth: none }\n${text}\n`);
      assert.throws(() => loadGatewayConfig(file), { name: 'ConfigError', message: `invalid YAML in ${file}: ${why}` });
    }
  });

  it('reports invalid JSON', () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, '{"version": 1,');
    assert.throws(
      () => loadGatewayConfig(file),
      (err: Error) => err.message.startsWith(`invalid JSON in ${file}: `),
    );
  });

  it('refuses a file over 64 MiB before reading it', () => {
    const file = join(dir, 'huge.json');
    writeFileSync(file, '');
    truncateSync(file, MAX_CONFIG_BYTES + 1); // sparse: no 64 MiB written
    assert.throws(() => loadGatewayConfig(file), {
      message: `cannot read config file ${file}: ${MAX_CONFIG_BYTES + 1} bytes, more than the 64 MiB a config may hold`,
    });
  });

  it('reports a missing file', () => {
    assert.throws(() => loadGatewayConfig(join(dir, 'none.json')), {
      message: `cannot read config file ${join(dir, 'none.json')}: ENOENT`,
    });
  });
});
