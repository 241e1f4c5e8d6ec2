import assert from 'node:assert/strict';
import type { RunningGateway } from '../../../src/gateway';
import { botConfig } from '../../helpers/config';
import { rawRequest } from '../../helpers/http';
import { startSilentGateway } from '../../helpers/in-process-gateway';
import { BOT } from '../../helpers/tokens';

describe('the POST body (read after the token, before JSON parsing)', () => {
  let gateway: RunningGateway;
  const auth = { authorization: `Bearer ${BOT.token}`, 'content-type': 'application/json' };

  before(async () => {
    gateway = await startSilentGateway(botConfig([], { max_body_bytes: 1000 }));
  });
  after(() => gateway.close());

  it('refuses a body over max_body_bytes with 413', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(2000) } });
    const res = await rawRequest({ url: gateway.url, headers: auth, body, timeoutMs: 5_000 });
    assert.equal(res.status, 413);
    assert.equal(res.json.error.message, 'Payload Too Large: the body exceeds 1000 bytes');
  });
});
