/**
 * A tool with response controls shapes a JSON body as JSON whatever its label: a hostile or careless backend that
 * sends JSON as `text/plain`, `text/html`, `application/xml` or no type at all gets the same `fields`, `redact`
 * and `redactPatterns` as `application/json`, with output validation on or off.
 */
import * as assert from 'node:assert/strict';
import { compileResponseControls, type ResponseControlsConfig } from '../../src/response';
import { generateOutputSchema } from '../../src/schema';

const OUTPUT = generateOutputSchema({
  id: { type: 'string', required: true },
  email: { type: 'string' },
});
const BODY = JSON.stringify({ id: 'c1', email: 'ada@example.com', ssn: '123-45-6789' });
const LABELS = [
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'text/html; charset=utf-8',
  'application/xml',
  'text/xml',
  'application/octet-stream',
  '',
];

function shaped(config: ResponseControlsConfig, validate: boolean, contentType: string): string {
  const compiled = compileResponseControls(config, validate);
  assert.ok('shaper' in compiled && compiled.shaper !== undefined);
  const outcome = compiled.shaper.shape(BODY, contentType, 1 << 20);
  assert.equal(outcome.ok, true, `${contentType}: ${JSON.stringify(outcome)}`);
  return (outcome as { resultJson: string }).resultJson;
}

describe('security: the content type does not decide whether responses are shaped', () => {
  for (const validate of [true, false]) {
    for (const label of LABELS) {
      it(`drops undeclared fields and redacts paths of JSON labelled ${JSON.stringify(label)} (validate_output ${validate})`, () => {
        const result = JSON.parse(
          shaped({ output_schema: OUTPUT, response: { fields: 'declared', redact: ['email'] } }, validate, label),
        ) as { content: { text: string }[]; structuredContent: unknown };
        assert.deepEqual(result.structuredContent, { id: 'c1', email: '[redacted]' });
        assert.deepEqual(JSON.parse(result.content[0].text), { id: 'c1', email: '[redacted]' });
        assert.ok(!JSON.stringify(result).includes('ada@example.com'));
        assert.ok(!JSON.stringify(result).includes('123-45-6789'));
      });
    }
  }

  for (const label of LABELS) {
    it(`redacts a path of JSON labelled ${JSON.stringify(label)} with no declared output`, () => {
      const result = shaped({ response: { redact: ['ssn'] } }, true, label);
      assert.ok(!result.includes('123-45-6789'), result);
      assert.ok(result.includes('"structuredContent"'), result);
    });
  }
});
