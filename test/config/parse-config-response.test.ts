import * as assert from 'node:assert/strict';
import { ConfigError, parseGatewayConfig, type ToolConfig } from '../../src/config';
import { botConfig, tool } from '../helpers/config';

const OUTPUT = {
  type: 'object',
  properties: { email: { type: 'string' }, age: { type: 'integer' } },
  additionalProperties: false,
};

function problem(extra: Partial<ToolConfig>, settings = {}): string {
  const config = botConfig([{ ...tool('t', 'http://127.0.0.1:1/x'), ...extra }], settings);
  try {
    parseGatewayConfig(JSON.parse(JSON.stringify(config)));
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.message;
  }
  return 'accepted';
}

describe('config: response controls', () => {
  it('accepts output_schema, response and validate_output', () => {
    assert.equal(
      problem(
        {
          output_schema: OUTPUT,
          response: { fields: 'declared', redact: ['email'], redact_patterns: { card: '[0-9]{16}' }, max_bytes: 100 },
        },
        { validate_output: false },
      ),
      'accepted',
    );
  });

  it('refuses each setting with one line naming the field', () => {
    assert.equal(problem({}, { validate_output: 'yes' }), 'gateway.validate_output: must be true or false');
    assert.equal(
      problem({ output_schema: { type: 'array' } }),
      "tools[0].output_schema: must be a JSON Schema with type: 'object'",
    );
    assert.equal(
      problem({ output_schema: { type: 'object', properties: { a: { pattern: '(?=a)' } } } }),
      'tools[0].output_schema: does not compile: pattern "(?=a)" at #/properties/a/pattern uses a lookahead (?=…), which the gateway\'s linear-time regular expression engine does not support; rewrite the pattern without it',
    );
    assert.equal(
      problem({ response: { fields: 'declared' } }),
      "tools[0].response.fields: is 'declared', but the service declares no output: give the tool an output_schema, or remove fields",
    );
    assert.equal(
      problem({ response: { fields: 'x' as never } }),
      'tools[0].response.fields: must be "declared" or "all"',
    );
    assert.equal(
      problem({ output_schema: OUTPUT, response: { redact: ['age'] } }),
      'tools[0].response.redact[0]: names a field of type integer, and only strings are redacted: name a declared string field',
    );
    assert.equal(
      problem({ response: { redact_patterns: { 'a b': 'x' } } }),
      'tools[0].response.redact_patterns["a b"]: has a name that is not ^[A-Za-z0-9_.-]{1,64}$',
    );
    assert.equal(
      problem({ response: { redact_patterns: { x: '(a)\\1' } } }),
      "tools[0].response.redact_patterns.x: uses a backreference \\1, which the gateway's linear-time regular expression engine does not support; rewrite the pattern without it",
    );
    assert.equal(
      problem({ response: { max_bytes: 0 } }),
      'tools[0].response.max_bytes: must be an integer 1-67108864 (bytes)',
    );
    assert.equal(problem({ response: { other: 1 } as never }), 'tools[0].response.other: unknown field');
  });
});
