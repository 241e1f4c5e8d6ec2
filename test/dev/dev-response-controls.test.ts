/**
 * `dev` serves a synthesized config with the image's runtime: the response controls a stack declares reach the
 * local gateway unchanged and are applied there exactly as in the image.
 */
import * as assert from 'node:assert/strict';
import type { GatewayConfig } from '../../src/config';
import { localGatewayConfig } from '../../src/dev/local-gateway-config';
import { startBackend, type TestBackend } from '../helpers/backend';
import { startInProcessGateway, type InProcessGateway } from '../helpers/in-process-gateway';
import { initializeSession, rawCall } from '../helpers/mcp';
import { BOT, tokenEntry } from '../helpers/tokens';

describe('dev: response controls', () => {
  let backend: TestBackend;
  let gw: InProcessGateway;

  before(async () => {
    backend = await startBackend({
      respond: () => ({ body: JSON.stringify({ id: 'C-1', email: 'ada@example.com', internal: 'x' }) }),
    });
    const deployed: GatewayConfig = {
      version: 1,
      gateway: {
        name: 'agents',
        port: 8080,
        host: '0.0.0.0',
        validate_output: true,
        auth: { tokens: [tokenEntry(BOT)] },
        audit_log: true,
      },
      tools: [
        {
          name: 'get_customer',
          description: 'Look up a customer',
          input_schema: { type: 'object', properties: {}, additionalProperties: false },
          output_schema: {
            type: 'object',
            properties: { id: { type: 'string' }, email: { type: 'string' } },
            additionalProperties: false,
          },
          response: { fields: 'declared', redact: ['email'] },
          backend: { url: 'http://support-desk-api:8080/customers', method: 'GET' },
        },
      ],
    };
    const local = localGatewayConfig(deployed, {
      maps: { 'support-desk-api:8080': backend.url.replace('http://', '') },
      auditLogPath: '/dev/null',
    });
    assert.deepEqual(local.tools[0].response, deployed.tools[0].response);
    assert.deepEqual(local.tools[0].output_schema, deployed.tools[0].output_schema);
    assert.equal(local.gateway.validate_output, true);
    gw = await startInProcessGateway(local);
  });

  after(async () => {
    await gw?.close();
    await backend?.close();
  });

  it('applies them as the image does', async () => {
    const session = await initializeSession(gw.url);
    const reply = await rawCall(gw.url, session, 'get_customer', {});
    assert.deepEqual(reply.result.structuredContent, { id: 'C-1', email: '[redacted]' });
    assert.ok(!JSON.stringify(reply).includes('ada@example.com'));
  });
});
