/**
 * A `redactPatterns` pattern redacts keys too, so one that matches a declared field's name would rename that field
 * and break the declared output: synthesis and config loading refuse it, naming the field.
 */
import * as assert from 'node:assert/strict';
import { Service } from '../../constructs';
import { ConfigError, parseGatewayConfig } from '../../src/config';
import { generateOutputSchema } from '../../src/schema';
import { newStack, thrown } from '../constructs/synth';
import { botConfig, tool } from '../helpers/config';

const OUTPUT = {
  id: { type: 'string', required: true },
  owner: { type: 'object', properties: { email: { type: 'string' } } },
} as const;

describe('security: a redact pattern never renames a declared field', () => {
  it('refuses at synthesis a pattern that matches a nested declared field name', () => {
    const message = thrown(
      () =>
        new Service(newStack(), 'get_customer', {
          endpoint: { url: 'http://crm/x', method: 'GET' },
          output: OUTPUT,
          response: { redactPatterns: { mail: 'mai' } },
        }),
    ).message;
    assert.match(message, /redactPatterns\.mail/);
    assert.match(
      message,
      /matches the declared field name "email", which redaction would rename; make the pattern match only values/,
    );
  });

  it('refuses it at config load too, and accepts a pattern that matches no declared name', () => {
    const config = (pattern: string) =>
      botConfig([
        {
          ...tool('t', 'http://crm/x'),
          output_schema: generateOutputSchema(OUTPUT),
          response: { redact_patterns: { p: pattern } },
        },
      ]);
    const err = thrown(() => parseGatewayConfig(config('own')));
    assert.ok(err instanceof ConfigError);
    assert.match(err.message, /matches the declared field name "owner"/);
    parseGatewayConfig(config('\\b[0-9]{13,16}\\b'));
  });
});
