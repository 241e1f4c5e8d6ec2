import assert from 'node:assert/strict';
import type { RunningGateway } from '../../../src/gateway';
import { botConfig } from '../../helpers/config';
import { rawRequest } from '../../helpers/http';
import { startSilentGateway } from '../../helpers/in-process-gateway';

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' });

describe('bearer tokens (checked after Origin/Host, before the body is read)', () => {
  let gateway: RunningGateway;
  const send = (headers: Record<string, string>, body: string = LIST) =>
    rawRequest({ url: gateway.url, headers, body, timeoutMs: 5_000 });

  before(async () => {
    gateway = await startSilentGateway(botConfig([], { max_body_bytes: 1000 }));
  });
  after(() => gateway.close());

  it('refuses a missing token with 401 and WWW-Authenticate: Bearer, before reading the body', async () => {
    const res = await send({ 'content-type': 'application/json' }, 'x'.repeat(5000));
    assert.equal(res.status, 401);
    assert.equal(res.headers['www-authenticate'], 'Bearer');
    assert.equal(res.json.error.message, 'Unauthorized: a valid bearer token is required');
  });

  it('refuses a wrong token with 401', async () => {
    const res = await send({ authorization: 'Bearer nope' }, '{');
    assert.equal(res.status, 401);
  });

  it('refuses a GET stream without a token with 401 and WWW-Authenticate', async () => {
    const res = await rawRequest({ url: gateway.url, method: 'GET', headers: { accept: 'text/event-stream' } });
    assert.equal(res.status, 401);
    assert.equal(res.headers['www-authenticate'], 'Bearer');
  });

  it('auth "none" accepts requests without a token', async () => {
    const open = await startSilentGateway(botConfig([], { auth: 'none' }));
    try {
      const res = await rawRequest({
        url: open.url,
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}',
        timeoutMs: 5_000,
      });
      assert.equal(res.status, 200);
    } finally {
      await open.close();
    }
  });
});
