import * as assert from 'node:assert/strict';
import { Gateway, Service, type ServiceProps } from '../../constructs';
import { generateOutputSchema, type InputSpec } from '../../src/schema';
import { parseGatewayConfig } from '../../src/config';
import { configOf, newStack, synth } from './synth';

const endpoint = { url: 'http://crm:8080/customers/{customer_id}', method: 'GET' } as const;
const input = { customer_id: { type: 'string', required: true } } as const satisfies InputSpec;
const output = {
  id: { type: 'string', required: true },
  email: { type: 'string', format: 'email' },
  age: { type: 'integer' },
  orders: { type: 'array', items: { type: 'object', properties: { card_number: { type: 'string' } } } },
  metadata: { type: 'object' },
} as const satisfies InputSpec;

function service(props: Partial<ServiceProps>): Service {
  return new Service(newStack(), 'get_customer', { endpoint, input, ...props });
}

function refusal(props: Partial<ServiceProps>): string {
  try {
    service(props);
  } catch (err) {
    return (err as Error).message;
  }
  return assert.fail('expected the Service to be refused');
}

describe('Service response controls', () => {
  it('puts the generated output schema and the response settings in the tool config', () => {
    const s = service({
      output,
      response: {
        fields: 'declared',
        redact: ['email', 'orders[].card_number'],
        redactPatterns: { card: '\\b[0-9]{13,16}\\b' },
        maxBytes: 65536,
      },
    });
    const tool = s.toolConfig();
    assert.deepEqual(tool.output_schema, generateOutputSchema(output));
    assert.deepEqual(tool.response, {
      fields: 'declared',
      redact: ['email', 'orders[].card_number'],
      redact_patterns: { card: '\\b[0-9]{13,16}\\b' },
      max_bytes: 65536,
    });
  });

  it('generates the same bytes for the same output, closed and without null', () => {
    const a = JSON.stringify(service({ output }).toolConfig().output_schema);
    const b = JSON.stringify(service({ output: { ...output } }).toolConfig().output_schema);
    assert.equal(a, b);
    assert.equal(JSON.parse(a).additionalProperties, false);
    assert.ok(!a.includes('null'));
  });

  it('takes a raw outputSchema as written', () => {
    const raw = { type: 'object', properties: { id: { type: 'string' } } };
    assert.deepEqual(service({ outputSchema: raw }).toolConfig().output_schema, raw);
  });

  it('leaves the tool config unchanged without output or response', () => {
    const tool = service({}).toolConfig();
    assert.equal('output_schema' in tool, false);
    assert.equal('response' in tool, false);
  });

  it('synthesizes a config the gateway accepts, and validateOutput toggles only validate_output', () => {
    const configFor = (validateOutput: boolean | undefined) => {
      const stack = newStack();
      const s = new Service(stack, 'get_customer', { endpoint, input, output, response: { redact: ['email'] } });
      new Gateway(stack, 'support', { services: [s], auth: 'none', validateOutput });
      return configOf(synth(stack), 'support');
    };
    const on = configFor(true);
    const off = configFor(false);
    parseGatewayConfig(on);
    assert.equal(on.gateway.validate_output, true);
    assert.equal(off.gateway.validate_output, false);
    assert.deepEqual({ ...off, gateway: { ...off.gateway, validate_output: true } }, on);
    assert.equal('validate_output' in configFor(undefined).gateway, false, 'the default is left to the gateway');
  });

  describe('synthesis checks', () => {
    it('refuses output and outputSchema together', () => {
      assert.equal(
        refusal({ output, outputSchema: { type: 'object' } }),
        "Service 'get_customer': set either 'output' (declared fields) or 'outputSchema' (a raw JSON Schema), not both",
      );
    });

    it('refuses an output spec that cannot be generated, naming the field', () => {
      assert.equal(
        refusal({ output: { id: { type: 'strin' as never } } }),
        "Service 'get_customer': invalid 'output': Invalid output spec at `id`: unknown type \"strin\"; use one of string, integer, number, boolean, array, object",
      );
      assert.equal(
        refusal({ output: { id: { type: 'string', aliases: ['x'] } } }),
        "Service 'get_customer': invalid 'output': Invalid output spec at `id`: aliases has no meaning in a declared output; remove it",
      );
    });

    it('refuses a raw outputSchema that is not an object schema or does not compile', () => {
      assert.equal(
        refusal({ outputSchema: { type: 'array' } }),
        "Service 'get_customer': outputSchema must be a JSON Schema with type: 'object' (MCP structured results are always a JSON object)",
      );
      assert.equal(
        refusal({ outputSchema: { type: 'object', properties: { a: { type: 'nope' } } } }),
        "Service 'get_customer': outputSchema does not compile: schema is invalid: data/properties/a/type must be equal to one of the allowed values, data/properties/a/type must be array, data/properties/a/type must match a schema in anyOf. Fix the JSON Schema (draft 2020-12) or declare 'output' instead",
      );
    });

    it("refuses fields: 'declared' without a declared output", () => {
      assert.equal(
        refusal({ response: { fields: 'declared' } }),
        "Service 'get_customer': response.fields ('declared') is 'declared', but the service declares no output: declare 'output' (or 'outputSchema'), or remove fields",
      );
      assert.equal(
        refusal({ output, response: { fields: 'some' as never } }),
        "Service 'get_customer': response.fields ('some') must be 'declared' or 'all'",
      );
    });

    it('refuses a redact path that names no declared field or a field that is not a string', () => {
      assert.equal(
        refusal({ output, response: { redact: ['email', 'phone'] } }),
        "Service 'get_customer': response.redact[1] ('phone') names no declared field (\"phone\" is not in the output): name a declared string field",
      );
      assert.equal(
        refusal({ output, response: { redact: ['age'] } }),
        "Service 'get_customer': response.redact[0] ('age') names a field of type integer, and only strings are redacted: name a declared string field",
      );
      assert.equal(
        refusal({ output, response: { redact: ['orders[0]'] } }),
        'Service \'get_customer\': response.redact[0] (\'orders[0]\') is not a path at character 7: use field names joined by ".", [] for every array element, * for every key of a map and ["key"] for other keys',
      );
      // Without a declared output any well-formed path is accepted (nothing to check it against).
      assert.deepEqual(service({ response: { redact: ['phone'] } }).toolConfig().response, { redact: ['phone'] });
      assert.deepEqual(service({ output, response: { redact: ['metadata.*'] } }).toolConfig().response, {
        redact: ['metadata.*'],
      });
    });

    it('refuses a pattern the linear-time engine cannot run, or one matching the empty string', () => {
      assert.equal(
        refusal({ response: { redactPatterns: { twice: '(a)\\1' } } }),
        "Service 'get_customer': response.redactPatterns.twice ('(a)\\1') uses a backreference \\1, which the gateway's linear-time regular expression engine does not support; rewrite the pattern without it",
      );
      assert.equal(
        refusal({ response: { redactPatterns: { bad: '(' } } }),
        "Service 'get_customer': response.redactPatterns.bad ('(') is not a valid ECMAScript (unicode mode) regular expression: Invalid regular expression: /(/u: Unterminated group",
      );
      assert.equal(
        refusal({ response: { redactPatterns: { any: '[0-9]*' } } }),
        "Service 'get_customer': response.redactPatterns.any ('[0-9]*') matches the empty string, so it would redact between every character; make it match at least one character",
      );
      assert.equal(
        refusal({ response: { redactPatterns: { edge: '\\b' } } }),
        "Service 'get_customer': response.redactPatterns.edge ('\\b') matches the empty string, so it would redact between every character; make it match at least one character",
      );
    });

    it('refuses maxBytes out of range', () => {
      for (const maxBytes of [0, -1, 1.5, 67_108_865]) {
        assert.equal(
          refusal({ response: { maxBytes } }),
          `Service 'get_customer': response.maxBytes (${maxBytes}) must be an integer between 1 and 67108864 (bytes)`,
        );
      }
    });

    it('refuses an unknown response setting', () => {
      assert.equal(
        refusal({ response: { redactPaths: ['x'] } as never }),
        "Service 'get_customer': response.redactPaths is not a response setting: use fields, redact, redactPatterns or maxBytes",
      );
    });
  });
});
