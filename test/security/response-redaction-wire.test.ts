/**
 * Nothing a `redactPatterns` match covers reaches the agent, in any part of the result, over the wire: a match in a
 * key or a number is redacted in `structuredContent` as in the text (the two are one shaped value), the advertised
 * `outputSchema` admits what redaction makes of a number, and `maxBytes` bounds every byte of the result.
 */
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ToolConfig } from '../../src/config';
import { generateOutputSchema } from '../../src/schema';
import { compileToolSchema } from '../../src/validation';
import { botConfig, tool } from '../helpers/config';
import { startInProcessGateway, type InProcessGateway } from '../helpers/in-process-gateway';
import { initializeSession, postMcp, rawCall } from '../helpers/mcp';
import { BOT } from '../helpers/tokens';

const EMAIL = 'ada.lovelace@example.com';
const CARD = 4111111111111111;
const PATTERNS = { email: '[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}', card: '\\b[0-9]{13,16}\\b' };
const OUTPUT = generateOutputSchema({
  id: { type: 'string', required: true },
  n: { type: 'integer' },
  contacts: { type: 'object' },
});
/** 20,000 keys that each hold an email: redacted, the result would grow past the limit the test sets. */
const MANY_KEYS = JSON.stringify({
  id: 'C-1',
  contacts: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`u${i}@ex.io`, i])),
});

describe('security: pattern matches in keys and numbers, and maxBytes, over the wire', function () {
  this.timeout(30_000);
  let server: http.Server;
  let gw: InProcessGateway;
  let session: string;

  before(async () => {
    server = http.createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      res.setHeader('content-type', path === '/labelled-text' ? 'text/plain' : 'application/json');
      const bodies: Record<string, string> = {
        '/keys-numbers': JSON.stringify({ id: 'C-1', n: CARD, contacts: { [EMAIL]: { card: 5500000000000004 } } }),
        '/many-keys': MANY_KEYS,
        '/labelled-text': JSON.stringify({ id: 'C-1', contacts: { owner: EMAIL } }),
      };
      res.end(bodies[path] ?? '{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const shaped = (name: string, path: string, response: ToolConfig['response']): ToolConfig => ({
      ...tool(name, `${url}${path}`),
      output_schema: OUTPUT,
      response,
    });
    gw = await startInProcessGateway(
      botConfig([
        shaped('keys_numbers', '/keys-numbers', { redact_patterns: PATTERNS }),
        shaped('many_keys', '/many-keys', { redact_patterns: PATTERNS, max_bytes: 500_000 }),
        shaped('labelled_text', '/labelled-text', { redact: ['contacts.*'] }),
      ]),
    );
    session = await initializeSession(gw.url);
  });

  after(async () => {
    await gw.close();
    server.close();
  });

  it('redacts a match in a number and in a key in structuredContent and the text alike', async () => {
    const res = await postMcp(
      gw.url,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'keys_numbers', arguments: {} } },
      { token: BOT.token, headers: { 'mcp-session-id': session } },
    );
    assert.ok(!res.text.includes(EMAIL) && !res.text.includes(String(CARD)) && !res.text.includes('5500000000000004'));
    const result = (res.message as unknown as { result: { structuredContent: unknown; content: { text: string }[] } })
      .result;
    assert.deepEqual(result.structuredContent, {
      id: 'C-1',
      n: '[redacted]',
      contacts: { '[redacted]': { card: '[redacted]' } },
    });
    assert.equal(result.content[0].text, JSON.stringify(result.structuredContent));
  });

  it('advertises an outputSchema the redacted result conforms to', async () => {
    const list = await postMcp(
      gw.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
      { token: BOT.token, headers: { 'mcp-session-id': session } },
    );
    const tools = (
      list.message as unknown as { result: { tools: { name: string; outputSchema: Record<string, unknown> }[] } }
    ).result.tools;
    const advertised = tools.find((t) => t.name === 'keys_numbers')!.outputSchema;
    const compiled = compileToolSchema(advertised);
    assert.ok(compiled.ok);
    const reply = await rawCall(gw.url, session, 'keys_numbers', {});
    assert.deepEqual(compiled.validator.validate(reply.result.structuredContent), { valid: true });
  });

  it('measures every byte the agent gets against maxBytes, redacted keys included', async () => {
    const res = await postMcp(
      gw.url,
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'many_keys', arguments: {} } },
      { token: BOT.token, headers: { 'mcp-session-id': session } },
    );
    const result = (res.message as unknown as { result: { isError?: boolean; content: { text: string }[] } }).result;
    assert.equal(result.isError, true, res.text.slice(0, 200));
    assert.match(result.content[0].text, /^Service response too large: \d+ bytes \(limit 500000\)$/);
    assert.ok(!res.text.includes('@ex.io'));
  });

  it('shapes JSON labelled text/plain as JSON: a redact path reaches it', async () => {
    const reply = await rawCall(gw.url, session, 'labelled_text', {});
    assert.deepEqual(reply.result.structuredContent, { id: 'C-1', contacts: { owner: '[redacted]' } });
    assert.ok(!JSON.stringify(reply).includes(EMAIL));
  });
});
